import { defineHandler } from '#shared/http/handler.ts';
import { defaultView } from '#shared/schema/schema.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-default-view-id',
  { params: baseTableParams },
  async ({ params, resource, schema }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    return { id: defaultView(schema).id };
  },
);
