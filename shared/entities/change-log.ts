/**
 * The change log of a base (data-flow.md 1): entries in `seq` order (`LOG#<bse>` `SEQ#…`), the
 * head that holds the last `seq` given (`LOG#<bse>` `HEAD`), and one marker per source event
 * (`LOGSRC#<source>`) naming the entry it became.
 *
 * Appending is one transaction per chunk: the head moves from the `seq` it was read at to the
 * last new one (conditional), each entry is put where nothing is, and each source's marker is put
 * where nothing is. So:
 * - `seq` has no gap a reader can see: entries and the head that covers them commit together;
 * - two writers of one base never give one `seq` twice: the second one's head condition fails and
 *   it reads the head again;
 * - a source handed over twice (a retried batch, a restarted processor) is written once: its marker
 *   is read before and checked inside the transaction.
 */
import { createHash } from 'node:crypto';
import { ConflictError } from '#shared/core/errors.ts';
import { getItem, getItems, type Item, queryRange, type TransactOp, transact } from '#shared/db/client.ts';
import { NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, isMap, optionalText, text } from './attributes.ts';

/** The kinds of change (data-flow.md 1). */
export const CHANGE_TYPES = [
  'record.created',
  'record.updated',
  'record.deleted',
  'field.created',
  'field.updated',
  'field.deleted',
  'table.created',
  'table.updated',
  'table.deleted',
  'view.created',
  'view.updated',
  'view.deleted',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** Who made a change: a user, or `{id: "system"}`. */
export interface ChangeActor {
  id: string;
  name?: string;
}

/** A change before it has its place in the log. `sourceId` names the event it comes from. */
export interface ChangeDraft {
  sourceId: string;
  type: ChangeType;
  baseId: string;
  tableId: string;
  recordId?: string;
  fieldId?: string;
  viewId?: string;
  actor: ChangeActor;
  occurredAt: string;
  txId: string;
  computed?: boolean;
  /** Field id → cell (`fieldKeyType=id` shape) before and after. */
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  /** The cells were too large to keep on the way (see `MAX_ENTRY_CELLS`). */
  cellsOmitted?: boolean;
}

/** An entry of the log, as the feed answers it (`cellsOmitted`: see `MAX_ENTRY_CELLS`). */
export type ChangeEntry = Omit<ChangeDraft, 'sourceId'> & { seq: number; id: string };

/** An entry as stored: with the moment (epoch seconds) it leaves the log. */
export type StoredChange = ChangeEntry & { expiresAt?: number };

/** Sources per transaction: the head, an entry and a marker each (at most 100 operations). */
export const APPEND_CHUNK = 49;
const APPEND_TRIES = 20;

/** The stable event id of a source: the same source always gives the same `evt…` id. Pure. */
export const eventIdOf = (sourceId: string): string => {
  const digest = createHash('sha256').update(sourceId).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let body = '';
  for (let i = 0; i < 16; i++) body += alphabet[(digest[i] as number) % 62];
  return `evt${body}`;
};

/** Epoch seconds at which an entry written at `now` leaves the log. Pure. */
export const expiryOf = (now: Date, retentionDays: number): number =>
  Math.floor(now.getTime() / 1000) + retentionDays * 86_400;

/**
 * Cells an entry carries at most, as JSON characters: an item holds 400 KB, and a record's cells
 * before and after may hold twice that. Past it the entry says what changed (its type, ids,
 * actor) with `cellsOmitted: true` instead of the cells; the record itself has them.
 */
export const MAX_ENTRY_CELLS = 300_000;

/** The stored item of an entry. Pure. */
export const changeEntryItem = (entry: ChangeEntry, expiresAt: number): Item => {
  const { type, ...whole } = entry;
  const tooLarge =
    entry.cellsOmitted === true ||
    JSON.stringify([entry.before ?? null, entry.after ?? null]).length > MAX_ENTRY_CELLS;
  const { before: _b, after: _a, ...withoutCells } = whole;
  const rest = tooLarge ? { ...withoutCells, cellsOmitted: true } : whole;
  const item: Item = {
    ...keys.changeEntry(entry.baseId, entry.seq),
    type: 'changeEntry',
    event: type,
    expiresAt,
  };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) item[k] = v;
  return item;
};

const isChangeType = (v: unknown): v is ChangeType => CHANGE_TYPES.includes(v as ChangeType);
/** The entry stored in an item. Pure. */
export const changeEntryOf = (item: Item): ChangeEntry => {
  const actor = isMap(item.actor) ? item.actor : {};
  const optional = (name: string) => optionalText(item[name]);
  const recordId = optional('recordId');
  const fieldId = optional('fieldId');
  const viewId = optional('viewId');
  return {
    seq: count(item.seq),
    id: text(item.id),
    type: isChangeType(item.event) ? item.event : 'record.updated',
    baseId: text(item.baseId),
    tableId: text(item.tableId),
    ...(recordId === undefined ? {} : { recordId }),
    ...(fieldId === undefined ? {} : { fieldId }),
    ...(viewId === undefined ? {} : { viewId }),
    actor: {
      id: text(actor.id),
      ...(typeof actor.name === 'string' ? { name: actor.name } : {}),
    },
    occurredAt: text(item.occurredAt),
    txId: text(item.txId),
    ...(item.computed === true ? { computed: true } : {}),
    ...(isMap(item.before) ? { before: item.before } : {}),
    ...(isMap(item.after) ? { after: item.after } : {}),
    ...(item.cellsOmitted === true ? { cellsOmitted: true } : {}),
  };
};

/** The operations that append `drafts` after `headSeq` in one transaction. Pure. */
export const appendOps = (
  baseId: string,
  headSeq: number,
  drafts: readonly ChangeDraft[],
  expiresAt: number,
): { ops: TransactOp[]; entries: ChangeEntry[] } => {
  const entries = drafts.map(
    ({ sourceId, ...draft }, i): ChangeEntry => ({
      ...draft,
      seq: headSeq + i + 1,
      id: eventIdOf(sourceId),
    }),
  );
  const last = headSeq + drafts.length;
  const head: TransactOp = {
    update: {
      key: keys.changeLogHead(baseId),
      update: 'SET seq = :last, #t = :t',
      condition: headSeq === 0 ? 'attribute_not_exists(seq) OR seq = :zero' : 'seq = :head',
      names: { '#t': 'type' },
      values: {
        ':last': last,
        ':t': 'changeLogHead',
        ...(headSeq === 0 ? { ':zero': 0 } : { ':head': headSeq }),
      },
    },
  };
  return {
    entries,
    ops: [
      head,
      ...entries.map(
        (entry): TransactOp => ({ put: changeEntryItem(entry, expiresAt), condition: NOT_EXISTS }),
      ),
      ...drafts.map(
        (draft, i): TransactOp => ({
          put: {
            ...keys.changeSource(draft.sourceId),
            type: 'changeSource',
            baseId,
            seq: headSeq + i + 1,
            expiresAt,
          },
          condition: NOT_EXISTS,
        }),
      ),
    ],
  };
};

/** The last `seq` of a base's log (0 when it has none). */
export const headSeqOf = async (baseId: string): Promise<number> =>
  count((await getItem(keys.changeLogHead(baseId)))?.seq);

class LogMovedError extends ConflictError {}

/**
 * Appends the drafts of one base in their order, skipping those whose source is already in the
 * log; answers the entries written now. Safe to run twice with the same drafts, and beside other
 * writers of the same base.
 */
export const appendChanges = async (
  baseId: string,
  drafts: readonly ChangeDraft[],
  expiresAt: number,
): Promise<ChangeEntry[]> => {
  const written: ChangeEntry[] = [];
  let rest = [...drafts];
  // the head as last read or written; sources are checked only once a transaction was refused
  // (a batch handed over again, or another writer): the common path is one transaction a chunk
  let head = await headSeqOf(baseId);
  let checkSources = false;
  for (let attempt = 0; rest.length; attempt++) {
    const chunk = rest.slice(0, APPEND_CHUNK);
    let fresh = chunk;
    if (checkSources) {
      const seen = await getItems(chunk.map((d) => keys.changeSource(d.sourceId)));
      fresh = chunk.filter((d) => !seen.get(keys.changeSource(d.sourceId)));
    }
    if (!fresh.length) {
      rest = rest.slice(chunk.length);
      continue;
    }
    const { ops, entries } = appendOps(baseId, head, fresh, expiresAt);
    try {
      await transact(ops, () => new LogMovedError('The change log moved meanwhile'));
      written.push(...entries);
      head += fresh.length;
      rest = rest.slice(chunk.length);
      attempt = -1;
    } catch (error) {
      // another writer moved the head, or one of these sources is written: read both again
      if (!(error instanceof LogMovedError) || attempt >= APPEND_TRIES) throw error;
      head = await headSeqOf(baseId);
      checkSources = true;
    }
  }
  return written;
};

/** Up to `limit` entries of a base's log after `afterSeq`, in `seq` order. */
export const changesAfter = async (
  baseId: string,
  afterSeq: number,
  limit: number,
): Promise<StoredChange[]> => {
  // the head (`HEAD`) sorts before every entry: a range above an entry holds entries only
  const items = await queryRange({
    pk: keys.changeLogOf(baseId).pk,
    above: keys.changeEntry(baseId, afterSeq).sk,
    limit,
  });
  return items.map((item) => {
    const entry: StoredChange = changeEntryOf(item);
    if (typeof item.expiresAt === 'number') entry.expiresAt = item.expiresAt;
    return entry;
  });
};

/**
 * A base's entries newest first, below `beforeSeq` (the newest without it), `limit` at most: an
 * undo looks for its request's entries among the latest.
 */
export const changesBefore = async (
  baseId: string,
  beforeSeq: number | undefined,
  limit: number,
): Promise<ChangeEntry[]> => {
  const items = await queryRange({
    pk: keys.changeLogOf(baseId).pk,
    below: keys.changeEntry(baseId, beforeSeq ?? 10 ** 12 - 1).sk,
    limit,
  });
  // below the first entry lies the head, which is no entry (it has no request id)
  return items.filter((item) => typeof item.txId === 'string').map(changeEntryOf);
};

/**
 * The `seq` of the oldest entry still kept (TTL removes entries some time after they expire: an
 * expired one still there does not count), or undefined when the log keeps none.
 */
export const oldestRetainedSeq = async (baseId: string, now: Date): Promise<number | undefined> => {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (let after = 0; ; ) {
    // the oldest entry is kept unless TTL has yet to remove expired ones: a small read first
    const page = await changesAfter(baseId, after, after === 0 ? 10 : 100);
    const kept = page.find((e) => e.expiresAt === undefined || e.expiresAt > nowSeconds);
    if (kept) return kept.seq;
    if (page.length < (after === 0 ? 10 : 100)) return undefined;
    after = page.at(-1)?.seq ?? after;
  }
};
