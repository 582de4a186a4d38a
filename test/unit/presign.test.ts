import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presignGet, type SignerConfig } from '#shared/storage/presign.ts';

/**
 * Download URLs are signed without the SDK (synchronously, one per attachment cell): they must be
 * exactly the URLs the SDK's own presigner gives, since the local S3-compatible server does not
 * check signatures as S3 does.
 */

const sdkUrl = async (config: SignerConfig, key: string, expiresIn: number, now: Date, filename?: string) => {
  const client = new S3Client({
    region: config.region,
    credentials: {
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      ...(config.sessionToken ? { sessionToken: config.sessionToken } : {}),
    },
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return getSignedUrl(
    client,
    new GetObjectCommand({
      Bucket: config.bucket,
      Key: key,
      ...(filename === undefined
        ? {}
        : { ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeRfc3986(filename)}` }),
    }),
    { expiresIn, signingDate: now },
  );
};

const encodeRfc3986 = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const AWS: SignerConfig = {
  bucket: 'stage-attachments-1a2b3c',
  region: 'eu-west-1',
  accessKeyId: 'ASIAEXAMPLEKEY',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE+token/with=chars',
};
const LOCAL: SignerConfig = {
  bucket: 'attachments',
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:4569',
  accessKeyId: 'local',
  secretAccessKey: 'local',
};

// The SDK takes an endpoint from the environment: a run beside the integration tests has the local
// server's there. The URLs compared here are built from the configurations alone.
const saved = process.env.AWS_ENDPOINT_URL_S3;
beforeAll(() => {
  delete process.env.AWS_ENDPOINT_URL_S3;
});
afterAll(() => {
  if (saved !== undefined) process.env.AWS_ENDPOINT_URL_S3 = saved;
});

describe('presigned download URLs', () => {
  it.each([
    ['AWS, virtual-hosted, with a session token', AWS],
    ['a local endpoint, path-style', LOCAL],
  ])('%s: the same URL as the SDK for the same key, time and expiry', async (_, config) => {
    const now = new Date('2026-11-28T10:15:30.123Z');
    expect(presignGet(config, 'table/abc123', { expiresIn: 900, now })).toBe(
      await sdkUrl(config, 'table/abc123', 900, now),
    );
    expect(
      presignGet(config, 'table/abc123', { expiresIn: 60, now, filename: 'Reçu (final) 2026.pdf' }),
    ).toBe(await sdkUrl(config, 'table/abc123', 60, now, 'Reçu (final) 2026.pdf'));
  });

  it('for any key, file name, moment and expiry', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }).map((s) => `table/${s}`),
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }),
        fc.integer({ min: 1, max: 604_800 }),
        fc.boolean(),
        async (key, filename, now, expiresIn, local) => {
          const config = local ? LOCAL : AWS;
          expect(
            presignGet(config, key, { expiresIn, now, ...(filename === undefined ? {} : { filename }) }),
          ).toBe(await sdkUrl(config, key, expiresIn, now, filename));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an upload URL signs the content type and carries no checksum of an empty body', async () => {
    const client = new S3Client({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'A', secretAccessKey: 'B' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const url = new URL(
      await getSignedUrl(
        client,
        new PutObjectCommand({ Bucket: 'b', Key: 'table/x', ContentType: 'image/png', ContentLength: 10 }),
        { expiresIn: 3600, signableHeaders: new Set(['content-type']) },
      ),
    );
    expect([...url.searchParams.keys()].filter((k) => k.toLowerCase().startsWith('x-amz-checksum'))).toEqual(
      [],
    );
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-type');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
  });
});
