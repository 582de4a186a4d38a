import { defineHandler } from '#shared/http/handler.ts';
import { pluginCreateBody as body } from '#shared/plugins/plugin-requests.ts';
import { createPlugin } from '#shared/plugins/plugins.ts';

export const handler = defineHandler('create-plugin', { body }, async ({ principal, body }) =>
  createPlugin(principal, body),
);
