import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { removeContextMenuPlugin } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table'), pluginInstallId: idOf('pluginInstall') });

export const handler = defineHandler(
  'remove-context-menu-plugin',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params }) => {
    await removeContextMenuPlugin(params.tableId, params.pluginInstallId);
  },
);
