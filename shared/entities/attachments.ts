/**
 * Attachments (data-flow.md 6): one item per uploaded file (`ATT#<token>` `ATT`), from the moment
 * its upload is signed (`pending`, kept a day unless notified) to the moment its upload is
 * confirmed (`ready`: the real size, the type read from its bytes, an image's width and height,
 * later the thumbnails made of it). A ready file that no cell holds carries `releaseAfter`: a day
 * after its upload or after the last cell let it go, the purge worker's sweep releases it
 * (`attachments/release.ts`); a cell that takes it again clears the mark.
 * The token is the file's name in the bucket's `<kind>/<token>` and the only way to reach it:
 * 32 random characters, never listed. The uploader may always reach their file; once it belongs
 * to a base (named at the signature, or by the first cell that holds it), so may whoever may read
 * that base.
 */
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import {
  applyOne,
  getItem,
  getItems,
  type Item,
  type TransactOp,
  transact,
  updateItem,
} from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import type { AttachmentFacts } from '#shared/fields/field-types.ts';
import { THUMBNAIL_SIZES, type ThumbnailSize } from '#shared/fields/kinds/attachment.ts';
import { isReferencedIn } from './attachment-references.ts';
import { count, optionalText, text } from './attributes.ts';
import { fileReleaseOp } from './file-releases.ts';

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
  /** The thumbnails made of an image (none yet, or none possible: `[]`). */
  thumbnails?: ThumbnailSize[];
  /** When a ready file no cell holds is released (ISO); absent while a cell holds it. */
  releaseAfter?: string;
  createdTime: string;
}

/** How long a ready file no cell holds is kept: a day (an undo, a cell written later, a stream that lags). */
export const RELEASE_GRACE_MS = 86_400_000;
/** A file this close to its release is no longer handed to new cells (its mark could not be cleared in time). */
export const RELEASE_MARGIN_MS = 300_000;

/** When a file no cell holds from `now` on is released. Pure. */
export const releaseTimeFrom = (now: Date): string =>
  new Date(now.getTime() + RELEASE_GRACE_MS).toISOString();

/** How long a signed upload waits for its notify before TTL removes its item (the object: the bucket's lifecycle). */
export const PENDING_SECONDS = 86_400;

const number = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** The attachment stored in an item. Pure. */
export const attachmentOf = (item: Item): StoredAttachment => {
  const baseId = optionalText(item.baseId);
  const name = optionalText(item.name);
  const width = number(item.width);
  const height = number(item.height);
  const releaseAfter = optionalText(item.releaseAfter);
  const made = item.thumbnails;
  const thumbnails = Array.isArray(made) ? THUMBNAIL_SIZES.filter((s) => made.includes(s)) : undefined;
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
    ...(thumbnails === undefined ? {} : { thumbnails }),
    ...(releaseAfter === undefined ? {} : { releaseAfter }),
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

/** What notify learned of an upload's bytes. */
export interface ConfirmedFacts {
  size: number;
  mimetype: string;
  name?: string;
  width?: number;
  height?: number;
}

/**
 * The operations that confirm a pending upload with what its bytes are, and start its release
 * clock (no cell holds it yet): to join a transaction. Its condition fails when the upload is gone
 * or no longer pending (a notify that came first). Answers the confirmed upload as it will be. Pure.
 */
export const confirmUploadOps = (
  pending: StoredAttachment,
  facts: ConfirmedFacts,
  now: Date,
): { ops: TransactOp[]; confirmed: StoredAttachment } => {
  const releaseAfter = releaseTimeFrom(now);
  const sets = ['#s = :ready', 'size = :size', 'mimetype = :mime', 'releaseAfter = :release'];
  const values: Record<string, unknown> = {
    ':ready': 'ready',
    ':pending': 'pending',
    ':size': facts.size,
    ':mime': facts.mimetype,
    ':release': releaseAfter,
  };
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
  const update: TransactOp = {
    update: {
      key: keys.attachment(pending.token),
      update: `SET ${sets.join(', ')} REMOVE expiresAt`,
      condition: and(EXISTS, '#s = :pending'),
      names,
      values,
    },
  };
  return {
    ops: [update, fileReleaseOp(releaseAfter, pending.token, pending.path)],
    confirmed: { ...pending, ...facts, state: 'ready', releaseAfter },
  };
};

/** Confirms a pending upload (`confirmUploadOps`) with `more` operations in the same transaction. */
export const confirmUpload = async (
  pending: StoredAttachment,
  facts: ConfirmedFacts,
  now: Date,
  more: readonly TransactOp[] = [],
): Promise<StoredAttachment> => {
  const { ops, confirmed } = confirmUploadOps(pending, facts, now);
  await transact(
    [...ops, ...more],
    () => new ConflictError(`Upload ${pending.token} was confirmed or removed meanwhile`),
  );
  return confirmed;
};

/** Where files are being written: the table's base, its table, and the writer. */
export interface CellTarget {
  baseId: string;
  tableId: string;
  userId: string;
}

/**
 * Whether a ready file may go into a cell of `target`: a file of that base; a file its writer
 * uploaded (an upload signed without a base is its uploader's, usable in any base they may write
 * to); or a file of no base that a record of the same table holds already (a duplicate, a paste
 * by someone else: one read of its references).
 */
const mayHold = async (a: StoredAttachment, target: CellTarget): Promise<boolean> => {
  if (a.baseId === target.baseId || a.userId === target.userId) return true;
  return a.baseId === undefined && isReferencedIn(a.token, target.tableId);
};

/**
 * The confirmed uploads among `tokens` that cells of `target` may take (one batch read, see
 * `mayHold`): a token not uploaded, not yet notified, of another base or minutes from its
 * release is not there.
 */
export const attachmentFactsFor = async (
  tokens: readonly string[],
  target: CellTarget,
  now = new Date(),
): Promise<Map<string, AttachmentFacts>> => {
  const out = new Map<string, AttachmentFacts>();
  const unique = [...new Set(tokens)].filter((t) => TOKEN_PATTERN.test(t));
  if (!unique.length) return out;
  const found = await getItems(unique.map((t) => keys.attachment(t)));
  for (const token of unique) {
    const item = found.get(keys.attachment(token));
    if (!item) continue;
    const a = attachmentOf(item);
    if (a.state !== 'ready' || !(await mayHold(a, target))) continue;
    // about to be released: the stream could not clear its mark before the sweep comes
    if (a.releaseAfter !== undefined && Date.parse(a.releaseAfter) - now.getTime() < RELEASE_MARGIN_MS)
      continue;
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

/**
 * Records a file stored by the service itself (`uploadAttachment`): ready at once, its token new,
 * its release clock started (the cell that takes it clears it), with `more` operations in the same
 * transaction.
 */
export const putReadyAttachment = async (
  attachment: StoredAttachment,
  now: Date,
  more: readonly TransactOp[] = [],
): Promise<void> => {
  const releaseAfter = releaseTimeFrom(now);
  await transact(
    [
      {
        put: { ...keys.attachment(attachment.token), type: 'attachment', ...attachment, releaseAfter },
        condition: NOT_EXISTS,
      },
      fileReleaseOp(releaseAfter, attachment.token, attachment.path),
      ...more,
    ],
    () => new ConflictError('An upload with this token exists; try again'),
  );
};

/** Records the thumbnails made of an image (`[]`: none could be made); nothing when the file is gone. */
export const markThumbnails = async (token: string, made: readonly ThumbnailSize[]): Promise<void> => {
  await updateItem(
    {
      key: keys.attachment(token),
      update: 'SET thumbnails = :made',
      condition: EXISTS,
      values: { ':made': [...made] },
    },
    () => new NotFoundError(`Attachment ${token} not found`),
    'NONE',
  ).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
};

/** The thumbnails made so far of images by token (one batch read; tokens of no file are left out). */
export const thumbnailsOf = async (tokens: readonly string[]): Promise<Map<string, ThumbnailSize[]>> => {
  const out = new Map<string, ThumbnailSize[]>();
  const unique = [...new Set(tokens)].filter((t) => TOKEN_PATTERN.test(t));
  if (!unique.length) return out;
  const found = await getItems(
    unique.map((t) => keys.attachment(t)),
    ['thumbnails'],
  );
  for (const token of unique) {
    const thumbnails = found.get(keys.attachment(token))?.thumbnails;
    if (Array.isArray(thumbnails))
      out.set(
        token,
        THUMBNAIL_SIZES.filter((s) => thumbnails.includes(s)),
      );
  }
  return out;
};

/**
 * Marks files as held by a cell again: their release mark goes (files without one, or gone, are
 * left as they are). One conditional update each, in parallel.
 */
export const markHeld = async (tokens: readonly string[]): Promise<void> => {
  await Promise.all(
    [...new Set(tokens)].map((token) =>
      updateItem(
        {
          key: keys.attachment(token),
          update: 'REMOVE releaseAfter',
          condition: 'attribute_exists(releaseAfter)',
        },
        () => new NotFoundError('not marked'),
        'NONE',
      ).catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
      }),
    ),
  );
};

/**
 * Marks a ready file as held by no cell from `now` on: released after the grace unless a cell
 * takes it again (the mark and its entry in the release list, in one transaction). Nothing for a
 * file gone or still pending (its own expiry applies).
 */
export const markReleasable = async (token: string, path: string, now: Date): Promise<void> => {
  const releaseAfter = releaseTimeFrom(now);
  await transact(
    [
      {
        update: {
          key: keys.attachment(token),
          update: 'SET releaseAfter = :release',
          condition: and(EXISTS, '#s = :ready'),
          names: { '#s': 'state' },
          values: { ':release': releaseAfter, ':ready': 'ready' },
        },
      },
      fileReleaseOp(releaseAfter, token, path),
    ],
    () => new NotFoundError('not a ready file'),
  ).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
};

/**
 * Removes a file's item if it is still due for release at `releaseAfter` (a cell that took it
 * since cleared or moved the mark): true when removed.
 */
export const removeReleasedAttachment = async (token: string, releaseAfter: string): Promise<boolean> => {
  try {
    await applyOne(
      {
        delete: keys.attachment(token),
        condition: 'releaseAfter = :release',
        values: { ':release': releaseAfter },
      },
      () => new NotFoundError('no longer due'),
    );
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
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
