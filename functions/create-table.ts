import * as z from 'zod/mini';
import { idOf, listOf } from '#shared/core/validation.ts';
import { defineHandler, linkAccessOf } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { renderRecords } from '#shared/records/read.ts';
import {
  dbTableNameSchema,
  fieldKeyTypeSchema,
  jsonObject,
  tableMeta,
  viewCreate,
} from '#shared/schema/schema-requests.ts';
import { createTable, MAX_CREATE_FIELDS, MAX_CREATE_VIEWS, toCreatedTable } from '#shared/tables/tables.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({
  ...tableMeta,
  dbTableName: z.optional(dbTableNameSchema),
  fieldKeyType: z.optional(fieldKeyTypeSchema),
  fields: z.optional(listOf(jsonObject, 1, MAX_CREATE_FIELDS)),
  views: z.optional(listOf(viewCreate, 1, MAX_CREATE_VIEWS)),
  records: z.optional(listOf(z.object({ fields: jsonObject }), 0, 1000)),
});

export const handler = defineHandler(
  'create-table',
  { params, body },
  async ({ principal, resource, body }) => {
    const { schema, records } = await createTable(principal, resource, body, linkAccessOf(principal));
    const rendered = await renderRecords(schema, records, {
      keyType: body.fieldKeyType ?? 'name',
      cellFormat: 'json',
      ...recordRights(principal, resource),
    });
    return toCreatedTable(schema, rendered);
  },
);
