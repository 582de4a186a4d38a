import * as z from 'zod/mini';
import { idOf, listOf, queryList } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';
import { deleteFields } from '#shared/tables/fields.ts';

const query = z.object({ fieldIds: z.pipe(queryList(idOf('field')), listOf(z.string(), 1, 500)) });

export const handler = defineHandler(
  'delete-fields',
  { params: tableParams, query },
  async ({ query, schema }) => {
    await deleteFields(schema, query.fieldIds);
  },
);
