/**
 * The change feed of a base (data-flow.md 3): `GET /base/{baseId}/changes`, read from the base's
 * change log. A cursor is opaque to callers: it names the last `seq` a page examined, so filters
 * (`tableId`, `types`) never make a page read the same entries again.
 */
import { GoneError, ValidationError } from '#shared/core/errors.ts';
import {
  CHANGE_TYPES,
  type ChangeEntry,
  type ChangeType,
  changesAfter,
  headSeqOf,
  oldestRetainedSeq,
} from '#shared/entities/change-log.ts';

/** Entries a page answers at most, and by default. */
export const FEED_LIMIT = { max: 1000, default: 100 } as const;

const CURSOR_PREFIX = 'c1.';

/** The cursor after `seq`. Pure. */
export const cursorOf = (seq: number): string =>
  `${CURSOR_PREFIX}${Buffer.from(String(seq)).toString('base64url')}`;

/** The `seq` a cursor names; a 400 when it does not parse. Pure. */
export const seqOfCursor = (cursor: string): number => {
  const seq = cursor.startsWith(CURSOR_PREFIX)
    ? Number(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString())
    : Number.NaN;
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new ValidationError('Invalid query.cursor: not a cursor of this feed', [
      { path: 'query.cursor', message: 'not a cursor of this feed' },
    ]);
  return seq;
};

/** The entry types of a `types` query (comma-separated); a 400 naming an unknown one. Pure. */
export const typesOf = (types: string | undefined): ReadonlySet<ChangeType> | undefined => {
  if (types === undefined || types.trim() === '') return undefined;
  const list = types.split(',').map((t) => t.trim());
  const unknown = list.filter((t) => !CHANGE_TYPES.includes(t as ChangeType));
  if (unknown.length)
    throw new ValidationError(`Invalid query.types: unknown type ${unknown[0]}`, [
      { path: 'query.types', message: `unknown type ${unknown[0]} (one of ${CHANGE_TYPES.join(', ')})` },
    ]);
  return new Set(list as ChangeType[]);
};

export interface FeedQuery {
  cursor?: string;
  limit?: number;
  tableId?: string;
  types?: string;
}

/** One page of a base's feed: `{changes, cursor, hasMore}`. */
export const changeFeedPage = async (baseId: string, query: FeedQuery, now = new Date()) => {
  const limit = query.limit ?? FEED_LIMIT.default;
  const types = typesOf(query.types);
  if (query.cursor === 'latest')
    return { changes: [], cursor: cursorOf(await headSeqOf(baseId)), hasMore: false };
  // the head and the oldest entry kept, read side by side
  const [head, oldest] = await Promise.all([headSeqOf(baseId), oldestRetainedSeq(baseId, now)]);
  let after = query.cursor === undefined ? 0 : seqOfCursor(query.cursor);
  if (after > head)
    throw new ValidationError('Invalid query.cursor: ahead of this base’s feed', [
      { path: 'query.cursor', message: 'ahead of this base’s feed' },
    ]);
  if (query.cursor !== undefined && oldest !== undefined && after + 1 < oldest)
    throw new GoneError(
      'cursor_expired',
      `The cursor is older than the feed keeps (its oldest entry is seq ${oldest}); start again without a cursor`,
    );
  if (query.cursor === undefined && oldest !== undefined) after = oldest - 1;
  const changes: ChangeEntry[] = [];
  const nowSeconds = Math.floor(now.getTime() / 1000);
  while (changes.length < limit && after < head) {
    // unfiltered, a page reads what it answers; filtered, more at a time (some are left out)
    const filtered = query.tableId !== undefined || types !== undefined;
    const batch = await changesAfter(
      baseId,
      after,
      filtered ? Math.min(FEED_LIMIT.max, Math.max(limit * 2, 100)) : limit - changes.length,
    );
    if (!batch.length) break;
    for (const entry of batch) {
      after = entry.seq;
      if (entry.expiresAt !== undefined && entry.expiresAt <= nowSeconds) continue;
      if (query.tableId !== undefined && entry.tableId !== query.tableId) continue;
      if (types && !types.has(entry.type)) continue;
      const { expiresAt: _, ...shown } = entry;
      changes.push(shown);
      if (changes.length === limit) break;
    }
  }
  return { changes, cursor: cursorOf(after), hasMore: after < head };
};
