import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { unpublishPlugin } from '#shared/plugins/plugins.ts';

const params = z.object({ pluginId: idOf('plugin') });

export const handler = defineHandler('unpublish-plugin', { params }, async ({ principal, params }) => {
  await unpublishPlugin(principal, params.pluginId);
});
