/**
 * Building view indexes (`view-indexes.ts`): a listing that finds its view's index missing or
 * no longer exact asks for it (`entities/view-indexes.ts` `wantIndex`) and answers through the
 * general path meanwhile; the repair worker (every minute; locally every 30 s) builds what was
 * asked for.
 *
 * A build empties the view's indexes (this one's entries and group counts, and any left by its
 * earlier queries), reads every record with the attributes the view's query reads, puts the
 * entries of those passing its filter and, for a grouped view, the count of each group tuple,
 * and then, only if the table's data version did not move at all while it worked (a write
 * meanwhile may have raced with the entries it put), records the index as built at the
 * table's current unmaintained-write count. Otherwise it tries again at the next run. Decided: a
 * build is one pass (no resuming part-way); a table written to without pause for longer than a
 * build takes keeps answering through the general path.
 */
import { NotFoundError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { writeItems } from '#shared/db/client.ts';
import { unmaintainedWrites } from '#shared/db/data-versions.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import {
  deleteIndexState,
  deleteViewIndexes,
  dropIndexWant,
  type GroupCount,
  groupCountItem,
  indexEntryItem,
  readIndexState,
  readIndexWants,
  writeIndexState,
} from '#shared/entities/view-indexes.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { readAllRecords, slicesFor } from './rows.ts';
import { type ViewIndex, viewIndexOf } from './view-indexes.ts';

/** What a build did: built it, found it exact already, met writes (try again), or found no such index. */
export type BuildOutcome = 'built' | 'current' | 'busy' | 'gone';

/** How long a build waits before its last look at the data version, for writes just made to move it. */
const SETTLE_MS = 300;

const sameCounters = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean =>
  a.size === b.size && [...a].every(([name, value]) => b.get(name) === value);

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

/** Builds one view's index (see the file comment). */
export const buildViewIndex = async (tableId: string, viewId: string): Promise<BuildOutcome> => {
  const [current, state, before] = await Promise.all([
    currentIndex(tableId, viewId),
    readIndexState(tableId, viewId),
    readDataVersions([tableId]).then((v) => v.get(tableId) ?? new Map<string, number>()),
  ]);
  if (!current) {
    await deleteViewIndexes(viewId);
    if (state) await deleteIndexState(tableId, viewId);
    return 'gone';
  }
  const { index } = current;
  if (state?.indexId === index.indexId && unmaintainedWrites(before, index.mark) === state.baseline)
    return 'current';
  if (state) await deleteIndexState(tableId, viewId);
  // empty the view's indexes: this one's entries and counts, and any left by earlier queries
  await deleteViewIndexes(viewId);
  const started = Date.now();
  const records = await readAllRecords(tableId, index.attributes, slicesFor(current.records));
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
  await writeItems([
    ...entries.map((entry) => ({ put: indexEntryItem(index.indexId, entry) })),
    ...[...groups.values()].map((group) => ({ put: groupCountItem(index.indexId, group) })),
  ]);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = (await readDataVersions([tableId])).get(tableId) ?? new Map<string, number>();
  if (!sameCounters(before, after)) {
    logger.info('a view index build met writes; trying again later', { tableId, viewId });
    return 'busy';
  }
  await writeIndexState({
    tableId,
    viewId,
    indexId: index.indexId,
    baseline: unmaintainedWrites(after, index.mark),
    entries: entries.length,
    counterBase: after.get(index.counter) ?? 0,
    builtTime: new Date().toISOString(),
  });
  logger.info('built a view index', {
    tableId,
    viewId,
    records: records.length,
    entries: entries.length,
    ms: Date.now() - started,
  });
  return 'built';
};

/**
 * Builds the indexes listings asked for, one after another, until `deadline` (epoch ms); a build
 * that met writes stays asked for. Answers what each build did.
 */
export const buildWantedIndexes = async (deadline: number): Promise<Record<BuildOutcome, number>> => {
  const report: Record<BuildOutcome, number> = { built: 0, current: 0, busy: 0, gone: 0 };
  for (const want of await readIndexWants()) {
    if (Date.now() >= deadline) break;
    const outcome = await buildViewIndex(want.tableId, want.viewId);
    report[outcome]++;
    if (outcome !== 'busy') await dropIndexWant(want);
  }
  return report;
};
