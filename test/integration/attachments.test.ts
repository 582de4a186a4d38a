/**
 * Attachments (issue 29, data-flow.md 6): Teable's upload flow — signature, the bytes to the
 * presigned URL (the real local S3-compatible server) or through `PUT /attachments/upload/{token}`,
 * notify, read — and attachment cells naming the uploads; every bad input of item 5 that is built.
 */
import { describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';
import { readAttachment } from '#shared/entities/attachments.ts';
import { headObject } from '#shared/storage/objects.ts';
import { error, forbidden, invalid, notFound } from '#test/support/answers.ts';
import { pngOf, signAndPut, uploadFile } from '#test/support/attachments.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { newMember, newTable, newWorkspace } from '#test/support/workspace.ts';

type Caller = Awaited<ReturnType<typeof newUser>>;

const bytesOf = (text: string) => new TextEncoder().encode(text);
const HTML = bytesOf('<!doctype html><html><body>not a picture</body></html>');

const sign = (caller: Caller, body: Record<string, unknown>) =>
  call('sign-attachment-upload', { token: caller.auth, body });

const notify = (caller: Caller, token: string, query = '') =>
  call('notify-attachment', { token: caller.auth, params: { token }, query });

const read = (caller: Caller, token: string, query = '') =>
  call('read-attachment', { token: caller.auth, params: { token }, query });

const putThroughApi = (caller: Caller, token: string, bytes: Uint8Array, contentType: string) =>
  call('upload-attachment-file', {
    token: caller.auth,
    params: { token },
    rawBody: bytes,
    headers: { 'content-type': contentType },
  });

/** The bytes a URL downloads. */
const download = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
};

/** The object key of a token (as its signature recorded it). */
const pathOf = async (token: string) => {
  const stored = await readAttachment(token);
  if (!stored) throw new Error(`no attachment ${token}`);
  return stored.path;
};

/** A table (in a fresh workspace) with a text primary field and an attachment field `Files`. */
const filesTable = () =>
  newTable({
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'attachment', name: 'Files' },
    ],
  });
type FilesTable = Awaited<ReturnType<typeof filesTable>>;

/** Creates one record whose `Files` cell names `token`. */
const createWithFile = (t: FilesTable, token: string) =>
  call('create-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    body: { records: [{ fields: { Files: [{ token }] } }] },
  });

/** The 400 of a cell naming `token` when it is no confirmed upload of the table's base. */
const noFile = (t: FilesTable, token: string) => {
  const field = (t.table.fields as { id: string; name: string }[]).find((f) => f.name === 'Files');
  return invalid(
    `Field "Files" (${field?.id}): item 0: no uploaded file ${token} in this base (upload it first: POST /attachments/signature, then notify)`,
  );
};

/** The 413 of a file of `size` bytes. */
const tooLarge = (size: number) =>
  error(
    413,
    'payload_too_large',
    `The file is ${size} bytes; the limit is ${config.attachmentMaxBytes} bytes (${Math.floor(config.attachmentMaxBytes / 1048576)} MB)`,
  );

const TOKEN = /^[A-Za-z0-9_-]{32}$/;
/** A presigned PUT of `table/<token>` on the local server, valid an hour (the default). */
const UPLOAD_URL =
  /^http:\/\/127\.0\.0\.1:\d+\/attachments\/table\/[A-Za-z0-9_-]{32}\?.*X-Amz-Expires=3600&.*X-Amz-Signature=[0-9a-f]{64}&.*x-id=PutObject$/;
/** A presigned GET of `table/<token>`, valid 15 minutes. */
const DOWNLOAD_URL =
  /^http:\/\/127\.0\.0\.1:\d+\/attachments\/table\/[A-Za-z0-9_-]{32}\?.*X-Amz-Expires=900&.*X-Amz-Signature=[0-9a-f]{64}&.*x-id=GetObject$/;

describe('POST /attachments/signature', () => {
  it('answers a token, a presigned PUT URL and the headers to send, as Teable does', async () => {
    const ws = await newWorkspace();

    const res = await sign(ws.owner, {
      contentType: 'image/png',
      contentLength: 123,
      type: 1,
      baseId: ws.baseId,
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      url: expect.stringMatching(UPLOAD_URL),
      uploadMethod: 'PUT',
      token: expect.stringMatching(TOKEN),
      requestHeaders: { 'Content-Type': 'image/png' },
    });
    expect(res.body.url).toContain(res.body.token);
  });

  it(`refuses a declared length over ATTACHMENT_MAX_BYTES (${config.attachmentMaxBytes}) with a 413, and accepts it exactly`, async () => {
    const ws = await newWorkspace();
    const over = config.attachmentMaxBytes + 1;

    const refused = await sign(ws.owner, {
      contentType: 'video/mp4',
      contentLength: over,
      type: 1,
      baseId: ws.baseId,
    });
    const atLimit = await sign(ws.owner, {
      contentType: 'video/mp4',
      contentLength: config.attachmentMaxBytes,
      type: 1,
      baseId: ws.baseId,
    });

    expect(refused).toMatchObject(tooLarge(over));
    expect(atLimit.status).toBe(201);
  });

  it('refuses an empty file (contentLength 0)', async () => {
    const ws = await newWorkspace();

    const res = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: 0,
      type: 1,
      baseId: ws.baseId,
    });

    expect(res).toMatchObject(invalid('Invalid body.contentLength: the file is empty'));
  });

  /** A good body but for one thing, for a base `baseId`. */
  const good = (baseId: string) => ({ contentType: 'text/plain', contentLength: 5, type: 1, baseId });
  it.each<[string, (baseId: string) => Record<string, unknown>, RegExp]>([
    ['no baseId', (b) => ({ ...good(b), baseId: undefined }), /^Invalid body\.baseId: /],
    [
      'a table id as baseId',
      (b) => ({ ...good(b), baseId: `tbl${b.slice(3)}` }),
      /^Invalid body\.baseId: must be an id starting with bse/,
    ],
    ['type 0', (b) => ({ ...good(b), type: 0 }), /^Invalid body\.type: /],
    ['type 15', (b) => ({ ...good(b), type: 15 }), /^Invalid body\.type: /],
    ['type 1.5', (b) => ({ ...good(b), type: 1.5 }), /^Invalid body\.type: /],
    ['no contentType', (b) => ({ ...good(b), contentType: undefined }), /^Invalid body\.contentType: /],
    ['contentLength -1', (b) => ({ ...good(b), contentLength: -1 }), /^Invalid body\.contentLength: /],
    ['contentLength as text', (b) => ({ ...good(b), contentLength: '5' }), /^Invalid body\.contentLength: /],
    ['expiresIn 0', (b) => ({ ...good(b), expiresIn: 0 }), /^Invalid body\.expiresIn: /],
    ['expiresIn over a day', (b) => ({ ...good(b), expiresIn: 86_401 }), /^Invalid body\.expiresIn: /],
  ])('refuses a body with %s (400)', async (_, body, message) => {
    const ws = await newWorkspace();

    const res = await sign(ws.owner, body(ws.baseId));

    expect(res).toMatchObject(invalid(message));
  });

  it("takes an empty contentType (a browser's File.type for a type it does not know): the bytes tell", async () => {
    const ws = await newWorkspace();
    const png = pngOf(2, 5);

    const image = await signAndPut(ws.owner.auth, ws.baseId, png, '');
    const other = await signAndPut(ws.owner.auth, ws.baseId, bytesOf('plain words'), '');

    expect(image.requestHeaders).toEqual({ 'Content-Type': '' });
    expect((await notify(ws.owner, image.token)).body).toMatchObject({
      mimetype: 'image/png',
      size: png.length,
      width: 2,
      height: 5,
    });
    expect((await notify(ws.owner, other.token)).body).toMatchObject({
      mimetype: 'application/octet-stream',
      size: 11,
    });
  });

  it('refuses a base the caller is not a member of (403) and an unknown base (404)', async () => {
    const ws = await newWorkspace();
    const stranger = await newUser();
    const body = { contentType: 'text/plain', contentLength: 5, type: 1 };

    const foreign = await sign(stranger, { ...body, baseId: ws.baseId });
    const unknown = await sign(ws.owner, { ...body, baseId: 'bseAAAAAAAAAAAAAAAA' });

    expect(foreign).toMatchObject(forbidden(`not a collaborator of the space that holds ${ws.baseId}`));
    expect(unknown).toMatchObject(notFound('Base bseAAAAAAAAAAAAAAAA not found'));
  });
});

describe('the upload: to the presigned URL or through PUT /attachments/upload/{token}', () => {
  it('takes the bytes through the API (201, no body); notify then confirms them', async () => {
    const ws = await newWorkspace();
    const bytes = bytesOf('through the API');
    const { body: signature } = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: bytes.length,
      type: 1,
      baseId: ws.baseId,
    });

    const put = await putThroughApi(ws.owner, signature.token, bytes, 'text/plain');
    const notified = await notify(ws.owner, signature.token, 'filename=api.txt');

    expect(put).toMatchObject({ status: 201, body: undefined });
    expect(notified.status).toBe(201);
    expect(notified.body).toMatchObject({
      token: signature.token,
      size: bytes.length,
      mimetype: 'text/plain',
    });
    expect(await download(notified.body.presignedUrl)).toEqual(bytes);
  });

  it('refuses an empty body through the API (400) and bytes for a confirmed upload (400)', async () => {
    const ws = await newWorkspace();
    const file = await uploadFile(ws.owner.auth, ws.baseId);
    const { body: pending } = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: 5,
      type: 1,
      baseId: ws.baseId,
    });

    const empty = await putThroughApi(ws.owner, pending.token, new Uint8Array(), 'text/plain');
    const again = await putThroughApi(ws.owner, file.token, bytesOf('other'), 'text/plain');

    expect(empty).toMatchObject(invalid('The file is empty'));
    expect(again).toMatchObject(invalid(`Upload ${file.token} is already confirmed`));
    expect(await download(file.presignedUrl)).toEqual(bytesOf('hello, file'));
  });

  it('an expired presigned URL is refused by the S3-compatible server; notify then finds nothing', async () => {
    const ws = await newWorkspace();
    const bytes = bytesOf('too late');
    const { body: signature } = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: bytes.length,
      type: 1,
      baseId: ws.baseId,
      expiresIn: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 2100));

    const put = await fetch(signature.url, { method: 'PUT', headers: signature.requestHeaders, body: bytes });
    const notified = await notify(ws.owner, signature.token);

    expect(put.status).toBe(403);
    expect(await put.text()).toContain('<Code>AccessDenied</Code>');
    expect(notified).toMatchObject(
      invalid(`Nothing was uploaded for ${signature.token}: upload the file to the signature's url first`),
    );
  });
});

describe('POST /attachments/notify/{token}', () => {
  it("answers the upload's facts (Teable's notify shape), taking filename; a PNG gets its width and height", async () => {
    const ws = await newWorkspace();
    const png = pngOf(640, 480);
    const { token } = await signAndPut(ws.owner.auth, ws.baseId, png, 'image/png');

    const res = await notify(ws.owner, token, 'filename=photo.png');

    expect(res.status).toBe(201);
    const path = await pathOf(token);
    expect(res.body).toEqual({
      token,
      size: png.length,
      url: `/${config.attachmentsBucket}/${path}`,
      path,
      mimetype: 'image/png',
      width: 640,
      height: 480,
      presignedUrl: expect.stringMatching(DOWNLOAD_URL),
    });
    expect(await download(res.body.presignedUrl)).toEqual(png);
  });

  it('answers the same when notified twice', async () => {
    const ws = await newWorkspace();
    const { token } = await signAndPut(ws.owner.auth, ws.baseId, pngOf(3, 3), 'image/png');

    const first = await notify(ws.owner, token, 'filename=a.png');
    const second = await notify(ws.owner, token, 'filename=a.png');

    expect(second.status).toBe(201);
    expect({ ...second.body, presignedUrl: '' }).toEqual({ ...first.body, presignedUrl: '' });
    expect(await download(second.body.presignedUrl)).toEqual(pngOf(3, 3));
  });

  it('refuses a notify before anything was uploaded (400); the token stays unusable', async () => {
    const t = await filesTable();
    const { body: signature } = await sign(t.owner, {
      contentType: 'text/plain',
      contentLength: 5,
      type: 1,
      baseId: t.baseId,
    });

    const res = await notify(t.owner, signature.token);

    expect(res).toMatchObject(
      invalid(`Nothing was uploaded for ${signature.token}: upload the file to the signature's url first`),
    );
    expect(await createWithFile(t, signature.token)).toMatchObject(noFile(t, signature.token));
  });

  it.each([
    [
      'an HTML page declared image/png',
      HTML,
      'image/png',
      'The uploaded bytes are text or an unknown format, not the declared image/png',
    ],
    [
      'a PNG declared text/plain',
      pngOf(),
      'text/plain',
      'The uploaded bytes are image/png, not the declared text/plain',
    ],
    [
      'a PNG declared application/pdf',
      pngOf(),
      'application/pdf',
      'The uploaded bytes are image/png, not the declared application/pdf',
    ],
  ])(
    'refuses %s (400), removes the object and keeps the token unusable',
    async (_, bytes, declared, message) => {
      const t = await filesTable();
      const { token } = await signAndPut(t.owner.auth, t.baseId, bytes, declared);
      const path = await pathOf(token);
      expect(await headObject(path)).toEqual({ size: bytes.length, contentType: declared });

      const res = await notify(t.owner, token);

      expect(res).toMatchObject(invalid(message));
      expect(await headObject(path)).toBeUndefined();
      expect((await readAttachment(token))?.state).toBe('pending');
      expect(await notify(t.owner, token)).toMatchObject(invalid(/^Nothing was uploaded for /));
      expect(await createWithFile(t, token)).toMatchObject(noFile(t, token));
    },
  );

  it('takes the size the bucket holds, not the declared one (the presigned URL signs the length for S3)', async () => {
    const ws = await newWorkspace();
    const bytes = bytesOf('longer than declared');
    const { token } = await signAndPut(ws.owner.auth, ws.baseId, bytes, 'text/plain', 5);

    const res = await notify(ws.owner, token);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ size: bytes.length, mimetype: 'text/plain' });
  });

  it('refuses an empty object put to the presigned URL (400) and removes it', async () => {
    const ws = await newWorkspace();
    const { body: signature } = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: 5,
      type: 1,
      baseId: ws.baseId,
    });
    const put = await fetch(signature.url, { method: 'PUT', headers: signature.requestHeaders, body: '' });
    expect(put.status).toBe(200);
    const path = await pathOf(signature.token);
    expect(await headObject(path)).toMatchObject({ size: 0 });

    const res = await notify(ws.owner, signature.token);

    expect(res).toMatchObject(invalid('The uploaded file is empty'));
    expect(await headObject(path)).toBeUndefined();
  });

  it(`refuses an object over ATTACHMENT_MAX_BYTES at notify (413, the real size) and removes it`, async () => {
    const ws = await newWorkspace();
    // the signature allows the limit; the S3-compatible server does not check the signed length
    const bytes = new Uint8Array(config.attachmentMaxBytes + 1);
    const { token } = await signAndPut(
      ws.owner.auth,
      ws.baseId,
      bytes,
      'application/octet-stream',
      config.attachmentMaxBytes,
    );
    const path = await pathOf(token);

    const res = await notify(ws.owner, token);

    expect(res).toMatchObject(tooLarge(bytes.length));
    expect(await headObject(path)).toBeUndefined();
  });
});

describe('tokens of another user', () => {
  it('upload and notify of a token someone else signed answer 404, as an unknown token does; nothing changes', async () => {
    const ws = await newWorkspace();
    const editor = await newMember(ws, 'editor');
    const stranger = await newUser();
    const pending = await signAndPut(ws.owner.auth, ws.baseId, bytesOf('mine'), 'text/plain');
    const unknown = 'u'.repeat(32);

    for (const caller of [editor, stranger]) {
      const upload = await putThroughApi(caller, pending.token, bytesOf('theirs'), 'text/plain');
      const notified = await notify(caller, pending.token);
      expect(upload).toMatchObject(notFound(`Upload ${pending.token} not found`));
      expect(notified).toMatchObject(notFound(`Upload ${pending.token} not found`));
    }
    expect(await notify(ws.owner, unknown)).toMatchObject(notFound(`Upload ${unknown} not found`));
    expect(await putThroughApi(ws.owner, unknown, bytesOf('x'), 'text/plain')).toMatchObject(
      notFound(`Upload ${unknown} not found`),
    );
    expect((await readAttachment(pending.token))?.state).toBe('pending');
    expect((await notify(ws.owner, pending.token)).body).toMatchObject({ size: 4, mimetype: 'text/plain' });
  });

  it("another space's user cannot put a token in a cell of their own base (400)", async () => {
    const mine = await newWorkspace();
    const theirs = await filesTable();
    const file = await uploadFile(mine.owner.auth, mine.baseId);

    expect(await createWithFile(theirs, file.token)).toMatchObject(noFile(theirs, file.token));
  });
});

describe('GET /attachments/{token}', () => {
  it('sends the uploader and a viewer of the base (302) to a short-lived URL of the same bytes', async () => {
    const ws = await newWorkspace();
    const viewer = await newMember(ws, 'viewer');
    const png = pngOf(7, 2);
    const file = await uploadFile(ws.owner.auth, ws.baseId, png, 'image/png', 'seven.png');

    for (const caller of [ws.owner, viewer]) {
      const res = await read(caller, file.token);
      expect(res.status).toBe(302);
      expect(res.headers.location).toMatch(DOWNLOAD_URL);
      expect(await download(res.headers.location as string)).toEqual(png);
    }
  });

  it('names the download after ?filename, or the name given at notify', async () => {
    const ws = await newWorkspace();
    const file = await uploadFile(ws.owner.auth, ws.baseId, bytesOf('abc'), 'text/plain', 'given.txt');

    const named = await fetch((await read(ws.owner, file.token)).headers.location as string);
    const renamed = await fetch(
      (await read(ws.owner, file.token, 'filename=other.txt')).headers.location as string,
    );

    expect(named.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''given.txt");
    expect(renamed.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''other.txt");
  });

  it('answers 404 to a user of another space (who learns nothing of the file), an upload not yet notified and an unknown token', async () => {
    const ws = await newWorkspace();
    const stranger = await newUser();
    const file = await uploadFile(ws.owner.auth, ws.baseId);
    const pending = await signAndPut(ws.owner.auth, ws.baseId, bytesOf('wait'), 'text/plain');

    // the base is checked as for any of its routes, but a refusal names neither the base nor its space
    expect(await read(stranger, file.token)).toMatchObject(notFound(`Attachment ${file.token} not found`));
    expect(await read(ws.owner, pending.token)).toMatchObject(
      notFound(`Attachment ${pending.token} not found`),
    );
    expect(await read(ws.owner, 'z'.repeat(32))).toMatchObject(
      notFound(`Attachment ${'z'.repeat(32)} not found`),
    );
    expect(await read(ws.owner, 'short')).toMatchObject(notFound('Attachment short not found'));
  });
});

describe('attachment cells', () => {
  it('a record created with the token answers path, size, mimetype and a URL that downloads the same bytes', async () => {
    const t = await filesTable();
    const png = pngOf(12, 34);
    const file = await uploadFile(t.owner.auth, t.baseId, png, 'image/png', 'shot.png');

    const created = await createWithFile(t, file.token);

    expect(created.status).toBe(201);
    const cell = created.body.records[0].fields.Files;
    expect(cell).toEqual([
      {
        id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
        name: 'shot.png',
        token: file.token,
        path: file.path,
        size: png.length,
        mimetype: 'image/png',
        width: 12,
        height: 34,
        presignedUrl: expect.stringMatching(DOWNLOAD_URL),
      },
    ]);
    expect(await download(cell[0].presignedUrl)).toEqual(png);
  });

  it('the upload route, notify, then the cell; cellFormat=text names the file; a viewer listing gets the URL', async () => {
    const t = await filesTable();
    const viewer = await newMember(t, 'viewer');
    const bytes = bytesOf('report body');
    const { body: signature } = await sign(t.owner, {
      contentType: 'text/plain',
      contentLength: bytes.length,
      type: 1,
      baseId: t.baseId,
    });
    await putThroughApi(t.owner, signature.token, bytes, 'text/plain');
    await notify(t.owner, signature.token, 'filename=report.txt');
    const created = await createWithFile(t, signature.token);
    const recordId = created.body.records[0].id as string;

    const asText = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId },
      query: 'cellFormat=text',
    });
    const listed = await call('list-records', { token: viewer.auth, params: { tableId: t.tableId } });

    expect(asText.body.fields.Files).toBe(`report.txt (${signature.token})`);
    expect(listed.status).toBe(200);
    const cell = listed.body.records.find((r: { id: string }) => r.id === recordId).fields.Files;
    expect(cell).toEqual([
      {
        id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
        name: 'report.txt',
        token: signature.token,
        path: await pathOf(signature.token),
        size: bytes.length,
        mimetype: 'text/plain',
        presignedUrl: expect.stringMatching(DOWNLOAD_URL),
      },
    ]);
    expect(await download(cell[0].presignedUrl)).toEqual(bytes);
  });
});
