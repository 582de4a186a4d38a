import { ConflictError } from '#shared/core/errors.ts';
import {
  deleteItem,
  getItem,
  type Item,
  putItem,
  queryAll,
  queryRange,
  type TransactOp,
  transact,
} from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { count, text } from './attributes.ts';

/**
 * A view index (`records/view-indexes/upkeep.ts`) as stored:
 * - the state `TABLE#<tbl>` `VIDXSTATE#<view>`: which index of the view is built, and the table's
 *   unmaintained-write count it was exact at (`baseline`);
 * - a build under way `TABLE#<tbl>` `VIDXBUILD#<view>`: the table's data-version counters when it
 *   began and how far it got (`IndexBuild`), so a build stopped part-way goes on;
 * - a build request `VIDXWANT` `<tbl>#<view>`: written by a listing that found no usable index,
 *   taken by the repair worker;
 * - noted positions of its entries `QORDER#<tbl>` `IXPOS#<index>#<position>` (`IndexPosition`);
 * - its entries and split bounds in `view-index-entries.ts`, its group counts in
 *   `view-index-groups.ts`.
 */
export interface IndexState {
  tableId: string;
  viewId: string;
  indexId: string;
  baseline: number;
  /** Entries when built, and the entry counter then: the count now is `entries + counter − counterBase`. */
  entries: number;
  counterBase: number;
  builtTime: string;
}

export interface IndexWant {
  tableId: string;
  viewId: string;
  indexId: string;
  requestedTime: string;
}

const stateOf = (item: Item): IndexState => ({
  tableId: text(item.tableId),
  viewId: text(item.viewId),
  indexId: text(item.indexId),
  baseline: count(item.baseline),
  entries: count(item.entries),
  counterBase: count(item.counterBase),
  builtTime: text(item.builtTime),
});

export const readIndexState = async (tableId: string, viewId: string): Promise<IndexState | undefined> => {
  const item = await getItem(keys.viewIndexState(tableId, viewId));
  return item ? stateOf(item) : undefined;
};

export const writeIndexState = (state: IndexState): Promise<void> =>
  putItem({ ...keys.viewIndexState(state.tableId, state.viewId), type: 'viewIndexState', ...state });

export const deleteIndexState = (tableId: string, viewId: string): Promise<void> =>
  deleteItem(keys.viewIndexState(tableId, viewId));

/**
 * A build under way (`records/view-indexes/build.ts`): the table's data-version counters when it
 * began (it is finished only if they have not moved), how many record segments it reads, how
 * many it has finished (their entries written and group counts added), which chunk of group
 * counts of the next segment comes next, and the entries written so far.
 */
export interface IndexBuild {
  tableId: string;
  viewId: string;
  indexId: string;
  versions: Record<string, number>;
  segments: number;
  /** How many of `recordSlices(segments × perSegment)` each segment reads at once. */
  perSegment: number;
  done: number;
  step: number;
  entries: number;
  /**
   * Set while the build puts a segment's entries without conditions (the table unwritten since the
   * build began), cleared by the segment's first group-count chunk: a build that resumes with it
   * set, after writes, cannot tell whether a write raced those puts, and begins again.
   */
  putting?: boolean;
  startedTime: string;
}

const buildOf = (item: Item): IndexBuild => ({
  tableId: text(item.tableId),
  viewId: text(item.viewId),
  indexId: text(item.indexId),
  versions: Object.fromEntries(
    Object.entries((item.versions ?? {}) as Record<string, unknown>).map(([name, value]) => [
      name,
      count(value),
    ]),
  ),
  segments: count(item.segments),
  perSegment: count(item.perSegment),
  done: count(item.done),
  step: count(item.step),
  entries: count(item.entries),
  ...(item.putting === true ? { putting: true } : {}),
  startedTime: text(item.startedTime),
});

export const readIndexBuild = async (tableId: string, viewId: string): Promise<IndexBuild | undefined> => {
  const item = await getItem(keys.viewIndexBuild(tableId, viewId));
  return item ? buildOf(item) : undefined;
};

export const writeIndexBuild = (build: IndexBuild): Promise<void> =>
  putItem({ ...keys.viewIndexBuild(build.tableId, build.viewId), type: 'viewIndexBuild', ...build });

export const deleteIndexBuild = (tableId: string, viewId: string): Promise<void> =>
  deleteItem(keys.viewIndexBuild(tableId, viewId));

/**
 * Moves a build on from where it was (`done` segments, `step` chunks of the next), on that
 * condition: to the next chunk of the same segment, or to the next segment with its entries
 * counted. Joined to the chunk's group-count additions, so each applies once.
 */
export const advanceBuildOp = (
  build: Pick<IndexBuild, 'tableId' | 'viewId' | 'indexId' | 'done' | 'step'>,
  next: { done: number; step: number; addEntries: number },
): TransactOp => ({
  update: {
    key: keys.viewIndexBuild(build.tableId, build.viewId),
    update: 'SET #done = :nd, #step = :ns ADD #entries :e REMOVE putting',
    condition: '#index = :i AND #done = :d AND #step = :s',
    names: { '#done': 'done', '#step': 'step', '#entries': 'entries', '#index': 'indexId' },
    values: {
      ':nd': next.done,
      ':ns': next.step,
      ':e': next.addEntries,
      ':i': build.indexId,
      ':d': build.done,
      ':s': build.step,
    },
  },
});

/** Notes that a build puts the entries of its next segment without conditions (`IndexBuild.putting`), on the condition of where it is. */
export const notePutting = (build: Pick<IndexBuild, 'tableId' | 'viewId' | 'indexId' | 'done' | 'step'>) =>
  transact(
    [
      {
        update: {
          key: keys.viewIndexBuild(build.tableId, build.viewId),
          update: 'SET putting = :t',
          condition: '#index = :i AND #done = :d AND #step = :s',
          names: { '#done': 'done', '#step': 'step', '#index': 'indexId' },
          values: { ':t': true, ':i': build.indexId, ':d': build.done, ':s': build.step },
        },
      },
    ],
    () => new ConflictError('the build moved on'),
  );

/** Deletes what a table holds about a view's indexes (its built state and any build under way): joined to the view's delete. */
export const viewIndexBookkeepingDeletes = (tableId: string, viewId: string): TransactOp[] => [
  { delete: keys.viewIndexState(tableId, viewId) },
  { delete: keys.viewIndexBuild(tableId, viewId) },
];

/**
 * Where an index's entry at `position` is (`at`, its sort key), noted by a listing that read up
 * to it, with the `signature` of the index then (its build and its maintained-write counter): a
 * later page of the same index, unchanged since, starts its walk there. Kept with the listing
 * orders (`QORDER#<tbl>`, which listings may write), for an hour.
 */
export interface IndexPosition {
  position: number;
  at: string;
  signature: string;
}

/** How long a noted index position may be used. */
const POSITION_TTL_SECONDS = 3_600;

/** The noted position of an index nearest at or before `atMost`, unless it has expired. */
export const readIndexPosition = async (
  tableId: string,
  indexId: string,
  atMost: number,
  now = Date.now(),
): Promise<IndexPosition | undefined> => {
  const bound = keys.viewIndexPosition(tableId, indexId, atMost + 1);
  const [item] = await queryRange({ pk: bound.pk, below: bound.sk, limit: 1 });
  if (!item || item.indexId !== indexId || count(item.expiresAt) <= Math.floor(now / 1000)) return undefined;
  return { position: count(item.position), at: text(item.at), signature: text(item.signature) };
};

export const writeIndexPosition = (
  tableId: string,
  indexId: string,
  noted: IndexPosition,
  now = Date.now(),
): Promise<void> =>
  putItem({
    ...keys.viewIndexPosition(tableId, indexId, noted.position),
    type: 'viewIndexPosition',
    indexId,
    ...noted,
    expiresAt: Math.floor(now / 1000) + POSITION_TTL_SECONDS,
  });

/** Asks for a view's index to be built (unconditional: the latest ask wins). */
export const wantIndex = (want: IndexWant): Promise<void> =>
  putItem({ ...keys.viewIndexWant(want.tableId, want.viewId), type: 'viewIndexWant', ...want });

const wantOf = (item: Item): IndexWant => ({
  tableId: text(item.tableId),
  viewId: text(item.viewId),
  indexId: text(item.indexId),
  requestedTime: text(item.requestedTime),
});

export const readIndexWants = async (): Promise<IndexWant[]> =>
  (await queryAll(keys.viewIndexWants())).map(wantOf);

/** Drops a build request, unless it was asked again since it was read. */
export const dropIndexWant = async (want: IndexWant): Promise<void> => {
  try {
    await transact(
      [
        {
          delete: keys.viewIndexWant(want.tableId, want.viewId),
          condition: 'requestedTime = :t',
          values: { ':t': want.requestedTime },
        },
      ],
      () => new ConflictError('asked again'),
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
};
