import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { manualSortView } from '#shared/listing/manual-sort.ts';
import { viewSortItems } from '#shared/schema/schema-requests.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({ sortObjs: viewSortItems });

export const handler = defineHandler(
  'apply-view-manual-sort',
  { params, body },
  async ({ params, body, principal, schema }) => {
    await manualSortView({ schema, userId: principal.userId }, params.viewId, body.sortObjs);
  },
);
