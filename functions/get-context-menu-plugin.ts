import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { getContextMenuPlugin } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table'), pluginInstallId: idOf('pluginInstall') });

export const handler = defineHandler('get-context-menu-plugin', { params }, async ({ params }) =>
  getContextMenuPlugin(params.tableId, params.pluginInstallId),
);
