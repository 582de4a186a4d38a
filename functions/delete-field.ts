import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { deleteField } from '#shared/tables/fields.ts';
import { loadSchema } from '#shared/tables/schema.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'delete-field',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    await deleteField(await loadSchema(params.tableId, resource.table), params.fieldId);
  },
);
