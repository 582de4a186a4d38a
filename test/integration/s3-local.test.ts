/**
 * The local S3-compatible server (infra/local/s3-local.ts) refuses what S3 refuses: the real server
 * this run started (`AWS_ENDPOINT_URL_S3`), called as the service calls it (the SDK with this
 * process's credentials, presigned URLs from `presignUpload` and `presign.ts`) and as a browser or
 * an attacker would (fetch with the URL changed, no signature, another body or type). S3's answers:
 * the status and the XML error's `Code`.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';
import { presignUpload } from '#shared/storage/objects.ts';
import { presignGet } from '#shared/storage/presign.ts';

const endpoint = config.s3Endpoint as string;
const Bucket = config.attachmentsBucket as string;
const region = process.env.AWS_REGION || 'us-east-1';
const credentials = {
  accessKeyId: process.env.AWS_ACCESS_KEY_ID as string,
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY as string,
};

/** A client as `shared/storage/objects.ts` makes it (checksums only where S3 requires them). */
const clientWith = (extra: Partial<S3ClientConfig> = {}) =>
  new S3Client({
    endpoint,
    forcePathStyle: true,
    region,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...extra,
  });
const s3 = clientWith();

const keyOf = (name = 'file.txt') => `s3-local-test/${randomUUID()}/${name}`;
const bytesOf = (text: string) => new TextEncoder().encode(text);

/** Puts an object with the SDK (header-signed, the body's SHA-256 signed). */
const put = (Key: string, body: string, ContentType = 'text/plain') =>
  s3.send(new PutObjectCommand({ Bucket, Key, Body: bytesOf(body), ContentType }));

/** Whether the bucket holds `Key`. */
const exists = async (Key: string) => {
  try {
    await s3.send(new HeadObjectCommand({ Bucket, Key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
      return false;
    throw error;
  }
};

/** An S3 error answer: its status and `Code`. */
const s3Error = async (res: Response) => ({
  status: res.status,
  code: /<Code>([^<]*)<\/Code>/.exec(await res.text())?.[1],
});

/** A download URL of `Key` as records answer it (presign.ts), signed with this process's keys. */
const downloadUrlOf = (Key: string, options: { expiresIn?: number; now?: Date; filename?: string } = {}) =>
  presignGet({ bucket: Bucket, region, endpoint, ...credentials }, Key, {
    expiresIn: options.expiresIn ?? 900,
    ...(options.now ? { now: options.now } : {}),
    ...(options.filename ? { filename: options.filename } : {}),
  });

/** The SDK's error: its name (S3's `Code`) and status. */
const sdkError = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
};

describe('the local S3 server takes what S3 takes', () => {
  it('SDK object calls: PutObject, HeadObject, GetObject, ListObjectsV2, DeleteObject, DeleteObjects', async () => {
    const Key = keyOf();
    const other = keyOf('other.txt');

    await put(Key, 'hello, bucket');
    await put(other, 'other');
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key }));
    const got = await s3.send(new GetObjectCommand({ Bucket, Key }));
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: Key.slice(0, Key.lastIndexOf('/')) }),
    );

    expect(head).toMatchObject({ ContentLength: 13, ContentType: 'text/plain' });
    expect(await got.Body?.transformToString()).toBe('hello, bucket');
    expect(listed.Contents?.map((o) => o.Key)).toEqual([Key]);
    await s3.send(new DeleteObjectCommand({ Bucket, Key }));
    expect(await exists(Key)).toBe(false);
    await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: other }], Quiet: true } }));
    expect(await exists(other)).toBe(false);
  });

  it('SDK calls with a streamed body (unsigned payload), a ranged GET and a multipart upload', async () => {
    const streamed = keyOf('streamed.bin');
    const parts = keyOf('parts.bin');

    await s3.send(
      new PutObjectCommand({
        Bucket,
        Key: streamed,
        Body: Readable.from([Buffer.from('abc'), Buffer.from('def')]),
        ContentLength: 6,
      }),
    );
    const ranged = await s3.send(new GetObjectCommand({ Bucket, Key: streamed, Range: 'bytes=1-3' }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: parts }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket, Key: parts, UploadId, PartNumber: 1, Body: Buffer.from('one part') }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: parts,
        UploadId,
        MultipartUpload: { Parts: [{ ETag: part.ETag as string, PartNumber: 1 }] },
      }),
    );

    expect(await ranged.Body?.transformToString()).toBe('bcd');
    expect(
      await (await s3.send(new GetObjectCommand({ Bucket, Key: parts }))).Body?.transformToString(),
    ).toBe('one part');
  });

  it('SDK bucket calls: CreateBucket, HeadBucket, ListBuckets, DeleteBucket', async () => {
    const name = `s3-local-${randomUUID().slice(0, 8)}`;

    await s3.send(new CreateBucketCommand({ Bucket: name }));
    await s3.send(new HeadBucketCommand({ Bucket: name }));
    const buckets = await s3.send(new ListBucketsCommand({}));
    await s3.send(new DeleteBucketCommand({ Bucket: name }));

    expect(buckets.Buckets?.map((b) => b.Name)).toEqual(expect.arrayContaining([Bucket, name]));
    expect(await sdkError(s3.send(new HeadBucketCommand({ Bucket: name })))).toMatchObject({ status: 404 });
  });

  it('keys with spaces, plus signs, brackets, stars and accents, through the SDK and both presigners', async () => {
    const Key = keyOf("a b+c(d)!'é*~.txt");
    await put(Key, 'odd name');

    const ours = await fetch(downloadUrlOf(Key, { filename: 'naïve (1).txt' }));
    const sdks = await fetch(
      await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key }), { expiresIn: 60 }),
    );

    expect([ours.status, await ours.text()]).toEqual([200, 'odd name']);
    expect(ours.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''na%C3%AFve%20%281%29.txt",
    );
    expect([sdks.status, await sdks.text()]).toEqual([200, 'odd name']);
    // s3rver escapes such a name in listings: not left in the bucket the other tests share
    await s3.send(new DeleteObjectCommand({ Bucket, Key }));
  });

  it('a presigned upload (presignUpload) PUT with the signed type and length, then a presigned GET', async () => {
    const Key = keyOf();
    const bytes = bytesOf('signed bytes');
    const url = await presignUpload(Key, 'text/plain', bytes.length, 60);

    const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: bytes });
    const got = await fetch(downloadUrlOf(Key));

    expect(res.status).toBe(200);
    expect([got.status, got.headers.get('content-type'), await got.text()]).toEqual([
      200,
      'text/plain',
      'signed bytes',
    ]);
  });

  it('answers a CORS preflight unsigned and a browser PUT to a presigned URL with the CORS headers', async () => {
    const Key = keyOf();
    const url = await presignUpload(Key, 'text/plain', 2, 60);
    const origin = 'http://localhost:5173';

    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    const res = await fetch(url, {
      method: 'PUT',
      headers: { origin, 'content-type': 'text/plain' },
      body: 'hi',
    });

    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toMatch(/^(\*|http:\/\/localhost:5173)$/);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toMatch(/^(\*|http:\/\/localhost:5173)$/);
  });
});

describe('the local S3 server refuses what S3 refuses', () => {
  it.each(['GET', 'HEAD', 'DELETE'])(
    'an unsigned %s of an existing object: 403 AccessDenied',
    async (method) => {
      const Key = keyOf();
      await put(Key, "someone else's file");

      const res = await fetch(`${endpoint}/${Bucket}/${Key}`, { method });

      expect(res.status).toBe(403);
      if (method !== 'HEAD') expect(await s3Error(res)).toEqual({ status: 403, code: 'AccessDenied' });
      expect(await exists(Key)).toBe(true);
    },
  );

  it('an unsigned PUT and an unsigned listing of the bucket: 403 AccessDenied, nothing stored', async () => {
    const Key = keyOf();

    const putting = await fetch(`${endpoint}/${Bucket}/${Key}`, { method: 'PUT', body: 'mine now' });
    const listing = await fetch(`${endpoint}/${Bucket}?list-type=2`);

    expect(await s3Error(putting)).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await s3Error(listing)).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await exists(Key)).toBe(false);
  });

  it('a presigned GET with its signature corrupted, or its query or path changed: 403 SignatureDoesNotMatch', async () => {
    const Key = keyOf();
    await put(Key, 'secret');
    const url = new URL(downloadUrlOf(Key));
    const signature = url.searchParams.get('X-Amz-Signature') as string;
    const corrupted = new URL(url);
    corrupted.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    const added = new URL(url);
    added.searchParams.set('response-content-type', 'text/html');
    const elsewhere = new URL(url);
    elsewhere.pathname = `${url.pathname}.other`;

    for (const changed of [corrupted, added, elsewhere])
      expect(await s3Error(await fetch(changed))).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect((await fetch(url)).status).toBe(200);
  });

  it('an expired presigned URL, ours or the SDK’s: 403 AccessDenied (Request has expired)', async () => {
    const Key = keyOf();
    await put(Key, 'stale');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);

    const ours = await fetch(downloadUrlOf(Key, { expiresIn: 3600, now: twoHoursAgo }));
    const sdks = await fetch(
      await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key }), {
        expiresIn: 3600,
        signingDate: twoHoursAgo,
      }),
    );

    for (const res of [ours, sdks]) {
      const text = await res.text();
      expect(res.status).toBe(403);
      expect(text).toContain('<Code>AccessDenied</Code>');
      expect(text).toContain('<Message>Request has expired</Message>');
    }
  });

  it('a presigned PUT with a content type other than signed: 403 SignatureDoesNotMatch, nothing stored', async () => {
    const Key = keyOf('picture.png');
    const url = await presignUpload(Key, 'image/png', 5, 60);

    const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<b>x' });

    expect(await s3Error(res)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await exists(Key)).toBe(false);
  });

  it('a presigned PUT whose body is longer or shorter than the signed length, or streamed without one: 403, nothing stored', async () => {
    const Key = keyOf();
    const url = await presignUpload(Key, 'text/plain', 5, 60);
    const headers = { 'content-type': 'text/plain' };

    const longer = await fetch(url, { method: 'PUT', headers, body: 'longer than five' });
    const shorter = await fetch(url, { method: 'PUT', headers, body: '' });
    const streamed = await fetch(url, {
      method: 'PUT',
      headers,
      body: Readable.toWeb(Readable.from([Buffer.from('12345')])) as ReadableStream,
      duplex: 'half',
    } as RequestInit);

    for (const res of [longer, shorter, streamed])
      expect(await s3Error(res)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await exists(Key)).toBe(false);
  });

  it('a presigned PUT carrying an x-amz-* header it did not sign: 403 AccessDenied', async () => {
    const Key = keyOf();
    const url = await presignUpload(Key, 'text/plain', 2, 60);

    const res = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain', 'x-amz-acl': 'public-read' },
      body: 'hi',
    });

    expect(await s3Error(res)).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await exists(Key)).toBe(false);
  });

  it('SDK calls signed with another secret or an unknown key: 403 SignatureDoesNotMatch, InvalidAccessKeyId', async () => {
    const Key = keyOf();
    await put(Key, 'kept');
    const wrongSecret = clientWith({ credentials: { ...credentials, secretAccessKey: 'not-the-secret' } });
    const unknownKey = clientWith({ credentials: { ...credentials, accessKeyId: 'AKIDUNKNOWN' } });

    expect(await sdkError(wrongSecret.send(new GetObjectCommand({ Bucket, Key })))).toEqual({
      name: 'SignatureDoesNotMatch',
      status: 403,
    });
    expect(await sdkError(unknownKey.send(new DeleteObjectCommand({ Bucket, Key })))).toEqual({
      name: 'InvalidAccessKeyId',
      status: 403,
    });
    expect(await exists(Key)).toBe(true);
  });

  it('an SDK request changed after signing: its signature (403) or its signed body hash (400) no longer match', async () => {
    const Key = keyOf();
    const tampered = (change: (request: { headers: Record<string, string>; body?: unknown }) => void) => {
      const client = clientWith({ maxAttempts: 1 });
      const middleware = ((next: (args: { request: unknown }) => Promise<unknown>) =>
        async (args: { request: unknown }) => {
          change(args.request as { headers: Record<string, string>; body?: unknown });
          return next(args);
        }) as unknown as Parameters<S3Client['middlewareStack']['addRelativeTo']>[0];
      client.middlewareStack.addRelativeTo(middleware, {
        relation: 'after',
        toMiddleware: 'httpSigningMiddleware',
        name: 'tamper',
      });
      return client;
    };
    const otherType = tampered((r) => {
      r.headers['content-type'] = 'text/html';
    });
    // the same length, so that only the bytes differ from what was signed
    const otherBody = tampered((r) => {
      r.body = bytesOf('altered bytes!');
    });

    expect(
      await sdkError(
        otherType.send(
          new PutObjectCommand({ Bucket, Key, Body: bytesOf('original'), ContentType: 'text/plain' }),
        ),
      ),
    ).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(
      await sdkError(
        otherBody.send(
          new PutObjectCommand({ Bucket, Key, Body: bytesOf('original bytes'), ContentType: 'text/plain' }),
        ),
      ),
    ).toEqual({ name: 'XAmzContentSHA256Mismatch', status: 400 });
    expect(await exists(Key)).toBe(false);
  });

  it('an SDK request signed 20 minutes off the server clock: 403 RequestTimeTooSkewed', async () => {
    const Key = keyOf();
    await put(Key, 'now');
    // one attempt: the SDK corrects its clock from the answer and would succeed on a retry, as with S3
    const skewed = clientWith({ systemClockOffset: -20 * 60_000, maxAttempts: 1 });

    expect(await sdkError(skewed.send(new GetObjectCommand({ Bucket, Key })))).toEqual({
      name: 'RequestTimeTooSkewed',
      status: 403,
    });
  });
});

describe('stopping the local S3 server', () => {
  it('ends though a client left a download unread (its connection held the close, and the test run, open)', async () => {
    const { startS3Local } = await import('#infra/local/s3-local.ts');
    const own = await startS3Local();
    const client = clientWith({ endpoint: own.endpoint });
    const Key = `unread-${randomUUID()}`;
    await client.send(
      new PutObjectCommand({ Bucket: own.bucket, Key, Body: Buffer.alloc(4 * 1024 * 1024, 1) }),
    );
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: own.bucket, Key }), {
      expiresIn: 60,
    });
    // the answer's head is read, its 4 MB body never
    const answer = await fetch(url);
    expect(answer.status).toBe(200);

    const stopped = await Promise.race([
      own.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5000)),
    ]);

    expect(stopped).toBe('stopped');
    client.destroy();
  });
});
