import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { planField } from '#shared/tables/field-plan.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

/** How many cells computing this field again writes, and about how long. */
export const handler = defineHandler('plan-field', { params }, async ({ params, schema }) =>
  planField(schema, params.fieldId),
);
