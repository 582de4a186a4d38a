/**
 * Uploads (data-flow.md 6, Teable's `attachments/*` routes): a signature names a new file of a base
 * and answers where to `PUT` its bytes (a presigned S3 URL: large files never pass through a
 * Lambda); the bytes go there (or, up to the request size limit, through `PUT /attachments/upload/
 * {token}`); `notify` confirms the upload from what the bucket holds (real size, type read from the
 * bytes, an image's size); from then on attachment cells of that base may name the token.
 */
import { randomBytes } from 'node:crypto';
import { config } from '#shared/config.ts';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '#shared/core/errors.ts';
import type { TransactOp } from '#shared/db/commit.ts';
import {
  type ConfirmedFacts,
  confirmUpload,
  putPendingAttachment,
  putReadyAttachment,
  readAttachment,
  type StoredAttachment,
  TOKEN_PATTERN,
} from '#shared/entities/attachments.ts';
import { thumbnailSizesFor } from '#shared/fields/kinds/attachment.ts';
import { purgeJobOp, purgeQueue } from '#shared/jobs/purge-queue.ts';
import { downloadUrl } from '#shared/storage/download.ts';
import { deleteObjects, headObject, objectHead, presignUpload, putObject } from '#shared/storage/objects.ts';
import { HEAD_BYTES, sniff } from './sniff.ts';

/** Teable's upload kinds (`UploadType`): the folder a file is kept in. */
const KIND_FOLDERS: Record<number, string> = {
  1: 'table',
  2: 'avatar',
  3: 'form',
  4: 'oauth',
  5: 'import',
  6: 'plugin',
  7: 'comment',
  8: 'logo',
  9: 'export',
  10: 'template',
  11: 'chat',
  12: 'app',
  13: 'chat',
  14: 'automation',
};

/** Seconds a signature is valid by default, and at most. */
export const SIGNATURE_SECONDS = { default: 3600, max: 86_400 } as const;

const tooLarge = (size: number) =>
  new PayloadTooLargeError(
    `The file is ${size} bytes; the limit is ${config.attachmentMaxBytes} bytes (${Math.floor(config.attachmentMaxBytes / 1048576)} MB)`,
  );

const notConfigured = () => {
  if (!config.attachmentsBucket)
    throw new NotFoundError('Attachments are not configured on this server (no ATTACHMENTS_BUCKET)');
};

export interface SignatureRequest {
  contentType: string;
  contentLength: number;
  expiresIn?: number;
  type: number;
  /** Left out (as Teable's web app does): the upload is its uploader's, usable in any base they may write to. */
  baseId?: string;
}

/** `POST /attachments/signature`: a new token (of `baseId`, or of no base yet) and where to upload its bytes. */
export const signUpload = async (userId: string, request: SignatureRequest, now = new Date()) => {
  notConfigured();
  if (request.contentLength > config.attachmentMaxBytes) throw tooLarge(request.contentLength);
  if (request.contentLength <= 0) throw new ValidationError('Invalid body.contentLength: the file is empty');
  const token = randomBytes(24).toString('base64url');
  const path = `${KIND_FOLDERS[request.type] ?? 'table'}/${token}`;
  await putPendingAttachment(
    {
      token,
      state: 'pending',
      path,
      userId,
      ...(request.baseId ? { baseId: request.baseId } : {}),
      mimetype: request.contentType,
      size: request.contentLength,
      createdTime: now.toISOString(),
    },
    now,
  );
  const expiresIn = Math.min(request.expiresIn ?? SIGNATURE_SECONDS.default, SIGNATURE_SECONDS.max);
  // the SDK signs an empty type as application/octet-stream: the caller must send what was signed
  const uploadType = request.contentType || 'application/octet-stream';
  return {
    url: await presignUpload(path, uploadType, request.contentLength, expiresIn),
    uploadMethod: 'PUT',
    token,
    requestHeaders: { 'Content-Type': uploadType },
  };
};

/** The upload of a token, if the caller signed it (anyone else learns nothing: 404). */
const ownUpload = async (userId: string, token: string): Promise<StoredAttachment> => {
  const attachment = await uploadOf(token);
  if (!attachment || attachment.userId !== userId) throw new NotFoundError(`Upload ${token} not found`);
  return attachment;
};

/** The upload of a token; none for a token of another form (no read). */
const uploadOf = (token: string): Promise<StoredAttachment | undefined> => {
  notConfigured();
  return TOKEN_PATTERN.test(token) ? readAttachment(token) : Promise.resolve(undefined);
};

/**
 * What a file of `size` bytes is, from its first bytes and its declared type (`sniff`), or the
 * error that refuses it: over the limit, empty, or bytes that are not the declared type. `words`
 * name the file in the messages.
 */
const contentOf = async (
  size: number,
  head: () => Promise<Uint8Array>,
  declared: string,
  words: { file: string; bytes: string },
): Promise<{ facts: { mimetype: string; width?: number; height?: number } } | { error: Error }> => {
  if (size > config.attachmentMaxBytes) return { error: tooLarge(size) };
  if (size === 0) return { error: new ValidationError(`${words.file} is empty`) };
  const sniffed = await sniff(await head(), declared);
  if (!sniffed.ok)
    return {
      error: new ValidationError(
        `${words.bytes} are ${sniffed.detected ?? 'text or an unknown format'}, not the declared ${sniffed.declared}`,
      ),
    };
  const { ok: _, ...facts } = sniffed;
  return { facts };
};

/** `PUT /attachments/upload/{token}`: the bytes of a signed upload, through the API (small files). */
export const uploadThroughApi = async (userId: string, token: string, bytes: Uint8Array): Promise<void> => {
  const attachment = await ownUpload(userId, token);
  if (attachment.state === 'ready') throw new ValidationError(`Upload ${token} is already confirmed`);
  if (bytes.length > config.attachmentMaxBytes) throw tooLarge(bytes.length);
  if (bytes.length === 0) throw new ValidationError('The file is empty');
  await putObject(attachment.path, bytes, attachment.mimetype, bytes.length);
};

/** The notify answer of Teable's client (`notifyVoSchema`). */
const notifyAnswer = (a: StoredAttachment) => ({
  token: a.token,
  size: a.size,
  url: `/${config.attachmentsBucket}/${a.path}`,
  path: a.path,
  mimetype: a.mimetype,
  ...(a.width === undefined ? {} : { width: a.width }),
  ...(a.height === undefined ? {} : { height: a.height }),
  presignedUrl: downloadUrl(a.path, a.name) ?? '',
});

/**
 * `POST /attachments/notify/{token}`: confirms an upload from what the bucket holds. Nothing there
 * is a 400; over the limit a 413, empty or bytes that are not the declared type a 400 — each
 * removes the object (the token may not be used). Repeated, it answers the same.
 */
export const notifyUpload = async (userId: string, token: string, filename?: string) => {
  const attachment = await ownUpload(userId, token);
  if (attachment.state === 'ready') return notifyAnswer(attachment);
  const head = await headObject(attachment.path);
  if (!head)
    throw new ValidationError(
      `Nothing was uploaded for ${token}: upload the file to the signature's url first`,
    );
  const content = await contentOf(
    head.size,
    () => objectHead(attachment.path, Math.min(HEAD_BYTES, head.size)),
    attachment.mimetype,
    { file: 'The uploaded file', bytes: 'The uploaded bytes' },
  );
  if ('error' in content) {
    await deleteObjects([attachment.path]);
    throw content.error;
  }
  const facts: ConfirmedFacts = {
    size: head.size,
    ...content.facts,
    ...(filename === undefined ? {} : { name: filename }),
  };
  const now = new Date();
  const thumbnails = thumbnailJob(attachment, facts, now);
  const confirmed = await confirmUpload(attachment, facts, now, thumbnails.ops);
  await thumbnails.send();
  return notifyAnswer(confirmed);
};

/**
 * The thumbnails job of a file just confirmed, if it is an image that needs any: its durable item
 * (to join the confirming transaction) and the message to send once that committed.
 */
const thumbnailJob = (
  file: { token: string; userId: string; baseId?: string },
  facts: { mimetype: string; height?: number },
  now: Date,
): { ops: TransactOp[]; send: () => Promise<void> } => {
  if (!thumbnailSizesFor(facts).length) return { ops: [], send: async () => {} };
  const job = { kind: 'thumbnails', resourceId: file.token } as const;
  return {
    ops: [purgeJobOp(job, { userId: file.userId, ...(file.baseId ? { baseId: file.baseId } : {}) }, now)],
    // no grace delay (that is for permanent deletes): the thumbnails are wanted now
    send: async () => (await purgeQueue()).send(job),
  };
};

/** A confirmed upload by token (the caller's right to it is checked by the route), or 404. */
export const confirmedAttachment = async (token: string): Promise<StoredAttachment> => {
  const attachment = await uploadOf(token);
  if (attachment?.state !== 'ready') throw new NotFoundError(`Attachment ${token} not found`);
  return attachment;
};

/** `GET /attachments/{token}`: where to download it (a short-lived URL). */
export const downloadLocation = (attachment: StoredAttachment, filename?: string): string =>
  downloadUrl(attachment.path, filename ?? attachment.name) ?? '';

/**
 * Stores a file the service received itself (`uploadAttachment`: a form's file, or the bytes at a
 * `fileUrl`) as a confirmed upload of `baseId`, with the same checks as notify. Answers its token.
 */
export const storeReceivedFile = async (
  userId: string,
  baseId: string,
  file: { bytes: Uint8Array; mimeType: string; filename: string },
  now = new Date(),
): Promise<string> => {
  notConfigured();
  const content = await contentOf(
    file.bytes.length,
    async () => file.bytes.subarray(0, HEAD_BYTES),
    file.mimeType,
    { file: 'The file', bytes: "The file's bytes" },
  );
  if ('error' in content) throw content.error;
  const { facts } = content;
  const token = randomBytes(24).toString('base64url');
  const path = `table/${token}`;
  await putObject(path, file.bytes, facts.mimetype, file.bytes.length);
  const thumbnails = thumbnailJob({ token, userId, baseId }, facts, now);
  await putReadyAttachment(
    {
      token,
      state: 'ready',
      path,
      userId,
      baseId,
      size: file.bytes.length,
      name: file.filename,
      createdTime: now.toISOString(),
      ...facts,
    },
    now,
    thumbnails.ops,
  );
  await thumbnails.send();
  return token;
};
