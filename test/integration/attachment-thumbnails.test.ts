import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readAttachment } from '#shared/entities/attachments.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { headObject } from '#shared/storage/objects.ts';
import { type FilesTable, filesTable, pngOf, uploadFile, uploadForm } from '#test/support/attachments.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Thumbnails (issue 29, data-flow.md 6): a confirmed image taller than 56 pixels gets a 56-high
 * `sm` and, taller than 525, a 525-high `lg` thumbnail, made by the purge worker after notify (run
 * in this process, awaited with `drainPurges`), read back from the S3-compatible server.
 */

const jpegOf = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 30 } } })
    .jpeg()
    .toBuffer()
    .then((b) => new Uint8Array(b));

/** The attachment item of a new record holding `token`, as the record answers it. */
const cellWith = async (t: FilesTable, token: string) => {
  const created = await call('create-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    body: { records: [{ fields: { Files: [{ token }] } }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const got = await call('get-record', {
    token: t.owner.auth,
    params: { tableId: t.tableId, recordId: created.body.records[0].id },
  });
  return got.body.fields.Files[0] as Record<string, string>;
};

/** Format, width and height of the image a URL downloads. */
const imageAt = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
  return {
    format: meta.format,
    width: meta.width,
    height: meta.height,
    type: res.headers.get('content-type'),
  };
};

describe('thumbnails of uploaded images', () => {
  it('a 1200 × 900 JPEG: notify answers at once, the worker makes sm (56 high) and lg (525 high) JPEGs; the cell answers their URLs', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId, await jpegOf(1200, 900), 'image/jpeg', 'photo.jpg');
    expect(file).toMatchObject({ width: 1200, height: 900, mimetype: 'image/jpeg' });

    await drainPurges();

    expect((await readAttachment(file.token))?.thumbnails).toEqual(['sm', 'lg']);
    const item = await cellWith(t, file.token);
    expect(item.smThumbnailUrl).not.toBe(item.presignedUrl);
    expect(item.lgThumbnailUrl).not.toBe(item.presignedUrl);
    expect(await imageAt(item.smThumbnailUrl as string)).toEqual({
      format: 'jpeg',
      width: 75,
      height: 56,
      type: 'image/jpeg',
    });
    expect(await imageAt(item.lgThumbnailUrl as string)).toEqual({
      format: 'jpeg',
      width: 700,
      height: 525,
      type: 'image/jpeg',
    });
    expect(await imageAt(item.presignedUrl as string)).toMatchObject({ width: 1200, height: 900 });
    const job = await call('get-job', {
      token: t.owner.auth,
      params: { kind: 'thumbnails', resourceId: file.token },
    });
    expect(job.body).toMatchObject({ kind: 'thumbnails', resourceId: file.token, state: 'done', runs: 1 });
  });

  it('an image 300 high gets only sm; lg answers the image itself; a PNG thumbnail stays a PNG', async () => {
    const t = await filesTable();
    const png = new Uint8Array(
      await sharp({ create: { width: 400, height: 300, channels: 4, background: '#00ff0080' } })
        .png()
        .toBuffer(),
    );
    const file = await uploadFile(t.owner.auth, t.baseId, png, 'image/png', 'clear.png');
    await drainPurges();

    expect((await readAttachment(file.token))?.thumbnails).toEqual(['sm']);
    const item = await cellWith(t, file.token);
    expect(item.lgThumbnailUrl).toBe(item.presignedUrl);
    expect(await imageAt(item.smThumbnailUrl as string)).toMatchObject({
      format: 'png',
      height: 56,
      type: 'image/png',
    });
    expect(await headObject(`${file.path}_lg`)).toBeUndefined();
  });

  it('uploadAttachment starts thumbnails too', async () => {
    const t = await filesTable();
    const created = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'R' } }] },
    });
    const recordId = created.body.records[0].id as string;
    const filesId = (t.table.fields as { id: string; name: string }[]).find((f) => f.name === 'Files')
      ?.id as string;
    const res = await call('upload-record-attachment', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId, fieldId: filesId },
      ...uploadForm({ file: await jpegOf(160, 120), filename: 'small.jpg', contentType: 'image/jpeg' }),
    });
    expect(res.status).toBe(201);
    await drainPurges();

    const token = res.body.fields[filesId][0].token as string;
    expect((await readAttachment(token))?.thumbnails).toEqual(['sm']);
    const got = await call('get-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId } });
    const item = got.body.fields.Files[0];
    expect(await imageAt(item.smThumbnailUrl)).toMatchObject({ format: 'jpeg', width: 75, height: 56 });
  });

  it('an image that cannot be decoded (a PNG header without pixels) gets none: the job is done, the URLs are the file', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId, pngOf(200, 100), 'image/png', 'broken.png');
    await drainPurges();

    expect((await readAttachment(file.token))?.thumbnails).toEqual([]);
    const item = await cellWith(t, file.token);
    expect(item.smThumbnailUrl).toBe(item.presignedUrl);
    expect(item.lgThumbnailUrl).toBe(item.presignedUrl);
    const job = await call('get-job', {
      token: t.owner.auth,
      params: { kind: 'thumbnails', resourceId: file.token },
    });
    expect(job.body.state).toBe('done');
  });

  it('a text file gets no thumbnail job and no thumbnail URLs', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId);
    await drainPurges();

    const job = await call('get-job', {
      token: t.owner.auth,
      params: { kind: 'thumbnails', resourceId: file.token },
    });
    expect(job.status).toBe(404);
    const item = await cellWith(t, file.token);
    expect(item).not.toHaveProperty('smThumbnailUrl');
    expect(item).not.toHaveProperty('lgThumbnailUrl');
  });

  it("another user cannot read the job of someone's upload", async () => {
    const t = await filesTable();
    const other = await newTable();
    const file = await uploadFile(t.owner.auth, t.baseId, await jpegOf(100, 100), 'image/jpeg', 'a.jpg');
    await drainPurges();
    const job = await call('get-job', {
      token: other.owner.auth,
      params: { kind: 'thumbnails', resourceId: file.token },
    });
    expect(job.status).toBe(404);
  });
});
