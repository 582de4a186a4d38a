/**
 * The form of Teable's `uploadAttachment` (`multipart/form-data`: a `file` part, or a `fileUrl`
 * field), read from the request's bytes with busboy. One file at most; a part over `maxBytes` is
 * a 413; anything that is not such a form is a 400 (or a 415 for another content type).
 */
import busboy from 'busboy';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '#shared/core/errors.ts';

export interface UploadForm {
  file?: { bytes: Buffer; filename: string; mimeType: string };
  fileUrl?: string;
}

export const readUploadForm = (
  contentType: string | undefined,
  body: Buffer,
  maxBytes: number,
): Promise<UploadForm> => {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType))
    throw new UnsupportedMediaTypeError(
      'The body must be a multipart form (Content-Type: multipart/form-data)',
    );
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        // browsers and form-data write a file name's UTF-8 bytes as they are (busboy reads latin1 by default)
        defParamCharset: 'utf8',
        limits: { files: 1, fileSize: maxBytes, fields: 10 },
      });
    } catch {
      reject(new ValidationError('The body is not a multipart form'));
      return;
    }
    const form: UploadForm = {};
    let failed: Error | undefined;
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        failed ??= new PayloadTooLargeError(`The file is larger than ${maxBytes} bytes`);
      });
      stream.on('end', () => {
        if (name === 'file')
          form.file = {
            bytes: Buffer.concat(chunks),
            filename: info.filename || 'file',
            mimeType: info.mimeType || 'application/octet-stream',
          };
      });
    });
    parser.on('field', (name, value) => {
      if (name === 'fileUrl') form.fileUrl = value;
    });
    parser.on('error', () => reject(new ValidationError('The body is not a valid multipart form')));
    parser.on('close', () => (failed ? reject(failed) : resolve(form)));
    parser.end(body);
  });
};
