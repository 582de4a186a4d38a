import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { placeRecords } from '#shared/records/order.ts';
import { recordBatch } from '#shared/records/requests.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({
  anchorId: idOf('record'),
  position: z.enum(['before', 'after']),
  recordIds: recordBatch(idOf('record'), 1),
});

export const handler = defineHandler(
  'update-record-order',
  { params, body },
  async ({ params, body, schema }) => {
    await placeRecords(schema, body.recordIds, {
      viewId: params.viewId,
      anchorId: body.anchorId,
      position: body.position,
    });
  },
);
