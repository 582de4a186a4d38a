import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { fieldFilterLinkRecords } from '#shared/listing/filter-link-records.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'list-field-filter-link-records',
  { params },
  async ({ params, schema }) => fieldFilterLinkRecords(schema, params.fieldId),
);
