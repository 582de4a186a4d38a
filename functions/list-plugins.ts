import { defineHandler } from '#shared/http/handler.ts';
import { listPlugins } from '#shared/plugins/plugins.ts';

export const handler = defineHandler('list-plugins', {}, async ({ principal }) => listPlugins(principal));
