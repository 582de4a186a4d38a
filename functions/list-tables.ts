import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { tableIdsInTreeOrder } from '#shared/nodes/nodes.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { toTable } from '#shared/tables/tables.ts';

const params = z.object({ baseId: idOf('base') });

// Tables in the order of the base's tree (depth first); `order` is the position in this list.
export const handler = defineHandler('list-tables', { params }, async ({ params }) => {
  const ids = await tableIdsInTreeOrder(params.baseId);
  const schemas = await Promise.all(ids.map((id) => loadSchema(id)));
  return schemas
    .filter((s) => !s.table.deletedTime)
    .map((s, order) => ({ ...toTable(s.table, s.views), order }));
});
