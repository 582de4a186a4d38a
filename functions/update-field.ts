import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { jsonObject } from '#shared/http/table-schemas.ts';
import { updateField } from '#shared/tables/fields.ts';
import { loadSchema } from '#shared/tables/schema.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'update-field',
  { params, body: jsonObject, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body }) =>
    updateField(await loadSchema(params.tableId, resource.table), params.fieldId, body),
);
