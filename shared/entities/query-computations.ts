import { gunzipSync, gzipSync } from 'node:zlib';
import { ConflictError } from '#shared/core/errors.ts';
import { getItems, type Item, queryAll, type UpdateSpec, updateItem, writeItems } from '#shared/db/client.ts';
import { EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, isMap, optionalText, text } from './attributes.ts';
import type { RecordPart } from './records.ts';

/**
 * A listing order handed to the worker (`listing/order-computation.ts`): a query whose first page
 * could not be computed inside a request. Its item (`QORDER#<tbl>` `<hash>#C`, beside the kept
 * order it will become) says what to compute (the resolved query, the view, the caller and the
 * moment for "Me" and relative dates), at which data versions (`signature`), and which segments
 * of the table are done; a pointer (`QCOMPWANT`) lets the worker find it. Each segment's records
 * that pass the filter, with the attributes the order reads, are kept gzipped in parts of at most
 * `PART_BYTES` (`<hash>#R<run>#<segment>#<attempt>#<part>`), so a run stopped anywhere goes on
 * where it stopped and reads each record once. A new ask (after writes moved the versions) starts
 * a new `run`: the parts of an older run are never read again and expire with their hour.
 */
export interface QueryComputation {
  tableId: string;
  hash: string;
  /** Changes whenever the computation starts again; every part and condition names it. */
  run: string;
  /** The data versions it computes at (`listing/kept-orders.ts` `signatureOf`). */
  signature: string;
  viewId: string;
  /** The resolved query (`Query`), as JSON. */
  query: string;
  userId: string;
  /** The moment relative dates are taken at (ISO). */
  now: string;
  /** How many ranges the table is read in (`records/rows.ts` `recordSlices`), and how many make a segment. */
  ranges: number;
  perSegment: number;
  /** Per segment done: the attempt whose parts hold it. */
  done: Record<string, string>;
  requestedTime: string;
  startedTime?: string;
  leaseUntil?: number;
  /**
   * Computed at `signature`, but its header is too large to keep (very many groups:
   * `query-orders.ts` `MAX_HEADER_BYTES`): while those versions hold, the query cannot be answered.
   */
  unkeepable?: true;
}

/** How long an ask, its parts and its pointer live. */
export const COMPUTATION_TTL_SECONDS = 3_600;
/** How long a table's "slow" mark lives (then a request tries again itself). */
const SLOW_TTL_SECONDS = 3_600;
/** The largest part of a segment (DynamoDB items hold 400 KB). */
export const PART_BYTES = 350_000;

const expiry = (now: number, seconds: number) => Math.floor(now / 1000) + seconds;

const computationOf = (item: Item): QueryComputation => ({
  tableId: text(item.tableId),
  hash: text(item.hash),
  run: text(item.run),
  signature: text(item.signature),
  viewId: text(item.viewId),
  query: text(item.query),
  userId: text(item.userId),
  now: text(item.now),
  ranges: count(item.ranges),
  perSegment: count(item.perSegment),
  done: isMap(item.done)
    ? (Object.fromEntries(Object.entries(item.done).map(([k, v]) => [k, text(v)])) as Record<string, string>)
    : {},
  requestedTime: text(item.requestedTime),
  ...(optionalText(item.startedTime) ? { startedTime: text(item.startedTime) } : {}),
  ...(typeof item.leaseUntil === 'number' ? { leaseUntil: item.leaseUntil } : {}),
  ...(item.unkeepable === true ? { unkeepable: true as const } : {}),
});

const isLive = (item: Item | undefined, now: number): item is Item =>
  item !== undefined && count(item.expiresAt) > Math.floor(now / 1000);

/**
 * A query's computation, if one was asked for within the hour, and the table size at which the
 * table's listings ran out of time in a request: one read, sent beside the kept order's.
 */
export const readComputation = async (
  tableId: string,
  hash: string,
  now = Date.now(),
): Promise<{ computation?: QueryComputation; slowAt?: number }> => {
  const stateKey = keys.queryComputation(tableId, hash);
  const slowKey = keys.slowListings(tableId);
  const found = await getItems([stateKey, slowKey]);
  const state = found.get(stateKey);
  const slow = found.get(slowKey);
  return {
    ...(isLive(state, now) ? { computation: computationOf(state) } : {}),
    ...(isLive(slow, now) ? { slowAt: count(slow.records) } : {}),
  };
};

/**
 * Asks the worker to compute a query's order (the latest ask replaces an earlier one, which its
 * worker then finds gone at its next step), and notes, when given, the table size at which a
 * request ran out of time.
 */
export const askForComputation = async (
  computation: Omit<QueryComputation, 'done' | 'startedTime' | 'leaseUntil'>,
  slowAt?: number,
  now = Date.now(),
): Promise<void> => {
  const expiresAt = expiry(now, COMPUTATION_TTL_SECONDS);
  const { tableId, hash } = computation;
  await writeItems([
    {
      put: {
        ...keys.queryComputation(tableId, hash),
        type: 'queryComputation',
        ...computation,
        done: {},
        expiresAt,
      },
    },
    {
      put: {
        ...keys.queryComputationWant(tableId, hash),
        type: 'queryComputationWant',
        tableId,
        hash,
        expiresAt,
      },
    },
    ...(slowAt === undefined
      ? []
      : [
          {
            put: {
              ...keys.slowListings(tableId),
              type: 'slowListings',
              records: slowAt,
              expiresAt: expiry(now, SLOW_TTL_SECONDS),
            },
          },
        ]),
  ]);
};

/** The computations asked for (the worker's list): table and hash. */
export const readComputationWants = async (): Promise<{ tableId: string; hash: string }[]> =>
  (await queryAll(keys.queryComputationWants())).map((item) => ({
    tableId: text(item.tableId),
    hash: text(item.hash),
  }));

/** Reads one computation (the worker, before each step), if it is still asked for. */
export const readComputationState = async (tableId: string, hash: string, now = Date.now()) =>
  (await readComputation(tableId, hash, now)).computation;

const sameRun = (run: string) => ({ condition: 'run = :run', values: { ':run': run } });

/** Applies an update of a computation's item on its condition: false when the condition failed. */
const updatedIf = async (spec: UpdateSpec): Promise<boolean> => {
  try {
    await updateItem(spec, () => new ConflictError('condition failed'), 'NONE');
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
};

/**
 * Takes a computation for `leaseMs` (no other worker steps it meanwhile): false when another
 * holds it or it was asked again (a new run).
 */
export const claimComputation = (c: QueryComputation, leaseMs: number, now = Date.now()): Promise<boolean> =>
  updatedIf({
    key: keys.queryComputation(c.tableId, c.hash),
    update: 'SET leaseUntil = :lease, startedTime = if_not_exists(startedTime, :started)',
    condition: 'run = :run AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
    values: { ':run': c.run, ':lease': now + leaseMs, ':now': now, ':started': new Date(now).toISOString() },
  });

/**
 * Notes that a computation's order was computed but cannot be kept (its header too large), on the
 * condition of its run: false when it was asked again meanwhile.
 */
export const markUnkeepable = (c: QueryComputation): Promise<boolean> =>
  updatedIf({
    key: keys.queryComputation(c.tableId, c.hash),
    update: 'SET unkeepable = :yes REMOVE leaseUntil',
    ...sameRun(c.run),
    values: { ...sameRun(c.run).values, ':yes': true },
  });

/** Lets another run step a computation at once (a run that stopped at its deadline). */
export const releaseComputation = async (tableId: string, hash: string): Promise<void> => {
  await updatedIf({
    key: keys.queryComputation(tableId, hash),
    update: 'REMOVE leaseUntil',
    condition: EXISTS,
  });
};

/** Starts a computation again at newer data versions (writes came during it): false when asked again meanwhile. */
export const restartComputation = (
  c: QueryComputation,
  run: string,
  signature: string,
  now = Date.now(),
): Promise<boolean> =>
  updatedIf({
    key: keys.queryComputation(c.tableId, c.hash),
    update: 'SET run = :new, signature = :sig, done = :none, startedTime = :started, expiresAt = :exp',
    ...sameRun(c.run),
    values: {
      ...sameRun(c.run).values,
      ':new': run,
      ':sig': signature,
      ':none': {},
      ':started': new Date(now).toISOString(),
      ':exp': expiry(now, COMPUTATION_TTL_SECONDS),
    },
  });

/**
 * Keeps one segment's records (gzipped JSON in parts) and then notes the segment done under
 * `attempt`: false when the computation was asked again meanwhile (its parts are then left to
 * expire). Parts of an attempt that never got noted are never read.
 */
export const keepSegment = async (
  c: QueryComputation,
  segment: number,
  attempt: string,
  records: readonly RecordPart[],
  now = Date.now(),
): Promise<boolean> => {
  const packed = gzipSync(JSON.stringify(records));
  const expiresAt = expiry(now, COMPUTATION_TTL_SECONDS);
  const parts: { put: Item }[] = [];
  for (let at = 0, n = 0; at < packed.length || n === 0; at += PART_BYTES, n++)
    parts.push({
      put: {
        ...keys.queryComputationPart(c.tableId, c.hash, c.run, segment, attempt, n),
        type: 'queryComputationPart',
        data: packed.subarray(at, at + PART_BYTES),
        expiresAt,
      },
    });
  await writeItems(parts);
  return updatedIf({
    key: keys.queryComputation(c.tableId, c.hash),
    update: 'SET done.#s = :attempt',
    names: { '#s': String(segment) },
    ...sameRun(c.run),
    values: { ...sameRun(c.run).values, ':attempt': attempt },
  });
};

/** Every record the done segments of a computation's run kept, segment after segment. */
export const readSegments = async (c: QueryComputation): Promise<RecordPart[]> => {
  const items = await queryAll(keys.queryComputationParts(c.tableId, c.hash, c.run));
  const bySegment = new Map<number, Buffer[]>();
  const prefix = keys.queryComputationParts(c.tableId, c.hash, c.run).skPrefix;
  for (const item of items) {
    const { segment: n, attempt } = keys.queryComputationPartOf(text(item.sk), prefix);
    if (c.done[String(n)] !== attempt) continue;
    const parts = bySegment.get(n) ?? [];
    parts.push(Buffer.from(item.data as Uint8Array));
    bySegment.set(n, parts);
  }
  const out: RecordPart[] = [];
  for (const n of [...bySegment.keys()].sort((a, b) => a - b))
    for (const record of JSON.parse(
      gunzipSync(Buffer.concat(bySegment.get(n) ?? [])).toString('utf8'),
    ) as RecordPart[])
      out.push(record);
  return out;
};

/** Ends a computation: its item and pointer deleted (its parts expire with their hour). */
export const dropComputation = async (tableId: string, hash: string): Promise<void> =>
  writeItems([
    { delete: keys.queryComputation(tableId, hash) },
    { delete: keys.queryComputationWant(tableId, hash) },
  ]);

/** Drops a pointer whose computation is gone (expired, or its table deleted). */
export const dropComputationWant = async (tableId: string, hash: string): Promise<void> =>
  writeItems([{ delete: keys.queryComputationWant(tableId, hash) }]);
