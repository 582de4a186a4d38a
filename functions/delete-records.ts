import { defineHandler } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { deleteRecords } from '#shared/records/delete.ts';
import { renderRecords } from '#shared/records/read.ts';
import { deleteRecordIds, deleteRecordsBody, deleteRecordsQuery } from '#shared/records/record-requests.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

export const handler = defineHandler(
  'delete-records',
  {
    params: tableParams,
    query: deleteRecordsQuery,
    body: deleteRecordsBody,
  },
  async ({ query, body, principal, resource, schema }) => {
    const items = await deleteRecords(schema, deleteRecordIds(query, body));
    return {
      records: await renderRecords(schema, items, {
        keyType: 'id',
        cellFormat: 'json',
        ...recordRights(principal, resource),
      }),
    };
  },
);
