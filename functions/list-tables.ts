import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { loadSchema } from '#shared/tables/schema.ts';
import { listTables, toTable } from '#shared/tables/tables.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler(
  'list-tables',
  { params, resource: { kind: 'base', param: 'baseId' } },
  async ({ params }) => {
    const ids = await listTables(params.baseId);
    const schemas = await Promise.all(ids.map((id) => loadSchema(id)));
    return schemas.filter((s) => !s.table.deletedTime).map((s) => toTable(s.table, s.views));
  },
);
