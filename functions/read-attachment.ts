import * as z from 'zod/mini';
import { confirmedAttachment, downloadLocation } from '#shared/attachments/files.ts';
import { ForbiddenError, NotFoundError } from '#shared/core/errors.ts';
import { querySingle, text } from '#shared/core/validation.ts';
import { checkAccessTo, defineHandler, Reply } from '#shared/http/handler.ts';

const params = z.object({ token: text(64) });
const query = z.object({ filename: z.optional(querySingle(text(255))) });

/** Its uploader, or whoever may read records of its base, is sent to a short-lived download URL; anyone else gets a 404. */
export const handler = defineHandler(
  'read-attachment',
  { params, query },
  async ({ principal, params, query }) => {
    const attachment = await confirmedAttachment(params.token);
    if (attachment.userId !== principal.userId) {
      // whoever may not read the base learns nothing of the file, not even which base holds it
      const gone = () => new NotFoundError(`Attachment ${params.token} not found`);
      if (!attachment.baseId) throw gone();
      await checkAccessTo(principal, { kind: 'base', id: attachment.baseId }, ['record|read']).catch(
        (error: unknown) => {
          throw error instanceof ForbiddenError || error instanceof NotFoundError ? gone() : error;
        },
      );
    }
    return new Reply(undefined, {
      status: 302,
      headers: { location: downloadLocation(attachment, query.filename) },
    });
  },
);
