import { defineHandler } from '#shared/http/handler.ts';
import { createPlugin } from '#shared/plugins/plugins.ts';
import { pluginCreateBody as body } from '#shared/plugins/schemas.ts';

export const handler = defineHandler('create-plugin', { body }, async ({ principal, body }) =>
  createPlugin(principal, body),
);
