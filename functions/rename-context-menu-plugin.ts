import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { renameContextMenuPlugin } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table'), pluginInstallId: idOf('pluginInstall') });
const body = z.object({ name: displayName });

export const handler = defineHandler(
  'rename-context-menu-plugin',
  { params, body },
  async ({ params, body }) => {
    await renameContextMenuPlugin(params.tableId, params.pluginInstallId, body.name);
  },
);
