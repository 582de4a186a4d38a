import * as z from 'zod/mini';
import { confirmedAttachment, downloadLocation } from '#shared/attachments/files.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { querySingle, text } from '#shared/core/validation.ts';
import { checkAccessTo, defineHandler, Reply } from '#shared/http/handler.ts';

const params = z.object({ token: text(64) });
const query = z.object({ filename: z.optional(querySingle(text(255))) });

/** Its uploader, or whoever may read records of its base, is sent to a short-lived download URL. */
export const handler = defineHandler(
  'read-attachment',
  { params, query },
  async ({ principal, params, query }) => {
    const attachment = await confirmedAttachment(params.token);
    if (attachment.userId !== principal.userId) {
      if (!attachment.baseId) throw new NotFoundError(`Attachment ${params.token} not found`);
      await checkAccessTo(principal, { kind: 'base', id: attachment.baseId }, ['record|read']);
    }
    return new Reply(undefined, {
      status: 302,
      headers: { location: downloadLocation(attachment, query.filename) },
    });
  },
);
