/**
 * The release list: one entry per time a ready file came to be held by no cell
 * (`FREL#<shard>` `<due time>#<token>`), so the purge worker's sweep finds the files due without
 * scanning (`attachments/release.ts`). The entry only says where to look: the file's own item
 * (`releaseAfter`, `entities/attachments.ts`) decides; an entry whose file was taken again, or
 * marked again later, is dropped when the sweep reaches it. Spread over a few partitions by token,
 * so a purge that lets many files go at once writes to several.
 */

import { NotFoundError } from '#shared/core/errors.ts';
import { deleteItems, type Item, queryBetween, type TransactOp, updateItem } from '#shared/db/client.ts';
import { EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { text } from './attributes.ts';

/** Partitions of the release list. */
export const RELEASE_SHARDS = 8;

/** The shard of a token: a sum of its characters (tokens are random). Pure. */
export const shardOf = (token: string): number => {
  let sum = 0;
  for (let i = 0; i < token.length; i++) sum = (sum + token.charCodeAt(i)) % 65_536;
  return sum % RELEASE_SHARDS;
};

/** An entry of the release list. */
export interface FileRelease {
  token: string;
  /** The file's object in the bucket (its thumbnails beside it). */
  path: string;
  /** When it is due (the file's `releaseAfter` when the entry was written). */
  dueTime: string;
  /** The file's item is gone; its objects are still to delete. */
  itemRemoved: boolean;
}

const releaseOf = (item: Item): FileRelease => ({
  token: text(item.token),
  path: text(item.path),
  dueTime: text(item.dueTime),
  itemRemoved: item.itemRemoved === true,
});

/** The entry of a file due at `dueTime`, to join the transaction that marks the file. Pure. */
export const fileReleaseOp = (dueTime: string, token: string, path: string): TransactOp => ({
  put: { ...keys.fileRelease(shardOf(token), dueTime, token), type: 'fileRelease', token, path, dueTime },
});

/** Entries due by `now` in every shard, oldest first, at most `limit` a shard. */
export const releasesDue = async (now: Date, limit = 100): Promise<FileRelease[]> => {
  const to = `${now.toISOString()}#~`;
  const pages = await Promise.all(
    Array.from({ length: RELEASE_SHARDS }, (_, shard) =>
      queryBetween({ pk: keys.fileReleasesOf(shard).pk, to, limit }),
    ),
  );
  return pages.flatMap((page) => page.items.map(releaseOf));
};

/** Notes on an entry that its file's item is gone (its objects are what is left). */
export const noteItemRemoved = async (release: FileRelease): Promise<void> => {
  await updateItem(
    {
      key: keys.fileRelease(shardOf(release.token), release.dueTime, release.token),
      update: 'SET itemRemoved = :yes',
      condition: EXISTS,
      values: { ':yes': true },
    },
    () => new NotFoundError('entry gone'),
    'NONE',
  ).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
};

/** Drops entries the sweep is done with. */
export const dropReleases = async (releases: readonly FileRelease[]): Promise<void> =>
  deleteItems(releases.map((r) => keys.fileRelease(shardOf(r.token), r.dueTime, r.token)));
