/**
 * Attachments (issue 29) through Teable's own client (`@teable/openapi` 1.10.0) against the local
 * server and its real S3-compatible server: `getSignature`, the bytes `PUT` to the signature's URL
 * with its `requestHeaders` (plain `fetch`, as the browser's upload manager does), `notify`, then
 * `createRecords` with the cell by token and `getRecord`; `uploadAttachment` (its `form-data` body)
 * with a file stream, a Buffer and a URL served by a loopback server of the test's own.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  uploadAttachment,
  uploadFile,
} from '@teable/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngOf, startFileServer } from '#test/support/attachments.ts';
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
  const fieldIds = Object.fromEntries(table.data.fields.map((f) => [f.name, f.id]));
  return { baseId: base.data.id, tableId: table.data.id, filesId: fieldIds.Files as string };
};

/**
 * Signature, the bytes to its URL, notify: the browser client's flow; answers both answers.
 * `baseId` undefined: signed with none, as Teable's web app and its own specs do.
 */
const upload = async (
  baseId: string | undefined,
  bytes: Uint8Array,
  contentType: string,
  filename: string,
) => {
  const signature = await getSignature({
    type: UploadType.Table,
    contentType,
    contentLength: bytes.length,
    ...(baseId ? { baseId } : {}),
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
    // signed with no base, as Teable's web app signs: its uploader's, usable in this base
    const image = await upload(undefined, png, 'image/png', 'chart.png');

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
        smThumbnailUrl: expect.any(String),
        lgThumbnailUrl: expect.any(String),
      },
    ]);
    // the same items (each answer signs its own URLs)
    const withoutUrls = (items: unknown) =>
      (items as { presignedUrl?: string; smThumbnailUrl?: string; lgThumbnailUrl?: string }[]).map(
        ({ presignedUrl: _, smThumbnailUrl: _sm, lgThumbnailUrl: _lg, ...item }) => item,
      );
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

describe("uploadAttachment through Teable's client", () => {
  const png = pngOf(6, 9);
  let files: Awaited<ReturnType<typeof startFileServer>>;
  let dir: string;
  beforeAll(async () => {
    files = await startFileServer({
      '/shared/diagram.png': { headers: { 'content-type': 'image/png' }, body: png },
    });
    dir = await mkdtemp(join(tmpdir(), 'compat-upload-'));
  });
  afterAll(async () => {
    await files.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A `Files` table with one record whose cell is empty. */
  const oneRecord = async () => {
    const t = await filesTable();
    const created = await createRecords(t.tableId, { records: [{ fields: { Name: 'R' } }] });
    return { ...t, recordId: created.data.records[0]?.id as string };
  };

  it('a file stream (form-data names it after its path and types it by extension), then a Buffer: 201, recordSchema parses, the cell grows', async () => {
    const t = await oneRecord();
    const path = join(dir, 'scan.png');
    await writeFile(path, png);
    const text = Buffer.from('a Buffer has no name');

    const first = await uploadAttachment(t.tableId, t.recordId, t.filesId, createReadStream(path));
    const second = await uploadAttachment(t.tableId, t.recordId, t.filesId, text);

    expect(first.status).toBe(201);
    expect(recordSchema.parse(first.data)).toEqual(first.data);
    expect(first.data.id).toBe(t.recordId);
    const [image] = attachmentCellValueSchema.parse(first.data.fields[t.filesId]);
    expect(image).toEqual({
      id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
      name: 'scan.png',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      path: expect.stringMatching(/^table\/[A-Za-z0-9_-]{32}$/),
      size: png.length,
      mimetype: 'image/png',
      width: 6,
      height: 9,
      presignedUrl: expect.any(String),
      smThumbnailUrl: expect.any(String),
      lgThumbnailUrl: expect.any(String),
    });
    expect(second.status).toBe(201);
    expect(recordSchema.parse(second.data)).toEqual(second.data);
    const cell = attachmentCellValueSchema.parse(second.data.fields[t.filesId]);
    // form-data sends a Buffer as an application/octet-stream part without a file name
    expect(cell).toEqual([
      {
        ...image,
        presignedUrl: expect.any(String),
        smThumbnailUrl: expect.any(String),
        lgThumbnailUrl: expect.any(String),
      },
      {
        id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
        name: 'file',
        token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
        path: expect.stringMatching(/^table\/[A-Za-z0-9_-]{32}$/),
        size: text.length,
        mimetype: 'application/octet-stream',
        presignedUrl: expect.any(String),
      },
    ]);
    expect(await bytesAt(cell[0]?.presignedUrl as string)).toEqual(png);
    expect(await bytesAt(cell[1]?.presignedUrl as string)).toEqual(new Uint8Array(text));
    const read = await getRecord(t.tableId, t.recordId, { fieldKeyType: 'id' as never });
    expect(attachmentCellValueSchema.parse(read.data.fields[t.filesId]).map((a) => a.token)).toEqual(
      cell.map((a) => a.token),
    );
  });

  it('a URL string (fileUrl) served by a loopback server: fetched, named after the path, typed from the bytes', async () => {
    const t = await oneRecord();

    const res = await uploadAttachment(t.tableId, t.recordId, t.filesId, files.url('/shared/diagram.png'));

    expect(res.status).toBe(201);
    expect(recordSchema.parse(res.data)).toEqual(res.data);
    const cell = attachmentCellValueSchema.parse(res.data.fields[t.filesId]);
    expect(cell).toEqual([
      {
        id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
        name: 'diagram.png',
        token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
        path: expect.stringMatching(/^table\/[A-Za-z0-9_-]{32}$/),
        size: png.length,
        mimetype: 'image/png',
        width: 6,
        height: 9,
        presignedUrl: expect.any(String),
        smThumbnailUrl: expect.any(String),
        lgThumbnailUrl: expect.any(String),
      },
    ]);
    expect(await bytesAt(cell[0]?.presignedUrl as string)).toEqual(png);
    expect(files.requests).toContain('/shared/diagram.png');
  });

  it('a URL of a private address is a 400 the client reports; no file at all (an empty body) is a 400 too', async () => {
    const t = await oneRecord();

    await expect(
      uploadAttachment(t.tableId, t.recordId, t.filesId, 'http://10.1.2.3/x'),
    ).rejects.toMatchObject({
      status: 400,
      code: 'validation_error',
      message: 'Invalid fileUrl: it leads to an address this service does not fetch from',
    });
    // form-data declares Content-Length 0 for a form with no part: the body arrives empty
    await expect(uploadAttachment(t.tableId, t.recordId, t.filesId)).rejects.toMatchObject({
      status: 400,
      message: 'The body is not a valid multipart form',
    });
  });
});
