import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listContextMenu } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table') });

export const handler = defineHandler('list-context-menu-plugins', { params }, async ({ params }) =>
  listContextMenu(params.tableId),
);
