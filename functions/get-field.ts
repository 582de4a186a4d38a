import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { findField } from '#shared/tables/fields.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'get-field',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => findField(await loadSchema(params.tableId, resource.table), params.fieldId),
);
