import * as z from 'zod/mini';
import { ValidationError } from '#shared/core/errors.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { duplicateRecord } from '#shared/records/duplicate.ts';
import { renderRecords } from '#shared/records/read.ts';
import { recordParams } from '#shared/records/record-requests.ts';

const body = z.object({
  viewId: z.optional(idOf('view')),
  anchorId: z.optional(idOf('record')),
  position: z.optional(z.enum(['before', 'after'])),
});

export const handler = defineHandler(
  'duplicate-record',
  { params: recordParams, body, idempotent: true },
  async ({ params, body, principal, resource, schema }) => {
    const given = [body.viewId, body.anchorId, body.position].filter((v) => v !== undefined).length;
    if (given !== 0 && given !== 3)
      throw new ValidationError('viewId, anchorId and position go together: give all three or none');
    const order =
      body.viewId && body.anchorId && body.position
        ? { viewId: body.viewId, anchorId: body.anchorId, position: body.position }
        : undefined;
    const copy = await duplicateRecord(principal, resource, schema, params.recordId, order);
    // Rendering needs no choice list: the schema read before the write serves.
    return {
      records: await renderRecords(schema, [copy], {
        keyType: 'name',
        cellFormat: 'json',
        ...recordRights(principal, resource),
      }),
    };
  },
);
