import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { publishPlugin } from '#shared/plugins/plugins.ts';

const params = z.object({ pluginId: idOf('plugin') });

export const handler = defineHandler('publish-plugin', { params }, async ({ params }) =>
  publishPlugin(params.pluginId),
);
