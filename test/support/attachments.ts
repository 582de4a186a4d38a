import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call } from './invoke.ts';
import { newTable } from './workspace.ts';

/** A tiny PNG (1 × 1 pixel) and a PNG of `width` × `height` pixels, for uploads. */
export const pngOf = (width = 1, height = 1): Uint8Array => {
  // signature, IHDR with the size (the CRC is not checked by the readers used here), IEND
  const header = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'ascii');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.writeUInt8(8, 16);
  ihdr.writeUInt8(6, 17);
  const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  return new Uint8Array(Buffer.concat([header, ihdr, iend]));
};

/**
 * Signs an upload to `baseId` (undefined: to no base, as Teable's web app signs), PUTs the bytes to
 * the signature's URL (the S3-compatible server), answers the signature.
 */
export const signAndPut = async (
  auth: string,
  baseId: string | undefined,
  bytes: Uint8Array,
  contentType: string,
  declaredLength = bytes.length,
) => {
  const signature = await call('sign-attachment-upload', {
    token: auth,
    body: { contentType, contentLength: declaredLength, type: 1, ...(baseId ? { baseId } : {}) },
  });
  if (signature.status !== 201)
    throw new Error(`signature: ${signature.status} ${JSON.stringify(signature.body)}`);
  const put = await fetch(signature.body.url, {
    method: signature.body.uploadMethod,
    headers: signature.body.requestHeaders,
    body: bytes,
  });
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
  return signature.body as {
    url: string;
    uploadMethod: string;
    token: string;
    requestHeaders: Record<string, string>;
  };
};

/** Uploads a file to a base the way Teable's client does (signature, PUT, notify); answers the notify body. */
export const uploadFile = async (
  auth: string,
  baseId: string | undefined,
  bytes: Uint8Array = new TextEncoder().encode('hello, file'),
  contentType = 'text/plain',
  filename = 'hello.txt',
) => {
  const { token } = await signAndPut(auth, baseId, bytes, contentType);
  const notified = await call('notify-attachment', {
    token: auth,
    params: { token },
    query: `filename=${encodeURIComponent(filename)}`,
  });
  if (notified.status !== 201) throw new Error(`notify: ${notified.status} ${JSON.stringify(notified.body)}`);
  return notified.body as {
    token: string;
    size: number;
    url: string;
    path: string;
    mimetype: string;
    width?: number;
    height?: number;
    presignedUrl: string;
  };
};

/** A multipart form as Teable's `uploadAttachment` sends it: a `file` part, or a `fileUrl` field. */
export const uploadForm = (
  part: { file: Uint8Array; filename: string; contentType: string } | { fileUrl: string },
): { rawBody: Uint8Array; headers: Record<string, string> } => {
  const boundary = `----form${Math.random().toString(16).slice(2)}`;
  const head =
    'file' in part
      ? `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="fileUrl"\r\n\r\n${part.fileUrl}`;
  const body = Buffer.concat([
    Buffer.from(head),
    'file' in part ? Buffer.from(part.file) : Buffer.alloc(0),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return {
    rawBody: new Uint8Array(body),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
};

/** A part of a multipart form: a field, or a file. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; bytes: Uint8Array };

/** Any multipart form (several parts, both a file and a fileUrl, none): `{ rawBody, headers }` for `call()`. */
export const multipartForm = (
  parts: FormPart[],
): { rawBody: Uint8Array; headers: Record<string, string> } => {
  const boundary = `----form${Math.random().toString(16).slice(2)}`;
  const chunks = parts.flatMap((part) =>
    'value' in part
      ? [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`,
          ),
        ]
      : [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`,
          ),
          Buffer.from(part.bytes),
          Buffer.from('\r\n'),
        ],
  );
  return {
    rawBody: new Uint8Array(Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)])),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
};

/** What the file server answers on a path: a status (200), headers and a body. */
export interface Served {
  status?: number;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

/**
 * A real HTTP server on 127.0.0.1 (a free port) answering `served` by request target (path and
 * query, as sent), 404 otherwise: what a `fileUrl` names in tests. `requests` lists every target
 * asked for, in order.
 */
export const startFileServer = async (served: Record<string, Served>) => {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const target = req.url ?? '';
    requests.push(target);
    const answer = served[target] ?? { status: 404, body: 'not here' };
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.end(answer.body === undefined ? undefined : Buffer.from(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The URL of a path on this server. */
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** A table (in a fresh workspace) with a text primary field `Name` and an attachment field `Files`. */
export const filesTable = () =>
  newTable({
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'attachment', name: 'Files' },
    ],
  });
export type FilesTable = Awaited<ReturnType<typeof filesTable>>;
