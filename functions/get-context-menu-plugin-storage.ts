import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { getContextMenuStorage } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table'), pluginInstallId: idOf('pluginInstall') });

export const handler = defineHandler('get-context-menu-plugin-storage', { params }, async ({ params }) =>
  getContextMenuStorage(params.tableId, params.pluginInstallId),
);
