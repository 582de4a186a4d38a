import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { deletePlugin } from '#shared/plugins/plugins.ts';

const params = z.object({ pluginId: idOf('plugin') });

export const handler = defineHandler('delete-plugin', { params }, async ({ principal, params }) => {
  await deletePlugin(principal, params.pluginId);
});
