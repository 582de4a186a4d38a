/**
 * Attachments (issue 29) through Teable's own client (`@teable/openapi` 1.10.0) against the local
 * server and its real S3-compatible server: `getSignature`, the bytes `PUT` to the signature's URL
 * with its `requestHeaders` (plain `fetch`, as the browser's upload manager does), `notify`, then
 * `createRecords` with the cell by token and `getRecord`. `uploadAttachment` (multipart) is not built.
 */
import { attachmentCellValueSchema, recordSchema } from '@teable/core';
import {
  configApi,
  createBase,
  createRecords,
  createSpace,
  createTable,
  getRecord,
  getSignature,
  notify,
  notifyVoSchema,
  signatureVoSchema,
  UploadType,
  uploadFile,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { pngOf } from '#test/support/attachments.ts';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();
let auth: string;

beforeAll(async () => {
  const user = await newUser({ name: 'Compat attachments' });
  auth = user.auth;
  configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
});

/** A base of a new space and a table with a text primary field and an attachment field `Files`. */
const filesTable = async () => {
  const space = await createSpace({ name: 'Files' });
  const base = await createBase({ spaceId: space.data.id });
  const table = await createTable(base.data.id, {
    fields: [
      { name: 'Name', type: 'singleLineText' as never },
      { name: 'Files', type: 'attachment' as never },
    ],
    records: [],
  });
  return { baseId: base.data.id, tableId: table.data.id };
};

/** Signature, the bytes to its URL, notify: the browser client's flow; answers both answers. */
const upload = async (baseId: string, bytes: Uint8Array, contentType: string, filename: string) => {
  const signature = await getSignature({
    type: UploadType.Table,
    contentType,
    contentLength: bytes.length,
    baseId,
  });
  const put = await fetch(signature.data.url, {
    method: signature.data.uploadMethod,
    headers: signature.data.requestHeaders as Record<string, string>,
    body: bytes,
  });
  expect(put.status).toBe(200);
  const notified = await notify(signature.data.token, undefined, filename);
  return { signature, notified };
};

const bytesAt = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());

describe("attachments through Teable's client", () => {
  it('getSignature, PUT to its url, notify: the answers parse with signatureVoSchema and notifyVoSchema', async () => {
    const { baseId } = await filesTable();
    const png = pngOf(32, 16);

    const { signature, notified } = await upload(baseId, png, 'image/png', 'logo.png');

    expect(signature.status).toBe(201);
    expect(signatureVoSchema.parse(signature.data)).toEqual(signature.data);
    expect(signature.data).toMatchObject({
      uploadMethod: 'PUT',
      requestHeaders: { 'Content-Type': 'image/png' },
    });
    expect(notified.status).toBe(201);
    expect(notifyVoSchema.parse(notified.data)).toEqual(notified.data);
    expect(notified.data).toMatchObject({
      token: signature.data.token,
      size: png.length,
      mimetype: 'image/png',
      width: 32,
      height: 16,
    });
    expect(await bytesAt(notified.data.presignedUrl)).toEqual(png);
  });

  it('createRecords with the cell by token and getRecord answer what recordSchema takes; the URL downloads the same bytes', async () => {
    const { baseId, tableId } = await filesTable();
    const bytes = new TextEncoder().encode('quarterly figures');
    const png = pngOf(9, 4);
    const text = await upload(baseId, bytes, 'text/plain', 'figures.txt');
    const image = await upload(baseId, png, 'image/png', 'chart.png');

    const created = await createRecords(tableId, {
      fieldKeyType: 'name' as never,
      records: [
        {
          fields: {
            Files: [
              // by token alone, and as the browser builds an item: its own id and the notify answer
              { name: 'figures.txt', token: text.notified.data.token },
              { id: 'actBrowserMadeId001', name: 'chart.png', ...image.notified.data },
            ],
          },
        },
      ],
    });
    const recordId = created.data.records[0]?.id as string;
    const read = await getRecord(tableId, recordId, { fieldKeyType: 'name' as never });

    expect(recordSchema.parse(read.data)).toEqual(read.data);
    const cell = attachmentCellValueSchema.parse(read.data.fields.Files);
    expect(cell).toEqual([
      {
        id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
        name: 'figures.txt',
        token: text.notified.data.token,
        path: text.notified.data.path,
        size: bytes.length,
        mimetype: 'text/plain',
        presignedUrl: expect.any(String),
      },
      {
        id: 'actBrowserMadeId001',
        name: 'chart.png',
        token: image.notified.data.token,
        path: image.notified.data.path,
        size: png.length,
        mimetype: 'image/png',
        width: 9,
        height: 4,
        presignedUrl: expect.any(String),
      },
    ]);
    // the same items (each answer signs its own URLs)
    const withoutUrls = (items: unknown) =>
      (items as { presignedUrl?: string }[]).map(({ presignedUrl: _, ...item }) => item);
    expect(withoutUrls(created.data.records[0]?.fields.Files)).toEqual(withoutUrls(cell));
    expect(await bytesAt(cell[0]?.presignedUrl as string)).toEqual(bytes);
    expect(await bytesAt(cell[1]?.presignedUrl as string)).toEqual(png);
  });

  it('GET /attachments/{token} redirects to the same bytes', async () => {
    const { baseId } = await filesTable();
    const png = pngOf(5, 5);
    const { signature } = await upload(baseId, png, 'image/png', 'five.png');

    const res = await fetch(`${api.base}/attachments/${signature.data.token}`, {
      headers: { authorization: auth },
      redirect: 'manual',
    });

    expect(res.status).toBe(302);
    expect(await bytesAt(res.headers.get('location') as string)).toEqual(png);
  });

  it('uploadFile (the bytes through the API, PUT /attachments/upload/{token}) then notify', async () => {
    const { baseId } = await filesTable();
    const bytes = Buffer.from('small enough for the API');
    const signature = await getSignature({
      type: UploadType.Table,
      contentType: 'text/plain',
      contentLength: bytes.length,
      baseId,
    });

    const put = await uploadFile(signature.data.token, bytes, signature.data.requestHeaders);
    const notified = await notify(signature.data.token, undefined, 'small.txt');

    expect(put.status).toBe(201);
    expect(notifyVoSchema.parse(notified.data)).toMatchObject({ size: bytes.length, mimetype: 'text/plain' });
    expect(await bytesAt(notified.data.presignedUrl)).toEqual(new Uint8Array(bytes));
  });

  it('a declared length over the limit is a 413 the client reports', async () => {
    const { baseId } = await filesTable();

    await expect(
      getSignature({ type: UploadType.Table, contentType: 'video/mp4', contentLength: 2 ** 40, baseId }),
    ).rejects.toMatchObject({ status: 413, code: 'payload_too_large' });
  });
});
