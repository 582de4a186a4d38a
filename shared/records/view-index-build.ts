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
 * once. Entries are puts, so writing a segment's again is harmless.
 *
 * The index is recorded as built, at the table's current unmaintained-write count, only if the
 * table's data version has not moved at all since the build began (a write meanwhile may have
 * raced with what it read). A build that finds it moved, when it resumes or when it ends, begins
 * again at the next run. Decided: a table written to without pause for longer than a build takes
 * keeps answering through the general path (writes that keep a partly built index are not built).
 */
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { transact, writeItems } from '#shared/db/client.ts';
import { unmaintainedWrites } from '#shared/db/data-versions.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import {
  advanceBuildOp,
  deleteIndexBuild,
  deleteIndexState,
  deleteViewIndexes,
  dropIndexWant,
  type GroupCount,
  groupCountOp,
  type IndexBuild,
  indexEntryItem,
  readIndexBuild,
  readIndexState,
  readIndexWants,
  writeIndexBuild,
  writeIndexState,
} from '#shared/entities/view-indexes.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { readRecordsIn, recordSlices, slicesFor } from './rows.ts';
import { type ViewIndex, viewIndexOf } from './view-indexes.ts';

/**
 * What a build did: built it, found it exact already, met writes (begins again), found no such
 * index, or ran out of time part-way (resumes at the next run).
 */
export type BuildOutcome = 'built' | 'current' | 'busy' | 'gone' | 'partial';

/** How long a build waits before its last look at the data version, for writes just made to move it. */
const SETTLE_MS = 300;

/** About how many records a build reads into memory at once. */
let segmentRecords = 20_000;
/** At most this many slices of the records partition (`recordSlices`). */
const MAX_SLICES = 256;
/** Group-count additions per transaction, with the progress update (a transaction holds 100). */
let chunkSize = 98;
/** Test seam: chunk transactions left before a build fails as if it crashed (undefined: never). */
let crashIn: number | undefined;

/**
 * Test seam: builds in segments of about `records` records and chunks of `chunk` group counts,
 * and fails (as a crash would) before the chunk transaction `crashAfter` + 1 of the next build.
 */
export const buildInPieces = (options: { records?: number; chunk?: number; crashAfter?: number } = {}) => {
  segmentRecords = options.records ?? 20_000;
  chunkSize = options.chunk ?? 98;
  crashIn = options.crashAfter;
};

type Counters = ReadonlyMap<string, number>;

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

/** A segment's entries and group tuples (in key order, each counted). */
const segmentOf = async (index: ViewIndex, build: IndexBuild, segment: number) => {
  const { perSegment } = build;
  const ranges = recordSlices(build.segments * perSegment).slice(
    segment * perSegment,
    (segment + 1) * perSegment,
  );
  const records = await readRecordsIn(index.tableId, index.attributes, ranges);
  const entries = records.flatMap((record) => index.entryOf(record) ?? []);
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
  return { records: records.length, entries, tuples };
};

/** Reads the table's data-version counters. */
const countersOf = async (tableId: string): Promise<Counters> =>
  (await readDataVersions([tableId])).get(tableId) ?? new Map<string, number>();

/**
 * Builds one view's index (see the file comment), or goes on with its build, until `deadline`
 * (epoch ms): no segment starts after it.
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
  // go on with the build under way when it is of this index and nothing was written since it began
  let build =
    noted && noted.indexId === index.indexId && sameCounters(new Map(Object.entries(noted.versions)), before)
      ? noted
      : undefined;
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
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await countersOf(tableId);
  if (!sameCounters(before, after)) {
    logger.info('a view index build met writes; it begins again at the next run', { tableId, viewId });
    await deleteIndexBuild(tableId, viewId);
    return 'busy';
  }
  await writeIndexState({
    tableId,
    viewId,
    indexId: index.indexId,
    baseline: unmaintainedWrites(after, index.mark),
    entries: build.entries,
    counterBase: after.get(index.counter) ?? 0,
    builtTime: new Date().toISOString(),
  });
  await deleteIndexBuild(tableId, viewId);
  logger.info('built a view index', {
    tableId,
    viewId,
    segments: build.segments,
    entries: build.entries,
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
  const { entries, tuples } = await segmentOf(index, build, build.done);
  if (build.step === 0)
    await writeItems(entries.map((entry) => ({ put: indexEntryItem(index.indexId, entry) })));
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
