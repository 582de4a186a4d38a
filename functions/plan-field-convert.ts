import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { jsonObject } from '#shared/schema/schema-requests.ts';
import { planFieldConvert } from '#shared/tables/field-plan.ts';

const params = z.object({ tableId: idOf('table'), fieldId: idOf('field') });

/** How many cells this conversion rewrites, and about how long; `skip` when none (a rename). */
export const handler = defineHandler(
  'plan-field-convert',
  { params, body: jsonObject },
  async ({ params, body, schema }) =>
    new Reply(await planFieldConvert(schema, params.fieldId, body), { status: 201 }),
);
