/**
 * Group points (contract `listing.md` section 4). Pure: no AWS import.
 *
 * Group points need the order of the distinct value tuples, not of the rows: `groupTuples` ranks
 * each level's distinct group texts by that level's sort key (section 3, with the group text as
 * the last tiebreak, so equal values are always adjacent) and orders the tuples by those ranks;
 * `buildGroupPoints` walks the tuples once, starting headers where a level's text changes. The
 * engine then sorts only the rows of the tuples the requested page overlaps.
 *
 * Decisions where the contract is silent:
 * - "Order the records by the group keys" orders each level by its group value (a number's
 *   rounded value, a date's formatted day, by the section 3 rules), so every group is one run and
 *   no header repeats; inside the deepest group the records follow the group fields' exact values
 *   (the instant, the unrounded number), then the sort items, the manual order and autoNumber.
 * - singleSelect's group text is the bare choice name (as the worked example hashes
 *   `fldAAAAAAAAAAAAAAAA_light`); multiple select, attachments and every other multi-valued cell
 *   use their JSON text (the items of a multi-valued number or date as stored, neither rounded nor
 *   formatted); a number is rounded half away from zero to the field's precision and
 *   written as the shortest number text (`1.5`, not `1.50`); a number field without formatting
 *   uses precision 2, rating and autoNumber are not rounded.
 * - A date field's group text is `YYYY-MM-DD`, or `YYYY-MM-DD HH:mm` (24-hour) when the field
 *   shows time, whatever display format the field uses, in the field's time zone. The header
 *   value is that day's midnight UTC (`2026-03-01T00:00:00.000Z`); when the field shows time it
 *   is that wall-clock minute written as UTC (`2026-03-01T14:05:00.000Z`), so headers of one day
 *   stay distinguishable.
 * - A user or link header value is `{id, title}` (a list of them when multi-valued); a link whose
 *   record has no title is left out of the cell, as `cellFormat=json` does.
 * - A collapsed header is followed by no Count (the worked example's 7 collapsed entries).
 * - Past 5,000 tuples the `unknown` header also goes into `allGroupHeaderRefs` and may be
 *   collapsed like any other header.
 */
import { canonicalTimeZone, type DateFormatting, wallClockAt } from '#shared/core/format.ts';
import type { Field, QueryValueClass, StoredCell } from '#shared/fields/field-types.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';
import { type FieldQuery, fieldQuery } from '#shared/fields/query-facts.ts';
import type { GroupPoint, HeaderRef, QueryContext, SortSpec } from './query-types.ts';
import { fieldOf } from './sort.ts';

/** The most distinct value tuples described before the rest goes under `unknown` (step 6). */
export const MAX_GROUP_TUPLES = 5000;

/**
 * A header id (step 2): h = 5381, then over the UTF-16 code units from the last to the first
 * h = ((h * 33) XOR code) mod 2^32; the unsigned decimal text.
 */
export const headerId = (text: string): string => {
  let h = 5381;
  for (let i = text.length - 1; i >= 0; i--) h = Math.imul(h, 33) ^ text.charCodeAt(i);
  return String(h >>> 0);
};

/** A level's group value: the text that tells groups apart and hashes, and the header value. */
export interface GroupValueOf {
  /** The group value text of a cell (step 1); null for an empty cell. */
  text: (cell: StoredCell | undefined) => string | null;
  /** The header value of a cell (step 5). */
  value: (cell: StoredCell | undefined) => unknown;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

const DAY = 86_400_000;

/**
 * A fast wall clock for one time zone: `Intl` is slow (tens of µs a call), so the zone's offset is
 * worked out once per UTC day, at both ends of it, and reused inside the day when the two agree
 * (zones change offset at most once a day); on the day of a change each instant asks `Intl`.
 */
const zoneClock = (timeZone: string) => {
  const offsets = new Map<number, number | null>();
  const offsetAt = (ms: number): number => {
    const w = wallClockAt(ms, timeZone);
    // setUTCFullYear, unlike Date.UTC, keeps years 1..99 as they are
    const d = new Date(0);
    d.setUTCFullYear(w.year, w.month - 1, w.day);
    d.setUTCHours(w.hour, w.minute, w.second, w.millisecond);
    return d.getTime() - ms;
  };
  return (ms: number): Date => {
    const bucket = Math.floor(ms / DAY);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      const start = offsetAt(bucket * DAY);
      const end = offsetAt(bucket * DAY + DAY - 1);
      offset = start === end ? start : null;
      offsets.set(bucket, offset);
    }
    return new Date(ms + (offset ?? offsetAt(ms)));
  };
};

const numberFrom = (cell: unknown): number | undefined => {
  const v = Array.isArray(cell) && cell.length === 1 ? cell[0] : cell;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** Rounds half away from zero to `precision` digits without binary noise (1.005 → 1.01). */
export const roundTo = (n: number, precision: number): number => {
  if (Number.isInteger(n)) return n;
  // shifting the decimal exponent of the shortest text (1.005e+0 → 1.005e2) avoids binary noise,
  // and works for numbers whose text has an exponent already (1e-7)
  const [mantissa, exponent] = Math.abs(n).toExponential().split('e');
  const shifted = Number(`${mantissa}e${Number(exponent) + precision}`);
  const rounded = Number(`${Math.round(shifted)}e-${precision}`);
  if (!Number.isFinite(rounded)) return n;
  return n < 0 && rounded !== 0 ? -rounded : rounded;
};

const precisionOf = (field: Field, query: FieldQuery): number | undefined => {
  const formatting = field.options.formatting as { precision?: unknown } | undefined;
  const p = formatting?.precision;
  if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= 20) return p;
  return query.groupPrecision;
};

const dateFormattingOf = (field: Field): Partial<DateFormatting> => {
  const f = field.options.formatting;
  return typeof f === 'object' && f !== null ? (f as Partial<DateFormatting>) : {};
};

const userRef = (value: unknown): { id: string; title: string } | null => {
  if (typeof value !== 'object' || value === null) return null;
  const { id, title } = value as { id?: unknown; title?: unknown };
  return typeof id === 'string' ? { id, title: typeof title === 'string' ? title : '' } : null;
};

/** The value classes whose multi-valued cells (formula, rollup, lookup results) group by JSON text. */
const SCALAR_CLASSES: readonly QueryValueClass[] = ['text', 'number', 'boolean', 'dateTime'];

/** The group text and header value of a field's cells (section 4 steps 1 and 5). */
export const groupValueOf = (field: Field, ctx: QueryContext): GroupValueOf => {
  const json = (cell: StoredCell | undefined) => (isEmptyCell(cell) ? null : JSON.stringify(cell));
  const same = (cell: StoredCell | undefined) => (isEmptyCell(cell) ? null : (cell as unknown));
  const query = fieldQuery(field);
  // a multi-valued cell of a scalar class groups by its JSON text (computed.md 7)
  if (query.isMultiple && SCALAR_CLASSES.includes(query.valueClass)) return { text: json, value: same };
  switch (query.valueClass) {
    case 'number': {
      const precision = precisionOf(field, query);
      const cache = new Map<number, number>();
      const rounded = (cell: StoredCell | undefined): number | undefined => {
        const n = numberFrom(cell);
        if (n === undefined || precision === undefined) return n;
        let r = cache.get(n);
        if (r === undefined) {
          r = roundTo(n, precision);
          cache.set(n, r);
        }
        return r;
      };
      return {
        text: (cell) => {
          if (isEmptyCell(cell)) return null;
          const r = rounded(cell);
          return r === undefined ? JSON.stringify(cell) : String(r);
        },
        value: (cell) => (isEmptyCell(cell) ? null : (rounded(cell) ?? cell)),
      };
    }
    case 'boolean':
      return {
        text: (cell) =>
          cell === true ? 'true' : isEmptyCell(cell) || cell === false ? null : JSON.stringify(cell),
        value: (cell) => (cell === true ? true : isEmptyCell(cell) || cell === false ? null : cell),
      };
    case 'dateTime': {
      const formatting = dateFormattingOf(field);
      const withTime = formatting.time !== undefined && formatting.time !== 'None';
      const clock = zoneClock(canonicalTimeZone(formatting.timeZone ?? 'UTC') ?? 'UTC');
      const dayText = (cell: StoredCell | undefined): string | null => {
        const v = Array.isArray(cell) && cell.length === 1 ? cell[0] : cell;
        if (typeof v !== 'string') return null;
        const ms = Date.parse(v);
        if (Number.isNaN(ms)) return null;
        const w = clock(ms);
        const day = `${pad(w.getUTCFullYear(), 4)}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}`;
        return withTime ? `${day} ${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}` : day;
      };
      return {
        text: (cell) => (isEmptyCell(cell) ? null : (dayText(cell) ?? JSON.stringify(cell))),
        value: (cell) => {
          const text = dayText(cell);
          if (text === null) return same(cell);
          return withTime ? `${text.replace(' ', 'T')}:00.000Z` : `${text}T00:00:00.000Z`;
        },
      };
    }
    case 'select':
      if (query.isMultiple) return { text: json, value: same };
      return {
        text: (cell) => (isEmptyCell(cell) ? null : typeof cell === 'string' ? cell : JSON.stringify(cell)),
        value: same,
      };
    case 'user':
      return {
        text: (cell) => {
          if (isEmptyCell(cell)) return null;
          if (Array.isArray(cell)) return JSON.stringify(cell.map((u) => userRef(u)?.id ?? null));
          return userRef(cell)?.id ?? JSON.stringify(cell);
        },
        value: (cell) => {
          if (isEmptyCell(cell)) return null;
          return Array.isArray(cell) ? cell.map(userRef) : userRef(cell);
        },
      };
    case 'link': {
      const multiple = field.isMultipleCellValue ?? query.isMultiple;
      const linked = (cell: StoredCell | undefined): { id: string; title: string }[] => {
        const ids = Array.isArray(cell) ? cell : typeof cell === 'string' ? [cell] : [];
        const out: { id: string; title: string }[] = [];
        for (const id of ids) {
          if (typeof id !== 'string') continue;
          const title = ctx.linkTitle(field.id, id);
          if (title !== undefined) out.push({ id, title });
        }
        return out;
      };
      return {
        text: (cell) => {
          const items = linked(cell);
          if (items.length === 0) return null;
          return multiple ? JSON.stringify(items.map((l) => l.id)) : (items[0] as { id: string }).id;
        },
        value: (cell) => {
          const items = linked(cell);
          if (items.length === 0) return null;
          return multiple ? items : items[0];
        },
      };
    }
    case 'attachment':
      return { text: json, value: same };
    default:
      return {
        text: (cell) => (isEmptyCell(cell) ? null : typeof cell === 'string' ? cell : JSON.stringify(cell)),
        value: same,
      };
  }
};

/** One group level as the walk sees it. */
export interface GroupLevel {
  fieldId: string;
  /** Group value text per row (index-aligned with the rows). */
  texts: readonly (string | null)[];
  /** The header value of row i's cell. */
  value: (rowIndex: number) => unknown;
}

/** The distinct value tuples of the rows, in group order. */
export interface GroupTuples {
  /** Per row: the position of its tuple. */
  tupleOf: Int32Array;
  /** Per tuple, in order: one of its rows (for the texts and header values). */
  reps: number[];
  /** Per tuple, in order: how many rows it holds. */
  counts: number[];
}

/**
 * Finds the distinct value tuples of `n` rows and puts them in order. Each level's distinct texts
 * are ordered once by `compareLevel[d]` (a comparator of row indexes by that level's sort key),
 * so rows are never sorted here; the tuple order is the order of the levels' ranks.
 */
export const groupTuples = (
  n: number,
  levels: readonly GroupLevel[],
  compareLevel: readonly ((x: number, y: number) => number)[],
): GroupTuples => {
  const keys = new Float64Array(n);
  let scale = 1;
  for (let d = levels.length - 1; d >= 0; d--) {
    const texts = (levels[d] as GroupLevel).texts;
    const firstRow = new Map<string | null, number>();
    for (let i = 0; i < n; i++) {
      const text = texts[i] as string | null;
      if (!firstRow.has(text)) firstRow.set(text, i);
    }
    const reps = [...firstRow.values()].sort(compareLevel[d]);
    const rank = new Map<string | null, number>();
    reps.forEach((i, r) => {
      rank.set(texts[i] as string | null, r);
    });
    for (let i = 0; i < n; i++)
      keys[i] = (keys[i] as number) + (rank.get(texts[i] as string | null) as number) * scale;
    // at most 3 levels of at most n ranks each: exact in a double up to n = 200,000 (n³ < 2^53)
    scale *= reps.length;
  }
  const tuples = new Map<number, { rep: number; count: number }>();
  for (let i = 0; i < n; i++) {
    const key = keys[i] as number;
    const tuple = tuples.get(key);
    if (tuple) tuple.count++;
    else tuples.set(key, { rep: i, count: 1 });
  }
  const ordered = Float64Array.from(tuples.keys()).sort();
  const position = new Map<number, number>();
  const reps: number[] = [];
  const counts: number[] = [];
  ordered.forEach((key, t) => {
    const tuple = tuples.get(key) as { rep: number; count: number };
    position.set(key, t);
    reps.push(tuple.rep);
    counts.push(tuple.count);
  });
  const tupleOf = new Int32Array(n);
  for (let i = 0; i < n; i++) tupleOf[i] = position.get(keys[i] as number) as number;
  return { tupleOf, reps, counts };
};

export interface GroupWalk {
  groupPoints: GroupPoint[];
  allGroupHeaderRefs: HeaderRef[];
  /** Per tuple, in order: false when it sits under a collapsed header (its records are left out). */
  visible: boolean[];
}

/**
 * Walks the tuples in order (`reps`: a row of each, `counts`: its number of rows) and builds the
 * group points and header refs (steps 2–4, 6).
 */
export const buildGroupPoints = (
  reps: readonly number[],
  counts: readonly number[],
  levels: readonly GroupLevel[],
  collapsedGroupIds: ReadonlySet<string>,
  maxTuples = MAX_GROUP_TUPLES,
): GroupWalk => {
  const groupPoints: GroupPoint[] = [];
  const allGroupHeaderRefs: HeaderRef[] = [];
  const visible: boolean[] = [];
  const depthCount = levels.length;
  // the hashed text of each level's current header, built from the one above it
  const prefixes = new Array<string>(depthCount);
  // depth of the collapsed header the walk is inside, or -1
  let collapsedAt = -1;
  for (let t = 0; t < reps.length; t++) {
    const i = reps[t] as number;
    if (t === maxTuples) {
      const id = 'unknown';
      const isCollapsed = collapsedGroupIds.has(id);
      groupPoints.push({ id, type: 0, depth: 0, value: 'Unknown', isCollapsed });
      allGroupHeaderRefs.push({ id, depth: 0 });
      let rest = 0;
      for (let u = t; u < reps.length; u++) {
        rest += counts[u] as number;
        visible.push(!isCollapsed);
      }
      if (!isCollapsed) groupPoints.push({ type: 1, count: rest });
      break;
    }
    let changed = 0;
    if (t > 0) {
      const previous = reps[t - 1] as number;
      while (changed < depthCount - 1) {
        const texts = (levels[changed] as GroupLevel).texts;
        if (texts[i] !== texts[previous]) break;
        changed++;
      }
    }
    for (let d = changed; d < depthCount; d++) {
      const level = levels[d] as GroupLevel;
      const text = level.texts[i] ?? '';
      prefixes[d] = d === 0 ? text : `${prefixes[d - 1]}_${text}`;
      const id = headerId(`${level.fieldId}_${prefixes[d]}`);
      allGroupHeaderRefs.push({ id, depth: d });
      if (collapsedAt >= d) collapsedAt = -1;
      if (collapsedAt >= 0) continue;
      const isCollapsed = collapsedGroupIds.has(id);
      groupPoints.push({ id, type: 0, depth: d, value: level.value(i), isCollapsed });
      if (isCollapsed) collapsedAt = d;
    }
    if (collapsedAt < 0) groupPoints.push({ type: 1, count: counts[t] as number });
    visible.push(collapsedAt < 0);
  }
  return { groupPoints, allGroupHeaderRefs, visible };
};

/**
 * The group points of counted group tuples (in group order, each with the grouped cells of one of
 * its records and how many records it holds), as the engine walks them, with which tuples are
 * visible (not under a collapsed header): what a grouped view index answers without reading its
 * records.
 */
export const groupPointsOfTuples = (
  tuples: readonly { cells: Record<string, unknown>; count: number }[],
  groupBy: readonly SortSpec[],
  ctx: QueryContext,
  collapsedGroupIds: ReadonlySet<string> = new Set(),
): GroupWalk => {
  const levels: GroupLevel[] = groupBy.map((spec) => {
    const groupValue = groupValueOf(fieldOf(spec.fieldId, ctx), ctx);
    const cells = tuples.map((tuple) => tuple.cells[spec.fieldId] as StoredCell | undefined);
    return {
      fieldId: spec.fieldId,
      texts: cells.map((cell) => groupValue.text(cell)),
      value: (i) => groupValue.value(cells[i]),
    };
  });
  return buildGroupPoints(
    tuples.map((_, i) => i),
    tuples.map((tuple) => tuple.count),
    levels,
    collapsedGroupIds,
  );
};

/** A page's rows within one run of consecutive visible group tuples: `take` rows after the first `skip` of tuple `tuple`. */
export interface TupleStretch {
  tuple: number;
  skip: number;
  take: number;
}

/**
 * Where the page [from, to) of the visible rows lies among group tuples (in order: their counts,
 * and whether each is visible): one stretch per run of consecutive visible tuples the page
 * overlaps (a collapsed header's tuples split runs), and how many visible rows there are in all.
 */
export const pageStretches = (
  counts: readonly number[],
  visible: readonly boolean[],
  from: number,
  to: number,
): { stretches: TupleStretch[]; total: number } => {
  const stretches: TupleStretch[] = [];
  let total = 0;
  let run: TupleStretch | undefined;
  for (let t = 0; t < counts.length; t++) {
    if (!visible[t]) {
      run = undefined;
      continue;
    }
    const start = total;
    total += counts[t] as number;
    const lo = Math.max(from, start);
    const hi = Math.min(to, total);
    if (lo >= hi) continue;
    if (run) run.take += hi - lo;
    else {
      run = { tuple: t, skip: lo - start, take: hi - lo };
      stretches.push(run);
    }
  }
  return { stretches, total };
};
