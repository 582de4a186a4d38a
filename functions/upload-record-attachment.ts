import * as z from 'zod/mini';
import { fetchFile } from '#shared/attachments/fetch-url.ts';
import { storeReceivedFile } from '#shared/attachments/files.ts';
import { readUploadForm } from '#shared/attachments/multipart.ts';
import { config } from '#shared/config.ts';
import { NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { idOf } from '#shared/core/validation.ts';
import { recordIn, recordLookup } from '#shared/entities/records.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { renderRecords } from '#shared/records/read.ts';
import { updateRecords } from '#shared/records/update.ts';

const params = z.object({ tableId: idOf('table'), recordId: idOf('record'), fieldId: idOf('field') });

/**
 * Teable's `uploadAttachment`: a file from a multipart form (`file`) or fetched from `fileUrl`,
 * stored as a confirmed upload of the table's base and appended to the record's attachment cell;
 * answers the record (field ids as keys, as Teable does).
 */
export const handler = defineHandler(
  'upload-record-attachment',
  { params, preload: (_, { params }) => (params ? [recordLookup(params.tableId, params.recordId)] : []) },
  async ({ params, principal, resource, schema, headers, rawBody, loaded }) => {
    const field = schema.fields.find((f) => f.id === params.fieldId);
    if (!field) throw new NotFoundError(`Field ${params.fieldId} not found`);
    if (field.type !== 'attachment' || field.isLookup || field.isComputed)
      throw new ValidationError(`Field ${params.fieldId} is not an attachment field`);
    const current = recordIn(loaded, params.tableId, params.recordId);
    if (!current) throw new NotFoundError(`Record ${params.recordId} not found`);
    const form = await readUploadForm(headers['content-type'], rawBody(), config.attachmentMaxBytes);
    if (!form.file === !form.fileUrl)
      throw new ValidationError('Send either a file (the form part "file") or a fileUrl, and only one');
    const file =
      form.file ??
      (await fetchFile(form.fileUrl as string, {
        deployed: config.stage !== 'local',
        maxBytes: config.attachmentMaxBytes,
      }));
    const token = await storeReceivedFile(principal.userId, schema.table.baseId, file);
    const before = Array.isArray(current[field.id])
      ? (current[field.id] as { id: string; name: string; token: string }[])
      : [];
    const [item] = await updateRecords(principal, resource, schema, {
      records: [
        {
          id: params.recordId,
          fields: {
            [field.id]: [
              ...before.map((a) => ({ id: a.id, name: a.name, token: a.token })),
              { token, name: file.filename },
            ],
          },
        },
      ],
      fieldKeyType: 'id',
      typecast: false,
      current: [current],
    });
    const [record] = await renderRecords(schema, item ? [item] : [], {
      keyType: 'id',
      cellFormat: 'json',
      ...recordRights(principal, resource),
    });
    return record;
  },
);
