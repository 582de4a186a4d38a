import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { findField } from '#shared/tables/fields.ts';
import { loadSchema } from '#shared/tables/schema.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'get-field',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => findField(await loadSchema(params.tableId, resource.table), params.fieldId),
);
