/**
 * The attachments bucket (data-flow.md 6): the one module that talks to S3, as `db/client.ts` is
 * the one that talks to DynamoDB. In the cloud the stage's bucket; locally the S3-compatible server
 * `npm start` runs, through `AWS_ENDPOINT_URL_S3` (path-style). Checksums only where S3 requires
 * them: a presigned upload must not carry a checksum of an empty body (S3 would refuse the bytes),
 * and a streamed put must not be sent chunk-framed to a server that does not expect it.
 */
import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/config.ts';

let client: S3Client | undefined;
const s3 = (): S3Client => {
  client ??= new S3Client({
    ...(config.s3Endpoint ? { endpoint: config.s3Endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return client;
};

const bucket = (): string => {
  if (!config.attachmentsBucket)
    throw new Error('ATTACHMENTS_BUCKET is not set: attachments are not configured');
  return config.attachmentsBucket;
};

/** A URL the client uploads one object to with `PUT` (type and length as signed), for `expiresIn` seconds. */
export const presignUpload = (
  key: string,
  contentType: string,
  contentLength: number,
  expiresIn: number,
): Promise<string> =>
  getSignedUrl(
    s3(),
    new PutObjectCommand({
      Bucket: bucket(),
      Key: key,
      ContentType: contentType,
      ContentLength: contentLength,
    }),
    { expiresIn, signableHeaders: new Set(['content-type']) },
  );

/** An object's size and type, or undefined when there is none. */
export const headObject = async (
  key: string,
): Promise<{ size: number; contentType?: string } | undefined> => {
  try {
    const out = await s3().send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
    return { size: out.ContentLength ?? 0, ...(out.ContentType ? { contentType: out.ContentType } : {}) };
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404)
      return undefined;
    throw error;
  }
};

/** The first `length` bytes of an object (what its type is read from). */
export const objectHead = async (key: string, length: number): Promise<Uint8Array> => {
  const out = await s3().send(
    new GetObjectCommand({ Bucket: bucket(), Key: key, Range: `bytes=0-${length - 1}` }),
  );
  return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
};

/** An object's bytes as a stream (read as it is consumed: memory stays flat in its size); undefined when missing. */
export const objectStream = async (key: string): Promise<Readable | undefined> => {
  try {
    const out = await s3().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return out.Body as Readable | undefined;
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
    throw error;
  }
};

/** Writes an object from bytes or a stream of known length. */
export const putObject = async (
  key: string,
  body: Uint8Array | Readable,
  contentType: string,
  contentLength: number,
): Promise<void> => {
  await s3().send(
    new PutObjectCommand({
      Bucket: bucket(),
      Key: key,
      Body: body,
      ContentType: contentType,
      ContentLength: contentLength,
    }),
  );
};

/** Deletes objects (missing ones are no error), 1,000 a call. */
export const deleteObjects = async (objectKeys: readonly string[]): Promise<void> => {
  for (let i = 0; i < objectKeys.length; i += 1000)
    await s3().send(
      new DeleteObjectsCommand({
        Bucket: bucket(),
        Delete: { Objects: objectKeys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
};
