import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { deleteField } from '#shared/tables/fields.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'delete-field',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    await deleteField(await loadSchema(params.tableId, resource.table), params.fieldId);
  },
);
