import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { updateContextMenuStorage } from '#shared/plugins/context-menu.ts';
import { installStorage } from '#shared/plugins/plugin-requests.ts';

const params = z.object({ tableId: idOf('table'), pluginInstallId: idOf('pluginInstall') });
const body = z.object({ storage: z.optional(installStorage) });

export const handler = defineHandler(
  'update-context-menu-plugin-storage',
  { params, body },
  async ({ params, body }) => updateContextMenuStorage(params.tableId, params.pluginInstallId, body.storage),
);
