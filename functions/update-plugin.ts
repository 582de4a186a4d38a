import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { pluginUpdateBody as body } from '#shared/plugins/plugin-requests.ts';
import { updatePlugin } from '#shared/plugins/plugins.ts';

const params = z.object({ pluginId: idOf('plugin') });

export const handler = defineHandler('update-plugin', { params, body }, async ({ principal, params, body }) =>
  updatePlugin(principal, params.pluginId, body),
);
