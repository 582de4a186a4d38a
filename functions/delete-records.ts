import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { tableParams } from '#shared/http/table-schemas.ts';
import { listOf, queryList } from '#shared/http/validation.ts';
import { recordRights } from '#shared/records/context.ts';
import { deleteRecords } from '#shared/records/delete.ts';
import { renderRecords } from '#shared/records/read.ts';
import { loadSchema } from '#shared/tables/schema.ts';

const query = z.object({
  recordIds: z.pipe(queryList(idOf('record')), listOf(z.string(), 1, Number.MAX_SAFE_INTEGER)),
});

export const handler = defineHandler(
  'delete-records',
  { params: tableParams, query, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, query, resource, principal }) => {
    const schema = await loadSchema(params.tableId, resource.table);
    const items = await deleteRecords(schema, query.recordIds);
    return {
      records: await renderRecords(schema, items, {
        keyType: 'id',
        cellFormat: 'json',
        ...recordRights(principal, resource),
      }),
    };
  },
);
