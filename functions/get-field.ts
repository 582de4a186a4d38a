import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { findField } from '#shared/tables/fields.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

export const handler = defineHandler('get-field', { params }, async ({ params, schema }) =>
  findField(schema, params.fieldId),
);
