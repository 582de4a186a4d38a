/**
 * Attachments (issue 29, data-flow.md 6): Teable's upload flow — signature, the bytes to the
 * presigned URL (the real local S3-compatible server) or through `PUT /attachments/upload/{token}`,
 * notify, read — attachment cells naming the uploads, and `uploadAttachment` (a form's file or a
 * `fileUrl` fetched from a loopback server; SSRF refusals); every bad input of item 5 that is built.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';
import { readAttachment } from '#shared/entities/attachments.ts';
import { headObject, putObject } from '#shared/storage/objects.ts';
import { error, forbidden, ISO, invalid, notFound } from '#test/support/answers.ts';
import {
  type FilesTable,
  type FormPart,
  filesTable,
  multipartForm,
  pngOf,
  signAndPut,
  startFileServer,
  uploadFile,
  uploadForm,
} from '#test/support/attachments.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { addMember, newMember, newTable, newWorkspace } from '#test/support/workspace.ts';

type Caller = Awaited<ReturnType<typeof newUser>>;

const bytesOf = (text: string) => new TextEncoder().encode(text);
const HTML = bytesOf('<!doctype html><html><body>not a picture</body></html>');

const poller = useStreamPoller();

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

/** A cell's items without the URLs signed at answer time (they carry the signing second). */
const withoutSignedUrls = (items: Record<string, unknown>[] | undefined) =>
  items?.map(({ presignedUrl: _, smThumbnailUrl: _sm, lgThumbnailUrl: _lg, ...rest }) => rest);

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
    ['a baseId that is no text', (b) => ({ ...good(b), baseId: 5 }), /^Invalid body\.baseId: /],
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

    // the type the URL is signed for (the SDK signs an empty one as application/octet-stream), as S3 checks it
    expect(image.requestHeaders).toEqual({ 'Content-Type': 'application/octet-stream' });
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

  it('takes the size the bucket holds, not the declared one: the presigned URL signs the length, the bucket may hold another', async () => {
    const ws = await newWorkspace();
    const bytes = bytesOf('longer than declared');
    const { body: signature } = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: 5,
      type: 1,
      baseId: ws.baseId,
    });
    const put = await fetch(signature.url, { method: 'PUT', headers: signature.requestHeaders, body: bytes });
    expect(put.status).toBe(403);
    expect(await put.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    // written past the URL (another writer of the bucket): notify measures what is there
    await putObject(await pathOf(signature.token), bytes, 'text/plain', bytes.length);

    const res = await notify(ws.owner, signature.token);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ size: bytes.length, mimetype: 'text/plain' });
  });

  it('refuses an empty object (400) and removes it; the presigned URL itself refuses an empty body', async () => {
    const ws = await newWorkspace();
    const { body: signature } = await sign(ws.owner, {
      contentType: 'text/plain',
      contentLength: 5,
      type: 1,
      baseId: ws.baseId,
    });
    const put = await fetch(signature.url, { method: 'PUT', headers: signature.requestHeaders, body: '' });
    expect(put.status).toBe(403);
    const path = await pathOf(signature.token);
    await putObject(path, new Uint8Array(), 'text/plain', 0);
    expect(await headObject(path)).toMatchObject({ size: 0 });

    const res = await notify(ws.owner, signature.token);

    expect(res).toMatchObject(invalid('The uploaded file is empty'));
    expect(await headObject(path)).toBeUndefined();
  });

  it(`refuses an object over ATTACHMENT_MAX_BYTES at notify (413, the real size) and removes it`, async () => {
    const ws = await newWorkspace();
    // the signature allows the limit and the presigned URL no more; an object written past it is measured
    const bytes = new Uint8Array(config.attachmentMaxBytes + 1);
    const { body: signature } = await sign(ws.owner, {
      contentType: 'application/octet-stream',
      contentLength: config.attachmentMaxBytes,
      type: 1,
      baseId: ws.baseId,
    });
    const path = await pathOf(signature.token);
    await putObject(path, Readable.from([bytes]), 'application/octet-stream', bytes.length);

    const res = await notify(ws.owner, signature.token);

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

  it("an upload signed without a base (as Teable's web app signs) is its uploader's in any base they may write to; another user's once a record of the table holds it", async () => {
    const mine = await filesTable();
    const shared = await filesTable();
    await addMember(shared.owner, shared.spaceId, mine.owner, 'editor');
    const stranger = await filesTable();
    const file = await uploadFile(mine.owner.auth, undefined);
    const put = (t: FilesTable, caller: Caller) =>
      call('create-records', {
        token: caller.auth,
        params: { tableId: t.tableId },
        body: { records: [{ fields: { Files: [{ token: file.token }] } }] },
      });

    // a table no record holds it in yet: only its uploader may put it there
    expect(await put(shared, shared.owner)).toMatchObject(noFile(shared, file.token));
    expect((await put(mine, mine.owner)).status).toBe(201);
    expect((await put(shared, mine.owner)).status).toBe(201);
    // once the stream has noted the record that holds it, whoever may write that table may copy it
    await poller.caughtUp();
    expect((await put(shared, shared.owner)).status).toBe(201);
    expect(await put(stranger, stranger.owner)).toMatchObject(noFile(stranger, file.token));
    expect((await read(mine.owner, file.token)).status).toBe(302);
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
        // no taller than a thumbnail: the image is its own (Teable answers both for every image)
        smThumbnailUrl: cell[0].presignedUrl,
        lgThumbnailUrl: cell[0].presignedUrl,
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

describe('POST /table/{tableId}/record/{recordId}/{fieldId}/uploadAttachment', () => {
  /** A `Files` table with one record named `R` whose cell is empty; field ids by name. */
  const oneRecord = async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'attachment', name: 'Files' },
      ],
      records: [{ fields: { Name: 'R' } }],
    });
    const ids = Object.fromEntries(
      (t.table.fields as { id: string; name: string }[]).map((f) => [f.name, f.id]),
    ) as Record<'Name' | 'Files', string>;
    return { ...t, recordId: t.table.records[0].id as string, nameId: ids.Name, filesId: ids.Files };
  };
  type OneRecord = Awaited<ReturnType<typeof oneRecord>>;

  const upload = (
    t: OneRecord,
    form: { rawBody: Uint8Array; headers: Record<string, string> },
    options: { caller?: Caller; recordId?: string; fieldId?: string } = {},
  ) =>
    call('upload-record-attachment', {
      token: (options.caller ?? t.owner).auth,
      params: {
        tableId: t.tableId,
        recordId: options.recordId ?? t.recordId,
        fieldId: options.fieldId ?? t.filesId,
      },
      ...form,
    });

  const fileForm = (bytes: Uint8Array, filename: string, contentType: string) =>
    uploadForm({ file: bytes, filename, contentType });

  /** The record's `Files` cell, as the owner reads it (keyed by field id). */
  const cellOf = async (t: OneRecord) => {
    const res = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: t.recordId },
      query: 'fieldKeyType=id',
    });
    expect(res.status).toBe(200);
    return res.body.fields[t.filesId] as Record<string, unknown>[] | undefined;
  };

  /** An item of the cell as answered, for the file of `token`. */
  // an image (all of these are small) answers its thumbnail URLs as the file itself
  const item = async (token: string, facts: Record<string, unknown>) => ({
    id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
    token,
    path: await pathOf(token),
    presignedUrl: expect.stringMatching(DOWNLOAD_URL),
    ...(String(facts.mimetype).startsWith('image/')
      ? {
          smThumbnailUrl: expect.stringMatching(DOWNLOAD_URL),
          lgThumbnailUrl: expect.stringMatching(DOWNLOAD_URL),
        }
      : {}),
    ...facts,
  });

  describe('a file in the form', () => {
    it('appends to an empty cell, then appends a second: 201, the record by field ids, URLs that download the bytes; the PNG gets its size', async () => {
      const t = await oneRecord();
      const text = bytesOf('first file');
      const png = pngOf(20, 10);

      const first = await upload(t, fileForm(text, 'notes.txt', 'text/plain'));
      const second = await upload(t, fileForm(png, 'pic.png', 'image/png'));

      expect(first.status).toBe(201);
      const [textItem] = first.body.fields[t.filesId];
      expect(first.body).toEqual({
        id: t.recordId,
        name: 'R',
        fields: {
          [t.nameId]: 'R',
          [t.filesId]: [
            await item(textItem.token, { name: 'notes.txt', size: text.length, mimetype: 'text/plain' }),
          ],
        },
        autoNumber: 1,
        createdTime: t.table.records[0].createdTime,
        lastModifiedTime: expect.stringMatching(ISO),
        createdBy: t.owner.name,
        lastModifiedBy: t.owner.name,
        permissions: {
          [t.nameId]: { read: true, update: true },
          [t.filesId]: { read: true, update: true },
        },
        undeletable: false,
      });
      expect(second.status).toBe(201);
      const cell = second.body.fields[t.filesId];
      expect(cell).toEqual([
        { ...textItem, presignedUrl: expect.stringMatching(DOWNLOAD_URL) },
        await item(cell[1].token, {
          name: 'pic.png',
          size: png.length,
          mimetype: 'image/png',
          width: 20,
          height: 10,
        }),
      ]);
      expect(await download(cell[0].presignedUrl)).toEqual(text);
      expect(await download(cell[1].presignedUrl)).toEqual(png);
      const stored = await readAttachment(cell[1].token);
      expect(stored).toMatchObject({ state: 'ready', baseId: t.baseId, userId: t.owner.id, name: 'pic.png' });
      expect(withoutSignedUrls(await cellOf(t))).toEqual(withoutSignedUrls(cell));
    });

    it('takes the type from the bytes when the part declares none that says anything (application/octet-stream)', async () => {
      const t = await oneRecord();
      const png = pngOf(4, 3);

      const res = await upload(t, fileForm(png, 'unnamed.bin', 'application/octet-stream'));

      expect(res.status).toBe(201);
      expect(res.body.fields[t.filesId]).toEqual([
        await item(res.body.fields[t.filesId][0].token, {
          name: 'unnamed.bin',
          size: png.length,
          mimetype: 'image/png',
          width: 4,
          height: 3,
        }),
      ]);
    });

    it('keeps a UTF-8 file name as sent (browsers and form-data write it raw in the part header)', async () => {
      const t = await oneRecord();

      const res = await upload(t, fileForm(bytesOf('résumé'), 'résumé 日本.txt', 'text/plain'));

      expect(res.status).toBe(201);
      expect(res.body.fields[t.filesId][0].name).toBe('résumé 日本.txt');
    });

    it('refuses an HTML page declared image/png (400); the cell stays as it was', async () => {
      const t = await oneRecord();
      const kept = await upload(t, fileForm(bytesOf('keep me'), 'keep.txt', 'text/plain'));
      const before = await cellOf(t);

      const res = await upload(t, fileForm(HTML, 'fake.png', 'image/png'));

      expect(res).toMatchObject(
        invalid("The file's bytes are text or an unknown format, not the declared image/png"),
      );
      const after = await cellOf(t);
      expect(after?.map((a) => a.token)).toEqual([kept.body.fields[t.filesId][0].token]);
      expect(withoutSignedUrls(after)).toEqual(withoutSignedUrls(before));
    });

    it('refuses an empty file (400); the cell stays empty', async () => {
      const t = await oneRecord();

      const res = await upload(t, fileForm(new Uint8Array(), 'empty.txt', 'text/plain'));

      expect(res).toMatchObject(invalid('The file is empty'));
      expect(await cellOf(t)).toBeUndefined();
    });

    it('refuses a body over the 6 MB a Lambda takes (413) before reading the form', async () => {
      const t = await oneRecord();
      const big = new Uint8Array(6 * 1024 * 1024 + 1);

      const res = await upload(t, fileForm(big, 'big.bin', 'application/octet-stream'));

      expect(res).toMatchObject(error(413, 'payload_too_large', 'The request body is larger than 6 MB'));
      expect(await cellOf(t)).toBeUndefined();
    });
  });

  describe('a fileUrl', () => {
    const png = pngOf(8, 6);
    let files: Awaited<ReturnType<typeof startFileServer>>;
    beforeAll(async () => {
      files = await startFileServer({
        '/docs/report%20final.txt': {
          headers: { 'content-type': 'text/plain; charset=utf-8' },
          body: 'fetched text',
        },
        '/pics/photo.png': { headers: { 'content-type': 'application/octet-stream' }, body: png },
        '/pics/untyped': { body: png },
        '/fake.png': { headers: { 'content-type': 'image/png' }, body: HTML },
        '/moved.png': { status: 302, headers: { location: '/pics/photo.png' } },
        '/to-metadata': {
          status: 302,
          headers: { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' },
        },
        '/to-private': { status: 307, headers: { location: 'http://10.1.2.3/x' } },
        '/gone': { status: 404 },
        '/broken': { status: 500, body: 'oops' },
        '/bad%zz.txt': { headers: { 'content-type': 'text/plain' }, body: 'odd name' },
      });
    });
    afterAll(() => files.close());

    const urlForm = (fileUrl: string) => uploadForm({ fileUrl });

    it('fetches the file from a loopback server, names it after the URL path and types it from the headers', async () => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(files.url('/docs/report%20final.txt')));

      expect(res.status).toBe(201);
      const cell = res.body.fields[t.filesId];
      expect(cell).toEqual([
        await item(cell[0].token, { name: 'report final.txt', size: 12, mimetype: 'text/plain' }),
      ]);
      expect(await download(cell[0].presignedUrl)).toEqual(bytesOf('fetched text'));
    });

    it.each([
      ['application/octet-stream', '/pics/photo.png', 'photo.png'],
      ['no Content-Type', '/pics/untyped', 'untyped'],
    ])('types a PNG served with %s from its bytes, with its size', async (_, path, name) => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(files.url(path)));

      expect(res.status).toBe(201);
      const cell = res.body.fields[t.filesId];
      expect(cell).toEqual([
        await item(cell[0].token, { name, size: png.length, mimetype: 'image/png', width: 8, height: 6 }),
      ]);
      expect(await download(cell[0].presignedUrl)).toEqual(png);
    });

    it('follows a redirect to another loopback path (the name is the given URL’s)', async () => {
      const t = await oneRecord();
      const before = files.requests.length;

      const res = await upload(t, urlForm(files.url('/moved.png')));

      expect(res.status).toBe(201);
      expect(res.body.fields[t.filesId][0]).toMatchObject({ name: 'moved.png', mimetype: 'image/png' });
      expect(files.requests.slice(before)).toEqual(['/moved.png', '/pics/photo.png']);
    });

    it('names a file whose URL path is not valid percent-encoding after the path as written', async () => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(files.url('/bad%zz.txt')));

      expect(res.status).toBe(201);
      expect(res.body.fields[t.filesId][0]).toMatchObject({ name: 'bad%zz.txt', mimetype: 'text/plain' });
    });

    it.each([
      ['404', '/gone', 'Invalid fileUrl: it answered 404'],
      ['500', '/broken', 'Invalid fileUrl: it answered 500'],
    ])('refuses a URL that answers %s (400)', async (_, path, message) => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(files.url(path)));

      expect(res).toMatchObject(invalid(message));
      expect(await cellOf(t)).toBeUndefined();
    });

    it('refuses bytes that contradict the served type (HTML served as image/png, 400); the cell stays empty', async () => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(files.url('/fake.png')));

      expect(res).toMatchObject(
        invalid("The file's bytes are text or an unknown format, not the declared image/png"),
      );
      expect(await cellOf(t)).toBeUndefined();
    });

    it.each([
      ['to the metadata address', '/to-metadata'],
      ['to a private address', '/to-private'],
    ])('refuses a redirect %s (400) without following it', async (_, path) => {
      const t = await oneRecord();
      const before = files.requests.length;

      const res = await upload(t, urlForm(files.url(path)));

      expect(res).toMatchObject(
        invalid('Invalid fileUrl: it leads to an address this service does not fetch from'),
      );
      expect(files.requests.slice(before)).toEqual([path]);
      expect(await cellOf(t)).toBeUndefined();
    });

    it.each([
      'http://10.1.2.3/x',
      'http://[::ffff:10.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://192.168.1.1/',
      'http://172.31.255.255/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
    ])('refuses %s (400): an address this service does not fetch from', async (url) => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(url));

      expect(res).toMatchObject(
        invalid('Invalid fileUrl: it leads to an address this service does not fetch from'),
      );
    });

    it.each([
      ['ftp://example.com/file.txt', 'Invalid fileUrl: only https or http URLs are fetched'],
      ['file:///etc/passwd', 'Invalid fileUrl: only https or http URLs are fetched'],
      ['not a url', 'Invalid fileUrl: not a URL'],
    ])('refuses %s (400)', async (url, message) => {
      const t = await oneRecord();

      const res = await upload(t, urlForm(url));

      expect(res).toMatchObject(invalid(message));
    });
  });

  describe('refusals', () => {
    const ONE = 'Send either a file (the form part "file") or a fileUrl, and only one';

    it.each<[string, FormPart[]]>([
      [
        'both a file and a fileUrl',
        [
          { name: 'file', filename: 'a.txt', contentType: 'text/plain', bytes: bytesOf('a') },
          { name: 'fileUrl', value: 'http://127.0.0.1:1/a.txt' },
        ],
      ],
      ['neither (another field only)', [{ name: 'other', value: 'x' }]],
      ['neither (an empty form)', []],
      ['an empty fileUrl', [{ name: 'fileUrl', value: '' }]],
      [
        'a file under another part name',
        [{ name: 'upload', filename: 'a.txt', contentType: 'text/plain', bytes: bytesOf('a') }],
      ],
    ])('refuses a form with %s (400); the cell stays empty', async (_, parts) => {
      const t = await oneRecord();

      const res = await upload(t, multipartForm(parts));

      expect(res).toMatchObject(invalid(ONE));
      expect(await cellOf(t)).toBeUndefined();
    });

    it('refuses a body that is not a multipart form (415), JSON or none', async () => {
      const t = await oneRecord();
      const base = {
        token: t.owner.auth,
        params: { tableId: t.tableId, recordId: t.recordId, fieldId: t.filesId },
      };

      const json = await call('upload-record-attachment', {
        ...base,
        body: { fileUrl: 'http://127.0.0.1/' },
      });
      const none = await call('upload-record-attachment', base);

      for (const res of [json, none])
        expect(res).toMatchObject(
          error(
            415,
            'unsupported_media_type',
            'The body must be a multipart form (Content-Type: multipart/form-data)',
          ),
        );
    });

    it('refuses a multipart content type without a boundary, an empty body and a truncated form (400)', async () => {
      const t = await oneRecord();
      const form = fileForm(bytesOf('cut short'), 'a.txt', 'text/plain');

      const noBoundary = await upload(t, {
        rawBody: bytesOf('x'),
        headers: { 'content-type': 'multipart/form-data' },
      });
      const empty = await upload(t, { rawBody: new Uint8Array(), headers: form.headers });
      const truncated = await upload(t, { rawBody: form.rawBody.subarray(0, 80), headers: form.headers });

      expect(noBoundary).toMatchObject(invalid('The body is not a multipart form'));
      expect(empty).toMatchObject(invalid('The body is not a valid multipart form'));
      expect(truncated).toMatchObject(invalid('The body is not a valid multipart form'));
      expect(await cellOf(t)).toBeUndefined();
    });

    it('refuses a field that is not an attachment field (400) and an unknown field (404)', async () => {
      const t = await oneRecord();
      const form = fileForm(bytesOf('a'), 'a.txt', 'text/plain');

      const text = await upload(t, form, { fieldId: t.nameId });
      const unknown = await upload(t, form, { fieldId: 'fldAAAAAAAAAAAAAAAA' });

      expect(text).toMatchObject(invalid(`Field ${t.nameId} is not an attachment field`));
      expect(unknown).toMatchObject(notFound('Field fldAAAAAAAAAAAAAAAA not found'));
    });

    it('refuses an unknown record (404)', async () => {
      const t = await oneRecord();

      const res = await upload(t, fileForm(bytesOf('a'), 'a.txt', 'text/plain'), {
        recordId: 'recAAAAAAAAAAAAAAAA',
      });

      expect(res).toMatchObject(notFound('Record recAAAAAAAAAAAAAAAA not found'));
    });

    it('refuses a viewer (403: no record|update) and a stranger (403); the cell stays empty', async () => {
      const t = await oneRecord();
      const viewer = await newMember(t, 'viewer');
      const stranger = await newUser();
      const form = fileForm(bytesOf('a'), 'a.txt', 'text/plain');

      const asViewer = await upload(t, form, { caller: viewer });
      const asStranger = await upload(t, form, { caller: stranger });

      expect(asViewer).toMatchObject(forbidden(`not allowed to operate record|update on ${t.tableId}`));
      expect(asStranger).toMatchObject(forbidden(/^not a collaborator of the space that holds /));
      expect(await cellOf(t)).toBeUndefined();
    });
  });
});
