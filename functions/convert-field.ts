import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler, linkAccessOf } from '#shared/http/handler.ts';
import { jsonObject } from '#shared/schema/schema-requests.ts';
import { convertField } from '#shared/tables/fields.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

/** Changes a field's type and options; every cell is converted and dependents follow, in one write. */
export const handler = defineHandler(
  'convert-field',
  { params, body: jsonObject },
  async ({ params, body, principal, resource, schema }) =>
    convertField(principal, resource, schema, params.fieldId, body, linkAccessOf(principal)),
);
