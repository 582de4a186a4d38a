import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { unpublishPluginAsAdmin } from '#shared/plugins/plugins.ts';

const params = z.object({ pluginId: idOf('plugin') });

export const handler = defineHandler('unpublish-plugin-as-admin', { params }, async ({ params }) => {
  await unpublishPluginAsAdmin(params.pluginId);
});
