/**
 * Attachments (data-flow.md 6): one item per uploaded file (`ATT#<token>` `ATT`), from the moment
 * its upload is signed (`pending`, kept a day unless notified) to the moment its upload is
 * confirmed (`ready`: the real size, the type read from its bytes, an image's width and height).
 * The token is the file's name in the bucket's `<kind>/<token>` and the only way to reach it:
 * 32 random characters, never listed. The uploader may always reach their file; once it belongs
 * to a base (named at the signature, or by the first cell that holds it), so may whoever may read
 * that base.
 */
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import { applyOne, getItem, getItems, type Item, updateItem } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import type { AttachmentFacts } from '#shared/fields/types.ts';
import { count, optionalText, text } from './attributes.ts';

export type AttachmentState = 'pending' | 'ready';

export interface StoredAttachment {
  token: string;
  state: AttachmentState;
  /** The object's key in the bucket (`table/<token>`). */
  path: string;
  /** Who signed the upload. */
  userId: string;
  /** The base the file belongs to, once it does. */
  baseId?: string;
  /** What the uploader declared (pending) or what the bytes are (ready). */
  mimetype: string;
  /** The declared length (pending) or the stored object's (ready). */
  size: number;
  /** The file's name, when notified with one. */
  name?: string;
  width?: number;
  height?: number;
  createdTime: string;
}

/** How long a signed upload waits for its notify before TTL removes its item (the object: the bucket's lifecycle). */
export const PENDING_SECONDS = 86_400;

const number = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** The attachment stored in an item. Pure. */
export const attachmentOf = (item: Item): StoredAttachment => {
  const baseId = optionalText(item.baseId);
  const name = optionalText(item.name);
  const width = number(item.width);
  const height = number(item.height);
  return {
    token: text(item.token),
    state: item.state === 'ready' ? 'ready' : 'pending',
    path: text(item.path),
    userId: text(item.userId),
    ...(baseId === undefined ? {} : { baseId }),
    mimetype: text(item.mimetype),
    size: count(item.size),
    ...(name === undefined ? {} : { name }),
    ...(width === undefined ? {} : { width }),
    ...(height === undefined ? {} : { height }),
    createdTime: text(item.createdTime),
  };
};

/** Records a signed upload (`pending`); its token is new, so nothing is there. */
export const putPendingAttachment = async (attachment: StoredAttachment, now: Date): Promise<void> => {
  await applyOne(
    {
      put: {
        ...keys.attachment(attachment.token),
        type: 'attachment',
        ...attachment,
        expiresAt: Math.floor(now.getTime() / 1000) + PENDING_SECONDS,
      },
      condition: NOT_EXISTS,
    },
    () => new ConflictError('An upload with this token exists; ask for a new signature'),
  );
};

/** The attachment of a token, or undefined. */
export const readAttachment = async (token: string): Promise<StoredAttachment | undefined> => {
  const item = await getItem(keys.attachment(token));
  return item ? attachmentOf(item) : undefined;
};

/**
 * Marks an upload confirmed with what its bytes are (idempotent: a second notify writes the same);
 * it then stays until the purge releases it.
 */
export const markAttachmentReady = async (
  token: string,
  facts: { size: number; mimetype: string; name?: string; width?: number; height?: number },
): Promise<StoredAttachment> => {
  const sets = ['#s = :ready', 'size = :size', 'mimetype = :mime'];
  const values: Record<string, unknown> = { ':ready': 'ready', ':size': facts.size, ':mime': facts.mimetype };
  const names: Record<string, string> = { '#s': 'state' };
  if (facts.name !== undefined) {
    sets.push('#n = :name');
    names['#n'] = 'name';
    values[':name'] = facts.name;
  }
  for (const dimension of ['width', 'height'] as const) {
    const value = facts[dimension];
    if (value === undefined) continue;
    sets.push(`${dimension} = :${dimension}`);
    values[`:${dimension}`] = value;
  }
  const item = await updateItem(
    {
      key: keys.attachment(token),
      update: `SET ${sets.join(', ')} REMOVE expiresAt`,
      condition: EXISTS,
      names,
      values,
    },
    () => new NotFoundError(`Attachment ${token} not found`),
  );
  return attachmentOf(item);
};

/**
 * The confirmed uploads of a base among `tokens` (one batch read), as attachment cells take them:
 * a token not uploaded, not yet notified or of another base is not there.
 */
export const attachmentFactsFor = async (
  tokens: readonly string[],
  baseId: string,
): Promise<Map<string, AttachmentFacts>> => {
  const out = new Map<string, AttachmentFacts>();
  const unique = [...new Set(tokens)].filter((t) => TOKEN_PATTERN.test(t));
  if (!unique.length) return out;
  const found = await getItems(unique.map((t) => keys.attachment(t)));
  for (const token of unique) {
    const item = found.get(keys.attachment(token));
    if (!item) continue;
    const a = attachmentOf(item);
    if (a.state !== 'ready' || a.baseId !== baseId) continue;
    out.set(token, {
      token,
      path: a.path,
      size: a.size,
      mimetype: a.mimetype,
      ...(a.name === undefined ? {} : { name: a.name }),
      ...(a.width === undefined ? {} : { width: a.width }),
      ...(a.height === undefined ? {} : { height: a.height }),
    });
  }
  return out;
};

/** A token's form (32 base64url characters): anything else names no upload, without a read. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** Records a file stored by the service itself (`uploadAttachment`): ready at once, its token new. */
export const putReadyAttachment = async (attachment: StoredAttachment): Promise<void> => {
  await applyOne(
    {
      put: { ...keys.attachment(attachment.token), type: 'attachment', ...attachment },
      condition: NOT_EXISTS,
    },
    () => new ConflictError('An upload with this token exists; try again'),
  );
};

/**
 * The object of an upload whose item, as a stream hands it over, was still pending (signed, never
 * confirmed): what remains to remove once the item is gone. Undefined for any other item. Pure.
 */
export const abandonedUploadPath = (image: Readonly<Record<string, unknown>>): string | undefined =>
  image.type === 'attachment' &&
  image.state === 'pending' &&
  typeof image.path === 'string' &&
  image.path !== ''
    ? image.path
    : undefined;
