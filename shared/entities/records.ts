import { type HttpError, ServiceUnavailableError } from '#shared/core/errors.ts';
import {
  getItems,
  type Item,
  queryAll,
  queryBetween,
  type TransactOp,
  updateItem,
} from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { noteRead, writeStamps } from '#shared/db/request-scope.ts';
import type { StoredCell, UserRef } from '#shared/fields/field-types.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';
import { count, text } from './attributes.ts';
import { type Loaded, type Lookup, lookupOf, valueReadEarlier } from './batch-read.ts';

/**
 * A record (`RECORDS#<tbl>` `<rec>`): the envelope (`id`, `autoNumber`, times, `cb`/`mb` creator
 * and last editor, `version` for ETags and `ord`, the record's keys in views' manual orders) and
 * one attribute per non-empty cell, named by field id (field ids never clash with envelope names).
 * Its default-order entry (`RECNUM#<tbl>`) is `recordNumberItem`.
 */
export type RecordItem = Item & RecordEnvelope;

interface RecordEnvelope {
  id: string;
  autoNumber: number;
  createdTime: string;
  lastModifiedTime: string;
  cb: UserRef;
  mb: UserRef;
  version: number;
  ord?: Record<string, string>;
}

/**
 * A record read with only some attributes (a projection): its id, and whichever envelope
 * attributes and cells were asked for.
 */
export type RecordPart = Item & { id: string } & Partial<Omit<RecordEnvelope, 'id'>>;

/** What places a record in the views' orders: its id, autoNumber (the default order) and own keys. */
export type RecordOrder = Pick<RecordItem, 'id' | 'autoNumber' | 'ord'>;

/** The order attributes of a record read with them (`id`, `autoNumber`, `ord` in the projection). */
export const recordOrderOf = (record: RecordPart): RecordOrder => ({
  id: record.id,
  autoNumber: count(record.autoNumber),
  ...(record.ord ? { ord: record.ord } : {}),
});

/** The envelope attributes of a record item, to add to a projection that renders records. */
export const RECORD_ENVELOPE = [
  'id',
  'autoNumber',
  'createdTime',
  'lastModifiedTime',
  'cb',
  'mb',
  'version',
  'ord',
] as const;

export const recordKey = (tableId: string, recordId: string): Key => keys.record(tableId, recordId);

/** The table of a record item (any image of one, as a stream hands it over); undefined for any other item. */
export const tableOfRecordItem = (item: Readonly<Record<string, unknown>>): string | undefined => {
  if (item.type !== 'record' || typeof item.pk !== 'string' || typeof item.sk !== 'string') return undefined;
  return keys.tableOfRecordKey({ pk: item.pk, sk: item.sk });
};

/** The current request's id as a record's `tx` stamp (none outside a request). */
export const txStamp = (): { tx?: string } => {
  const { tx } = writeStamps();
  return tx === undefined ? {} : { tx };
};

/**
 * A record written by propagation alone (the other side of a link, a lookup elsewhere, a renamed
 * choice): stamped `txp`, so the change log marks all its changes computed, `by`, the user whose
 * request caused it, and `at`, the time of the write (the change log's `occurredAt`: such a write
 * leaves the record's `lastModifiedTime` as it was, nobody having edited it) — also outside a
 * request (a worker's recompute), as the write's time is known there too. Pure but for the stamps.
 */
export const propagatedStamp = (
  at: string = new Date().toISOString(),
): { tx?: string; by?: string; txp: true; at: string } => {
  const { by } = writeStamps();
  return { ...txStamp(), ...(by === undefined ? {} : { by }), txp: true, at };
};

/** A check that a record is at `version`, or, with undefined, that there is no such record. */
export const recordAtVersionCheck = (
  tableId: string,
  recordId: string,
  version: number | undefined,
): TransactOp =>
  version === undefined
    ? { check: recordKey(tableId, recordId), condition: NOT_EXISTS }
    : { check: recordKey(tableId, recordId), condition: 'version = :v', values: { ':v': version } };

const isUserRef = (v: unknown): v is UserRef =>
  typeof v === 'object' && v !== null && typeof (v as UserRef).id === 'string';

const userRefOf = (v: unknown): UserRef => (isUserRef(v) ? v : { id: '', title: '', email: '' });

const isOrd = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Set);

/**
 * The record stored in a whole item. The item itself when its envelope is sound (records are
 * read by the thousand: no copy); else a copy where a missing or mistyped envelope attribute
 * reads its default. Cells are the item's other attributes, as stored.
 */
export const recordOf = (item: Item): RecordItem => {
  if (
    typeof item.id === 'string' &&
    typeof item.autoNumber === 'number' &&
    typeof item.version === 'number' &&
    typeof item.createdTime === 'string' &&
    typeof item.lastModifiedTime === 'string' &&
    isUserRef(item.cb) &&
    isUserRef(item.mb) &&
    (item.ord === undefined || isOrd(item.ord))
  )
    return item as RecordItem;
  const { ord, ...rest } = item;
  return {
    ...rest,
    id: text(item.id),
    autoNumber: count(item.autoNumber),
    createdTime: text(item.createdTime),
    lastModifiedTime: text(item.lastModifiedTime),
    cb: userRefOf(item.cb),
    mb: userRefOf(item.mb),
    version: count(item.version) || 1,
    ...(isOrd(ord) ? { ord } : {}),
  };
};

/** A record read with a projection: the item itself when its id is there, else with id `''`. */
export const recordPartOf = (item: Item): RecordPart =>
  typeof item.id === 'string' ? (item as RecordPart) : { ...item, id: text(item.id) };

/** A record's stored cell of a (non-system) field; `undefined` when empty. */
export const storedCell = (record: RecordPart, fieldId: string): StoredCell | undefined => {
  const v = record[fieldId];
  return isEmptyCell(v) ? undefined : (v as StoredCell);
};

/**
 * The record as it will be stored once `cells` are written (an empty cell leaves the item) and
 * the envelope attributes in `envelope` changed. Pure.
 */
export const withCells = (
  record: RecordItem,
  cells: ReadonlyMap<string, StoredCell | undefined>,
  envelope: Partial<Pick<RecordItem, 'lastModifiedTime' | 'mb'>> = {},
): RecordItem => {
  const next: RecordItem = { ...record, ...envelope };
  for (const [fieldId, value] of cells) {
    if (isEmptyCell(value)) delete next[fieldId];
    else next[fieldId] = value;
  }
  return next;
};

/** A projection that holds the record's id (what a `RecordPart` is keyed by). */
const withId = (attributes: readonly string[]): string[] =>
  attributes.includes('id') ? [...attributes] : [...attributes, 'id'];

/** Records of a table by id, keyed by id (absent ones left out): whole. */
export const getRecords = async (
  tableId: string,
  ids: readonly string[],
): Promise<Map<string, RecordItem>> => {
  const found = await getItems(ids.map((id) => recordKey(tableId, id)));
  const out = new Map<string, RecordItem>();
  for (const id of ids) {
    const item = found.get(recordKey(tableId, id));
    if (item) out.set(id, recordOf(item));
  }
  return out;
};

/** Records of a table by id, keyed by id (absent ones left out), with only `attributes`. */
export const getRecordParts = async (
  tableId: string,
  ids: readonly string[],
  attributes: readonly string[],
): Promise<Map<string, RecordPart>> => {
  const found = await getItems(
    ids.map((id) => recordKey(tableId, id)),
    withId(attributes),
  );
  const out = new Map<string, RecordPart>();
  for (const id of ids) {
    const item = found.get(recordKey(tableId, id));
    if (item) out.set(id, recordPartOf(item));
  }
  return out;
};

/** The lookup of a whole record, for a batch read with other items (a handler's `preload`). Pure. */
export const recordLookup = (tableId: string, recordId: string): Lookup<RecordItem> =>
  lookupOf(recordKey(tableId, recordId), recordOf);

/** The record a batch read with other items found (its `recordLookup`), if it was found. */
export const recordIn = (loaded: Loaded, tableId: string, recordId: string): RecordItem | undefined =>
  loaded.valueFor(recordLookup(tableId, recordId));

/**
 * Keeps records of a table this request read (by `ids`; an id `records` lacks was not found) for
 * its later readers (`recordReadEarlier`): a page's link titles then read none of them again.
 */
export const keepRecordsForRequest = (
  tableId: string,
  ids: readonly string[],
  records: ReadonlyMap<string, RecordPart>,
): void => noteRead(ids.map((id) => [recordKey(tableId, id), records.get(id)]));

/** A record this request read earlier (`keepRecordsForRequest`), as read; no read of its own. */
export const recordReadEarlier = (tableId: string, recordId: string): RecordPart | undefined =>
  valueReadEarlier(lookupOf(recordKey(tableId, recordId), recordPartOf));

/** Every record of a table, whole. */
export const queryRecords = async (tableId: string): Promise<RecordItem[]> =>
  (await queryAll(keys.recordsOf(tableId))).map(recordOf);

/** Every record of a table with only `attributes` (the id always). */
export const queryRecordParts = async (
  tableId: string,
  attributes: readonly string[],
): Promise<RecordPart[]> =>
  (
    await queryAll({
      ...keys.recordsOf(tableId),
      projection: withId(attributes),
    })
  ).map(recordPartOf);

/** The stored item of a new record. Pure. */
export const newRecordItem = (
  tableId: string,
  input: {
    id: string;
    autoNumber: number;
    cells: ReadonlyMap<string, StoredCell | undefined>;
    user: UserRef;
    now: string;
  },
): RecordItem => {
  const item: RecordItem = {
    ...recordKey(tableId, input.id),
    type: 'record',
    id: input.id,
    autoNumber: input.autoNumber,
    createdTime: input.now,
    lastModifiedTime: input.now,
    cb: input.user,
    mb: input.user,
    version: 1,
    // the request that wrote it (its changes in the change log share this txId); the actor is `cb`
    ...txStamp(),
  };
  for (const [fieldId, value] of input.cells) if (!isEmptyCell(value)) item[fieldId] = value;
  return item;
};

/**
 * The default-order index entry of a record; `pv` lists the views where the record has a place of
 * its own (there it leaves the default order). Pure.
 */
export const recordNumberItem = (
  tableId: string,
  autoNumber: number,
  recordId: string,
  ord?: Record<string, string>,
): Item => ({
  ...keys.recordNumber(tableId, autoNumber),
  type: 'recordNumber',
  recordId,
  ...(ord && Object.keys(ord).length ? { pv: new Set(Object.keys(ord)) } : {}),
});

/** The operation that puts a record's default-order entry (`recordNumberItem`). Pure. */
export const putRecordNumberOp = (
  tableId: string,
  autoNumber: number,
  recordId: string,
  ord?: Record<string, string>,
): TransactOp => ({ put: recordNumberItem(tableId, autoNumber, recordId, ord) });

/** The operation that deletes a record's default-order entry. Pure. */
export const deleteRecordNumberOp = (tableId: string, autoNumber: number): TransactOp => ({
  delete: keys.recordNumber(tableId, autoNumber),
});

/**
 * Rewrites one cell of a record on the condition that it still holds `before` (an empty `after`
 * removes it), stamped as propagated (`stamp`, from `propagatedStamp`): the version (ETag) moves,
 * `lastModifiedTime` does not. A cell written meanwhile becomes `onChanged()`.
 */
export const rewriteCellIfUnchanged = async (
  tableId: string,
  recordId: string,
  fieldId: string,
  cell: { before: unknown; after: unknown },
  stamp: { tx?: string; by?: string; at?: string },
  onChanged: () => HttpError,
): Promise<void> => {
  const { before, after } = cell;
  await updateItem(
    {
      key: recordKey(tableId, recordId),
      // a renamed or removed choice: the change log marks the rewrite computed (txp)
      update: `SET ${after === undefined ? '' : '#f = :after, '}txp = :txp${stamp.tx === undefined ? '' : ', tx = :tx'}${stamp.by === undefined ? '' : ', #by = :by'}${stamp.at === undefined ? '' : ', #at = :at'}${after === undefined ? ' REMOVE #f' : ''} ADD version :one`,
      condition: '#f = :before',
      names: {
        '#f': fieldId,
        ...(stamp.by === undefined ? {} : { '#by': 'by' }),
        ...(stamp.at === undefined ? {} : { '#at': 'at' }),
      },
      values: {
        ':before': before,
        ':one': 1,
        ':txp': true,
        ...(stamp.tx === undefined ? {} : { ':tx': stamp.tx }),
        ...(stamp.by === undefined ? {} : { ':by': stamp.by }),
        ...(stamp.at === undefined ? {} : { ':at': stamp.at }),
        ...(after === undefined ? {} : { ':after': after }),
      },
    },
    onChanged,
    'NONE',
  );
};

/**
 * The records of a table whose ids lie in each sort-key range (`from`..`to`, both inclusive,
 * either may be absent), with only `attributes`, the ranges read at once (one query each).
 */
export const recordPartsInRanges = async (
  tableId: string,
  attributes: readonly string[],
  ranges: readonly { from?: string; to?: string }[],
): Promise<RecordPart[]> => {
  const pk = keys.recordsOf(tableId).pk;
  const parts = await Promise.all(
    ranges.map((range) => queryBetween({ pk, ...range, projection: attributes })),
  );
  return parts.flatMap((p) => p.items.map(recordPartOf));
};

/** How many throttled or timed-out reads in a row (none served between), past one per reader of the pool, fail a table's read. */
const RANGE_TRIES = 8;

/**
 * Reads a table's records over `ranges` (contiguous sort-key ranges of its records partition),
 * `inFlight` ranges at a time, with only `attributes`, handing each range's records to `onRange`
 * once the range is read whole, so the caller keeps only what it needs of them. No page is asked
 * for after `until` (epoch ms), and none after a range failed; at `until` it answers without
 * waiting for pages in flight. A range the database throttles or times out on (a 503 after the
 * SDK's retries) is tried again later and its reader leaves the pool while others remain (the
 * last one waits, longer each time): the read slows to what the database serves rather than
 * failing, and fails after `RANGE_TRIES` such answers in a row past one per reader. Answers
 * whether every range was read (and handed over).
 */
export const readRecordRanges = async (input: {
  tableId: string;
  attributes: readonly string[];
  ranges: readonly { from?: string; to?: string }[];
  inFlight: number;
  until?: number;
  onRange: (index: number, records: RecordPart[]) => void | Promise<void>;
}): Promise<{ complete: boolean }> => {
  const pk = keys.recordsOf(input.tableId).pk;
  const pending = input.ranges.map((_, i) => i);
  const workers = Math.max(1, Math.min(input.inFlight, input.ranges.length));
  let failuresInARow = 0;
  let stopped = false;
  let running = 0;
  const worker = async () => {
    running++;
    try {
      while (!stopped) {
        const index = pending.shift();
        if (index === undefined) return;
        if (input.until !== undefined && Date.now() >= input.until) {
          stopped = true;
          return;
        }
        let page: Awaited<ReturnType<typeof queryBetween>>;
        try {
          page = await queryBetween({
            pk,
            ...input.ranges[index],
            projection: withId(input.attributes),
            ...(input.until === undefined ? {} : { until: input.until }),
          });
        } catch (error) {
          // throttled or timed out after the SDK's own retries: the range waits for a later try
          // and the pool shrinks by this worker while others run (fewer requests in flight)
          const n = ++failuresInARow;
          if (!(error instanceof ServiceUnavailableError) || stopped || n > workers + RANGE_TRIES) {
            stopped = true;
            throw error;
          }
          pending.push(index);
          if (running > 1) return;
          await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** n)));
          continue;
        }
        failuresInARow = 0;
        if (page.lastKey) stopped = true;
        else if (!stopped) await input.onRange(index, page.items.map(recordPartOf));
      }
    } finally {
      running--;
    }
  };
  const all = Promise.all(Array.from({ length: workers }, worker));
  if (input.until === undefined) {
    await all;
    return { complete: !stopped };
  }
  // at `until` the read is over, pages still in flight or not: they are left to end unread
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, (input.until as number) - Date.now()));
  });
  try {
    if ((await Promise.race([all, late])) === 'late') {
      stopped = true;
      all.catch(() => undefined);
      return { complete: false };
    }
    return { complete: !stopped };
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Records of any tables by table and id, whole, read in one batch: each pair's record, or
 * undefined where there is none (in the order asked).
 */
export const recordsByRefs = async (
  refs: readonly (readonly [tableId: string, recordId: string])[],
): Promise<(RecordItem | undefined)[]> => {
  const found = await getItems(refs.map(([t, id]) => recordKey(t, id)));
  return refs.map(([t, id]) => {
    const item = found.get(recordKey(t, id));
    return item ? recordOf(item) : undefined;
  });
};

/**
 * The record an item answered by a write holds (`commitSteps` answers the item of a one-update
 * write), when it is the item of `recordId`; undefined for any other item.
 */
export const recordWritten = (item: Item, tableId: string, recordId: string): RecordItem | undefined => {
  const key = recordKey(tableId, recordId);
  return item.pk === key.pk && item.sk === key.sk ? recordOf(item) : undefined;
};

/** A written record's change: its cells (an empty cell leaves the item), who and when, its new `ord`. */
export interface CellsChange {
  cells: ReadonlyMap<string, StoredCell | undefined>;
  by: UserRef;
  at: string;
  /** Its complete `ord` map after a placement, when it moves. */
  ord?: Record<string, string>;
}

/**
 * The operation that writes a record's cells and nothing else of it (a concurrent write to other
 * cells survives; the same cell: last write wins), with its envelope moved on: version, time,
 * editor, the request's id (and no propagation mark left from an earlier write). The record must
 * be there; with `atVersion`, still at the version read (an If-Match, or a write whose index
 * entries were worked out from it). Pure.
 */
export const updateCellsOp = (
  tableId: string,
  record: Pick<RecordItem, 'id' | 'version' | 'ord'>,
  change: CellsChange,
  atVersion: boolean,
): TransactOp => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':one': 1, ':now': change.at, ':mb': change.by };
  const sets = ['version = version + :one', 'lastModifiedTime = :now', 'mb = :mb'];
  const { tx } = txStamp();
  if (tx !== undefined) {
    sets.push('tx = :tx');
    values[':tx'] = tx;
  }
  const removes: string[] = ['txp'];
  let i = 0;
  for (const [fieldId, value] of change.cells) {
    names[`#f${i}`] = fieldId;
    if (isEmptyCell(value)) removes.push(`#f${i}`);
    else {
      values[`:f${i}`] = value;
      sets.push(`#f${i} = :f${i}`);
    }
    i++;
  }
  if (change.ord && !record.ord) {
    // `ord` does not exist yet: set the whole map instead of paths into it.
    sets.push('ord = :ord');
    values[':ord'] = change.ord;
  } else if (change.ord) {
    for (const [viewId, key] of Object.entries(change.ord)) {
      names[`#o${i}`] = viewId;
      values[`:o${i}`] = key;
      sets.push(`ord.#o${i} = :o${i}`);
      i++;
    }
  }
  if (atVersion) values[':v'] = record.version;
  return {
    update: {
      key: keys.record(tableId, record.id),
      update: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
      condition: atVersion ? 'version = :v' : EXISTS,
      names: Object.keys(names).length ? names : undefined,
      values,
    },
  };
};

/**
 * The operation that puts a record as given: a new record (ids are 16 random base62 characters,
 * so it takes no condition and can be batched), or the undo that puts back a record as read. Pure.
 */
export const putRecordOp = (record: RecordItem): TransactOp => ({ put: record });

/**
 * The operation that writes a record as propagation changed it (another record's write changed
 * its links or computed cells) at `at` (the time of the write that caused it), on the condition
 * that it is still at the version read; the change log reads the mark and calls its changes
 * computed. Pure but for the stamps.
 */
export const propagatedRecordOp = (
  record: RecordItem,
  original: Pick<RecordItem, 'version'>,
  at: string,
): TransactOp => ({
  put: { ...record, version: original.version + 1, ...propagatedStamp(at) },
  condition: 'version = :v',
  values: { ':v': original.version },
});

/**
 * The operation that deletes a record: only at `version` when given, else one that is there;
 * `unguarded` deletes it whatever it holds (the undo of a create). Pure.
 */
export const deleteRecordOp = (
  tableId: string,
  recordId: string,
  version?: number | 'unguarded',
): TransactOp => {
  const key = keys.record(tableId, recordId);
  if (version === 'unguarded') return { delete: key };
  return version === undefined
    ? { delete: key, condition: EXISTS }
    : { delete: key, condition: 'version = :v', values: { ':v': version } };
};

/** A condition a placement adds to a record's update: its view key as read. */
export interface OrderGuard {
  condition: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * The guard on a record a placement re-keys: its key in the view is still the one the plan was
 * made from (and its `ord` map still absent when the update sets it whole). A concurrent move of
 * the same record makes the write fail, so a record never keeps two order entries. Pure.
 */
export const orderGuardOf = (record: Pick<RecordItem, 'ord'>, viewId: string): OrderGuard => {
  if (!record.ord) return { condition: 'attribute_not_exists(ord)', names: {}, values: {} };
  const old = record.ord[viewId];
  return old === undefined
    ? { condition: 'attribute_not_exists(ord.#pv)', names: { '#pv': viewId }, values: {} }
    : { condition: 'ord.#pv = :pv', names: { '#pv': viewId }, values: { ':pv': old } };
};

/**
 * A record's update with a placement's guard added (AND) to its own condition, or to the record
 * being there when it has none: the update lands only while the record's key in the view is the
 * one the placement was planned from. Undefined for an operation that is not an update. Pure.
 */
export const withOrderGuard = (op: TransactOp, guard: OrderGuard): TransactOp | undefined => {
  if (!('update' in op)) return undefined;
  const spec = op.update;
  const names = { ...spec.names, ...guard.names };
  return {
    update: {
      ...spec,
      condition: `(${spec.condition ?? EXISTS}) AND ${guard.condition}`,
      names: Object.keys(names).length ? names : undefined,
      values: { ...(spec.values ?? {}), ...guard.values },
    },
  };
};

/**
 * The operation that gives a record that is there a new key in a view's manual order, guarded by
 * its key as read (`orderGuardOf`), and the operation that puts the old key back while the new one
 * is still there (its undo). Nothing else of the record changes. Pure.
 */
export const rekeyRecordOps = (
  tableId: string,
  record: { id: string; ord?: Record<string, string> },
  view: string,
  key: string,
): { op: TransactOp; undo: TransactOp } => {
  const guard = orderGuardOf(record, view);
  const old = record.ord?.[view];
  const recordKeyOf = keys.record(tableId, record.id);
  return {
    op: {
      update: {
        key: recordKeyOf,
        update: record.ord ? 'SET ord.#v = :k' : 'SET ord = :ord',
        condition: `${EXISTS} AND ${guard.condition}`,
        names: record.ord ? { ...guard.names, '#v': view } : undefined,
        values: {
          ...guard.values,
          ...(record.ord ? { ':k': key } : { ':ord': { ...(record.ord ?? {}), [view]: key } }),
        },
      },
    },
    undo: {
      update: {
        key: recordKeyOf,
        update: old === undefined ? 'REMOVE ord.#v' : 'SET ord.#v = :old',
        condition: 'ord.#v = :k',
        names: { '#v': view },
        values: { ':k': key, ...(old === undefined ? {} : { ':old': old }) },
      },
    },
  };
};
