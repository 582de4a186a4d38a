import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { jsonObject } from '#shared/schema/schema-requests.ts';
import { updateField } from '#shared/tables/fields.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler(
  'update-field',
  { params, body: jsonObject },
  async ({ params, body, schema }) => updateField(schema, params.fieldId, body),
);
