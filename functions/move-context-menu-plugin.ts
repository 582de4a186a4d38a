import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { moveContextMenuPlugin } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table'), pluginInstallId: idOf('pluginInstall') });
const body = z.object({ anchorId: idOf('pluginInstall'), position: z.enum(['before', 'after']) });

export const handler = defineHandler(
  'move-context-menu-plugin',
  { params, body },
  async ({ params, body }) => {
    await moveContextMenuPlugin({
      tableId: params.tableId,
      pluginInstallId: params.pluginInstallId,
      ...body,
    });
  },
);
