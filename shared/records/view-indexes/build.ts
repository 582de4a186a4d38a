/**
 * Building view indexes (`view-indexes.ts`): a listing that finds its view's index missing or
 * no longer exact asks for it (`entities/view-indexes.ts` `wantIndex`) and answers through the
 * general path meanwhile; the repair worker (every minute; locally every 30 s) builds what was
 * asked for.
 *
 * A build empties the view's indexes (this one's entries and group counts, and any left by its
 * earlier queries) and notes where it stands (`IndexBuild`: the table's data-version counters
 * then, and its progress). It then reads the records segment by segment (contiguous ranges of
 * record ids, about 20,000 records each, so memory stays bounded at any size) with the
 * attributes the view's query reads, puts the entries of those passing the filter and, for a
 * grouped view, adds each group tuple's count in transactions of up to 98 additions that also
 * move the noted progress on, on the condition of where it was: a build stopped anywhere (the
 * worker's time, a crash) resumes at the next run where it stopped, and applies each addition
 * once.
 *
 * Writes go on meanwhile. Every create, update and delete keeps the index's entries and counts
 * as it goes (`view-indexes.ts`), the build's part included, so what the build must get right is
 * its own part:
 * - An entry is put only for the record as it is: while the table is unwritten since the build
 *   began, a segment's entries are put plainly and the data version is read again after; a write
 *   that slipped in between the read and the puts has its records read again, and an entry put
 *   for a record since changed is deleted on the condition of the record's version. Once the
 *   table has been written, each entry is put in a transaction with a check of its record's
 *   version, and a record written since it was read is left to that write (which kept it).
 * - Group counts and the entry total are settled at the end when the table was written during the
 *   build (`settle.ts`), in moments without writes to what they count.
 * - A write that does not keep the index (a rename rewriting cells, a stale schema) moves the
 *   table's unmaintained-write count: a build that finds it moved since it began begins again.
 */
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { transact } from '#shared/db/commit.ts';
import { unmaintainedWrites } from '#shared/db/data-versions.ts';
import { getRecordParts, type RecordPart, recordAtVersionCheck } from '#shared/entities/records.ts';
import {
  deleteViewIndexes,
  type IndexEntry,
  putEntriesPlainly,
  putEntryOp,
  staleEntryDeleteOps,
  TALLY_SPLIT_EVERY,
  tallyIndexEntries,
  writeIndexSplits,
} from '#shared/entities/view-index-entries.ts';
import { type GroupCount, groupCountOp } from '#shared/entities/view-index-groups.ts';
import {
  advanceBuildOp,
  deleteIndexBuild,
  deleteIndexState,
  dropIndexWant,
  type IndexBuild,
  notePutting,
  readIndexBuild,
  readIndexState,
  readIndexWants,
  writeIndexBuild,
  writeIndexState,
} from '#shared/entities/view-indexes.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { readRecordsIn, recordSlices, slicesFor } from '../rows.ts';
import { type Counters, countersOf, SETTLE_MS, settle, settleInPieces, sleep } from './settle.ts';
import { type ViewIndex, viewIndexOf } from './upkeep.ts';

/**
 * What a build did: built it, found it exact already, met a write that did not keep it (begins
 * again), found no such index, or stopped part-way (out of time, or no pause in the writes for
 * its settle): it resumes at the next run.
 */
export type BuildOutcome = 'built' | 'current' | 'busy' | 'gone' | 'partial';

/** About how many records a build reads into memory at once. */
let segmentRecords = 20_000;
/** At most this many slices of the records partition (`recordSlices`). */
const MAX_SLICES = 256;
/** Group-count additions per transaction, with the progress update (a transaction holds 100). */
let chunkSize = 98;
/** Test seam: chunk transactions left before a build fails as if it crashed (undefined: never). */
let crashIn: number | undefined;
/** How many entries apart a build notes bounds that split an ungrouped index's reads. */
let splitEvery = TALLY_SPLIT_EVERY;
/** Test seam: runs after a segment's records are read, before its entries are put. */
let afterRead: (() => Promise<void>) | undefined;

/**
 * Test seam: builds in segments of about `records` records and chunks of `chunk` group counts,
 * fails (as a crash would) before the chunk transaction `crashAfter` + 1 of the next build,
 * notes split bounds every `splitEvery` entries, runs `afterRead` after each segment's read and
 * `beforeCount` in each settle between its first look and its count, given the grouped cells of
 * the tuple it counts (writes racing the build).
 */
export const buildInPieces = (
  options: {
    records?: number;
    chunk?: number;
    crashAfter?: number;
    afterRead?: () => Promise<void>;
    beforeCount?: (tuple?: Record<string, unknown>) => Promise<void>;
    splitEvery?: number;
  } = {},
) => {
  segmentRecords = options.records ?? 20_000;
  chunkSize = options.chunk ?? 98;
  crashIn = options.crashAfter;
  afterRead = options.afterRead;
  splitEvery = options.splitEvery ?? TALLY_SPLIT_EVERY;
  settleInPieces({ beforeCount: options.beforeCount, splitEvery });
};

const sameCounters = (a: Counters, b: Counters): boolean =>
  a.size === b.size && [...a].every(([name, value]) => b.get(name) === value);

/**
 * How a build of a table of about `records` records reads them: `segments` one after another,
 * each `perSegment` consecutive slices of `recordSlices(segments × perSegment)` read at once. Pure.
 */
export const segmentPlan = (records: number): { segments: number; perSegment: number } => {
  const segments = Math.max(1, Math.min(MAX_SLICES, Math.ceil(records / segmentRecords)));
  const perSegment = Math.max(
    1,
    Math.min(slicesFor(Math.ceil(records / segments)), Math.floor(MAX_SLICES / segments)),
  );
  return { segments, perSegment };
};

/** The view's index as the table's schema defines it now, or undefined (table, view or index gone). */
const currentIndex = async (
  tableId: string,
  viewId: string,
): Promise<{ index: ViewIndex; records: number } | undefined> => {
  try {
    const schema = await loadSchema(tableId);
    const view = schema.views.find((v) => v.id === viewId);
    const index = view && viewIndexOf(schema, view);
    return index && { index, records: schema.table.autoNumber };
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
};

/** The id ranges of a build's segment. */
const rangesOf = (build: IndexBuild, segment: number) =>
  recordSlices(build.segments * build.perSegment).slice(
    segment * build.perSegment,
    (segment + 1) * build.perSegment,
  );

/** A segment's records (with their versions), their entries and group tuples (in key order, each counted). */
const segmentOf = async (index: ViewIndex, build: IndexBuild, segment: number) => {
  const records = await readRecordsIn(
    index.tableId,
    [...index.attributes, 'version'],
    rangesOf(build, segment),
  );
  const entries = records.flatMap((record) => {
    const entry = index.entryOf(record);
    return entry ? [{ record, entry }] : [];
  });
  const groups = new Map<string, GroupCount>();
  const { groupOf } = index;
  if (groupOf)
    for (const record of records) {
      const group = groupOf(record);
      if (!group) continue;
      const seen = groups.get(group.key);
      if (seen) seen.count++;
      else groups.set(group.key, { ...group, count: 1 });
    }
  const tuples = [...groups.values()].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return { entries, tuples };
};

/** The counters a build noted when it began. */
const countersAt = (build: IndexBuild): Counters => new Map(Object.entries(build.versions));

/**
 * Builds one view's index (see the file comment), or goes on with its build, until `deadline`
 * (epoch ms): no segment or settle starts after it.
 */
export const buildViewIndex = async (
  tableId: string,
  viewId: string,
  deadline = Number.POSITIVE_INFINITY,
): Promise<BuildOutcome> => {
  const [current, state, noted, before] = await Promise.all([
    currentIndex(tableId, viewId),
    readIndexState(tableId, viewId),
    readIndexBuild(tableId, viewId),
    countersOf(tableId),
  ]);
  if (!current) {
    await deleteViewIndexes(viewId);
    if (state) await deleteIndexState(tableId, viewId);
    if (noted) await deleteIndexBuild(tableId, viewId);
    return 'gone';
  }
  const { index } = current;
  if (state?.indexId === index.indexId && unmaintainedWrites(before, index.mark) === state.baseline) {
    if (noted) await deleteIndexBuild(tableId, viewId);
    return 'current';
  }
  const started = Date.now();
  // go on with the build under way when it is of this index and every write since it began kept
  // it, unless it stopped while putting entries plainly and writes came since (they may have raced)
  const resumable =
    noted &&
    noted.indexId === index.indexId &&
    unmaintainedWrites(countersAt(noted), index.mark) === unmaintainedWrites(before, index.mark) &&
    !(noted.putting && !sameCounters(countersAt(noted), before));
  let build = resumable ? noted : undefined;
  if (!build) {
    if (state) await deleteIndexState(tableId, viewId);
    // empty the view's indexes: this one's entries and counts, and any left by earlier queries
    await deleteViewIndexes(viewId);
    build = {
      tableId,
      viewId,
      indexId: index.indexId,
      versions: Object.fromEntries(before),
      ...segmentPlan(current.records),
      done: 0,
      step: 0,
      entries: 0,
      startedTime: new Date().toISOString(),
    };
    await writeIndexBuild(build);
  }
  const begun = countersAt(build);
  try {
    while (build.done < build.segments) {
      if (Date.now() >= deadline) {
        logger.info('a view index build stopped for time; it goes on at the next run', {
          tableId,
          viewId,
          segments: build.segments,
          done: build.done,
        });
        return 'partial';
      }
      build = await buildSegment(index, build);
    }
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    logger.info('another build moved this one on; trying again later', { tableId, viewId });
    return 'busy';
  }
  await sleep(SETTLE_MS);
  const after = await countersOf(tableId);
  const exact = sameCounters(begun, after)
    ? { entries: build.entries, counterBase: after.get(index.counter) ?? 0, counters: after }
    : await settle(index, begun, deadline);
  if (
    exact === 'unmaintained' ||
    unmaintainedWrites(after, index.mark) !== unmaintainedWrites(begun, index.mark)
  ) {
    logger.info('a view index build met a write that did not keep it; it begins again at the next run', {
      tableId,
      viewId,
    });
    await deleteIndexBuild(tableId, viewId);
    return 'busy';
  }
  if (!exact) {
    logger.info('a view index build waits for a pause in the writes to settle its counts', {
      tableId,
      viewId,
    });
    return 'partial';
  }
  // an index without groups notes bounds to split deep reads at (a grouped one jumps to its tuples)
  if (!index.groupOf)
    await writeIndexSplits(
      index.indexId,
      'splits' in exact && exact.splits
        ? exact.splits
        : (await tallyIndexEntries(index.indexId, [], splitEvery)).splits,
      splitEvery,
    );
  await writeIndexState({
    tableId,
    viewId,
    indexId: index.indexId,
    baseline: unmaintainedWrites(exact.counters, index.mark),
    entries: exact.entries,
    counterBase: exact.counterBase,
    builtTime: new Date().toISOString(),
  });
  await deleteIndexBuild(tableId, viewId);
  logger.info('built a view index', {
    tableId,
    viewId,
    segments: build.segments,
    entries: exact.entries,
    settled: exact.counters !== after,
    ms: Date.now() - started,
  });
  return 'built';
};

/**
 * One segment of a build: its entries put, then its group counts added chunk by chunk from the
 * chunk the build notes, each chunk with the move of the noted progress (the last also counts the
 * segment's entries and moves to the next segment). Answers the build moved on.
 */
const buildSegment = async (index: ViewIndex, build: IndexBuild): Promise<IndexBuild> => {
  // the data version before the read, for a segment whose entries are still to be put
  const seen = build.step === 0 ? await countersOf(index.tableId) : undefined;
  const { entries, tuples } = await segmentOf(index, build, build.done);
  if (seen) {
    await afterRead?.();
    if (sameCounters(seen, countersAt(build))) await putPlainly(index, build, entries, seen);
    else await putChecked(index, entries);
  }
  const chunks = Math.max(1, Math.ceil(tuples.length / chunkSize));
  let step = build.step;
  for (; step < chunks; step++) {
    const last = step === chunks - 1;
    const next = last
      ? { done: build.done + 1, step: 0, addEntries: entries.length }
      : { done: build.done, step: step + 1, addEntries: 0 };
    if (crashIn !== undefined && crashIn-- <= 0) {
      crashIn = undefined;
      throw new Error('a build crashed (test seam)');
    }
    await transact(
      [
        ...tuples
          .slice(step * chunkSize, (step + 1) * chunkSize)
          .map((tuple) => groupCountOp(index.indexId, tuple, tuple.count, 0)),
        advanceBuildOp({ ...build, step }, next),
      ],
      () => new ConflictError('the build moved on'),
    );
  }
  return { ...build, done: build.done + 1, step: 0, entries: build.entries + entries.length };
};

type ReadEntry = { record: RecordPart; entry: IndexEntry };

/**
 * Puts a segment's entries without conditions (the table unwritten since the build began, as
 * `seen` before the read), noted first (`IndexBuild.putting`); then, if the data version moved
 * meanwhile, reads the segment again and mends each entry put for a record since changed
 * (`mendEntry`).
 */
const putPlainly = async (index: ViewIndex, build: IndexBuild, entries: ReadEntry[], seen: Counters) => {
  await notePutting(build);
  await putEntriesPlainly(
    index.indexId,
    entries.map(({ entry }) => entry),
  );
  if (sameCounters(seen, await countersOf(index.tableId))) return;
  const now = new Map(
    (await readRecordsIn(index.tableId, [...index.attributes, 'version'], rangesOf(build, build.done))).map(
      (record) => [record.id, record],
    ),
  );
  const changed = entries.filter(({ record }) => now.get(record.id)?.version !== record.version);
  await Promise.all(changed.map(({ record, entry }) => mendEntry(index, entry, now.get(record.id))));
};

/**
 * Mends an entry put for an earlier version of a record, as the record is now (`latest`, read
 * after the put; undefined: gone): deleted unless the record's entry is in the same place, put
 * again when it is there with another whole key (a cut key), on the condition that the record is
 * still that version; read again and retried when it moved on meanwhile.
 */
const mendEntry = async (index: ViewIndex, entry: IndexEntry, latest: RecordPart | undefined) => {
  let record = latest;
  for (let attempt = 0; ; attempt++) {
    const current = record && index.entryOf(record);
    if (current?.sk === entry.sk && current.k === entry.k) return;
    const version = { tableId: index.tableId, id: entry.id, version: record?.version };
    try {
      await transact(
        current?.sk === entry.sk
          ? [
              recordAtVersionCheck(version.tableId, version.id, version.version),
              putEntryOp(index.indexId, current),
            ]
          : staleEntryDeleteOps(index.indexId, entry.sk, version),
        () => new ConflictError('the record changed'),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= 8) throw error;
      record = (await getRecordParts(index.tableId, [entry.id], [...index.attributes, 'version'])).get(
        entry.id,
      );
    }
  }
};

/**
 * Puts a segment's entries each with a check of its record's version as read, up to 50 records a
 * transaction; a record written since it was read is left out (that write kept its entry).
 */
const putChecked = async (index: ViewIndex, entries: ReadEntry[]) => {
  const pending: ReadEntry[][] = [];
  for (let i = 0; i < entries.length; i += 50) pending.push(entries.slice(i, i + 50));
  const worker = async () => {
    for (let batch = pending.shift(); batch; batch = pending.shift()) {
      let left = batch;
      while (left.length) {
        let failed = -1;
        try {
          await transact(
            left.flatMap(({ record, entry }) => [
              recordAtVersionCheck(index.tableId, record.id, record.version),
              putEntryOp(index.indexId, entry),
            ]),
            (at) => {
              failed = Math.floor(at / 2);
              return new ConflictError('a record changed since the build read it');
            },
          );
          left = [];
        } catch (error) {
          if (failed < 0) throw error;
          left = left.filter((_, i) => i !== failed);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
};

/**
 * Builds the indexes listings asked for, one after another, until `deadline` (epoch ms); a build
 * that met writes stays asked for. Answers what each build did.
 */
export const buildWantedIndexes = async (deadline: number): Promise<Record<BuildOutcome, number>> => {
  const report: Record<BuildOutcome, number> = { built: 0, current: 0, busy: 0, gone: 0, partial: 0 };
  for (const want of await readIndexWants()) {
    if (Date.now() >= deadline) break;
    const outcome = await buildViewIndex(want.tableId, want.viewId, deadline);
    report[outcome]++;
    // a build that met writes or ran out of time stays asked for
    if (outcome !== 'busy' && outcome !== 'partial') await dropIndexWant(want);
  }
  return report;
};
