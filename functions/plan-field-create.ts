import { defineHandler, Reply } from '#shared/http/handler.ts';
import { jsonObject, tableParams } from '#shared/schema/schema-requests.ts';
import { planFieldCreate } from '#shared/tables/field-plan.ts';

/** How many cells creating this field writes, and about how long (the field editor's plan). */
export const handler = defineHandler(
  'plan-field-create',
  { params: tableParams, body: jsonObject },
  async ({ body, schema }) => new Reply(await planFieldCreate(schema, body), { status: 201 }),
);
