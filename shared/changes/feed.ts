/**
 * The change feed of a base (data-flow.md 3): `GET /base/{baseId}/changes`, read from the base's
 * change log. A cursor is opaque to callers: it names the last `seq` a page examined, so filters
 * (`tableId`, `types`) never make a page read the same entries again.
 */
import { opaqueCursor } from '#shared/core/cursors.ts';
import { GoneError, ValidationError } from '#shared/core/errors.ts';
import {
  CHANGE_TYPES,
  type ChangeEntry,
  type ChangeType,
  changesAfter,
  headSeqOf,
  oldestRetainedSeq,
  type StoredChange,
} from '#shared/entities/change-log.ts';

/** Entries a page answers at most, and by default. */
export const FEED_LIMIT = { max: 1000, default: 100 } as const;

const FEED_CURSOR = opaqueCursor('c1.', 'this feed', (position) => /^\d{1,15}$/.test(position));

/** The cursor after `seq`. Pure. */
export const cursorOf = (seq: number): string => FEED_CURSOR.encode(String(seq));

/** The `seq` a cursor names; a 400 when it does not parse. Pure. */
export const seqOfCursor = (cursor: string): number => Number(FEED_CURSOR.decode(cursor));

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

/**
 * One page of a base's feed: `{changes, cursor, hasMore}`. One read in the usual case: from the
 * cursor's own entry (there and kept, it shows the cursor is neither expired nor ahead of the log)
 * through one more than the page answers (there, `hasMore`). Only when the cursor's entry is not
 * there are the head and the oldest entry kept read, to tell an expired cursor (410) from one
 * ahead of the log (400) or a log that is empty. `readable` leaves out what the caller may not
 * read (`entryReader` of auth/entry-visibility.ts).
 */
export const changeFeedPage = async (
  baseId: string,
  query: FeedQuery,
  readable: (entry: ChangeEntry) => boolean = () => true,
  now = new Date(),
) => {
  const limit = query.limit ?? FEED_LIMIT.default;
  const types = typesOf(query.types);
  if (query.cursor === 'latest')
    return { changes: [], cursor: cursorOf(await headSeqOf(baseId)), hasMore: false };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const kept = (e: StoredChange) => e.expiresAt === undefined || e.expiresAt > nowSeconds;
  const filtered = query.tableId !== undefined || types !== undefined;
  // unfiltered, a page reads one more than it answers; filtered, more at a time (some are left out)
  const step = filtered ? Math.min(FEED_LIMIT.max, Math.max(limit * 2, 100)) : limit + 1;
  const cursorSeq = query.cursor === undefined ? undefined : seqOfCursor(query.cursor);
  let after = cursorSeq ?? 0;
  const from = Math.max(0, after - 1);
  let batch = await changesAfter(baseId, from, step + 1);
  let more = batch.length === step + 1;
  if (cursorSeq !== undefined) {
    const first = batch.find(kept);
    if (!first || first.seq > cursorSeq + 1) await checkCursor(baseId, cursorSeq, now);
  }
  const changes: ChangeEntry[] = [];
  let hasMore = false;
  for (;;) {
    let i = 0;
    for (; i < batch.length && changes.length < limit; i++) {
      const entry = batch[i] as StoredChange;
      if (entry.seq <= after) continue;
      after = entry.seq;
      if (!kept(entry)) continue;
      if (query.tableId !== undefined && entry.tableId !== query.tableId) continue;
      if (types && !types.has(entry.type)) continue;
      if (!readable(entry)) continue;
      const { expiresAt: _, ...shown } = entry;
      changes.push(shown);
    }
    if (changes.length === limit) {
      hasMore = i < batch.length || more;
      break;
    }
    if (!more) break;
    batch = await changesAfter(baseId, after, step);
    more = batch.length === step;
    if (!batch.length) break;
  }
  return { changes, cursor: cursorOf(after), hasMore };
};

/** A cursor whose entry is gone: a 400 when it is ahead of the log, a 410 when it expired. */
const checkCursor = async (baseId: string, cursorSeq: number, now: Date): Promise<void> => {
  const [head, oldest] = await Promise.all([headSeqOf(baseId), oldestRetainedSeq(baseId, now)]);
  if (cursorSeq > head)
    throw new ValidationError('Invalid query.cursor: ahead of this base’s feed', [
      { path: 'query.cursor', message: 'ahead of this base’s feed' },
    ]);
  if (oldest !== undefined && cursorSeq + 1 < oldest)
    throw new GoneError(
      'cursor_expired',
      `The cursor is older than the feed keeps (its oldest entry is seq ${oldest}); start again without a cursor`,
    );
};
