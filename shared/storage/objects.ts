/**
 * The attachments bucket (data-flow.md 6): the one module that talks to S3, as `db/client.ts` is
 * the one that talks to DynamoDB. In the cloud the stage's bucket; locally the S3-compatible server
 * `npm start` runs, through `AWS_ENDPOINT_URL_S3` (path-style). Checksums only where S3 requires
 * them: a presigned upload must not carry a checksum of an empty body (S3 would refuse the bytes),
 * and a streamed put must not be sent chunk-framed to a server that does not expect it.
 */
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
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

/** The smallest part of a multipart upload but the last (S3's rule). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * An object written in parts as its bytes come (S3 multipart upload): memory holds one part at a
 * time, whatever the object's size. `write` buffers until a part is full and sends it; `finish`
 * sends the rest and completes the object; `abort` gives the parts up (nothing is left).
 */
export class ObjectWriter {
  private uploadId: string | undefined;
  private readonly parts: { ETag: string; PartNumber: number }[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes written so far. */
  size = 0;

  constructor(
    readonly key: string,
    readonly contentType: string,
    readonly partBytes = MIN_PART_BYTES,
  ) {}

  async write(bytes: Buffer): Promise<void> {
    this.chunks.push(bytes);
    this.buffered += bytes.length;
    this.size += bytes.length;
    if (this.buffered >= this.partBytes) await this.sendPart();
  }

  private async sendPart(): Promise<void> {
    this.uploadId ??= (
      await s3().send(
        new CreateMultipartUploadCommand({ Bucket: bucket(), Key: this.key, ContentType: this.contentType }),
      )
    ).UploadId;
    const body = Buffer.concat(this.chunks);
    this.chunks = [];
    this.buffered = 0;
    const PartNumber = this.parts.length + 1;
    const out = await s3().send(
      new UploadPartCommand({
        Bucket: bucket(),
        Key: this.key,
        UploadId: this.uploadId,
        PartNumber,
        Body: body,
        ContentLength: body.length,
      }),
    );
    this.parts.push({ ETag: out.ETag ?? '', PartNumber });
  }

  async finish(): Promise<void> {
    if (!this.uploadId) {
      const body = Buffer.concat(this.chunks);
      await putObject(this.key, body, this.contentType, body.length);
      return;
    }
    if (this.buffered > 0) await this.sendPart();
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket(),
        Key: this.key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
  }

  async abort(): Promise<void> {
    this.chunks = [];
    if (this.uploadId)
      await s3()
        .send(new AbortMultipartUploadCommand({ Bucket: bucket(), Key: this.key, UploadId: this.uploadId }))
        .catch(() => undefined);
  }
}
