/**
 * Calendar math of the date-time functions (computed.md section 2): unit names, wall-clock ("local")
 * times in a zone, adding, truncating and differencing by unit. Pure; zones only through `Intl`
 * (via `#shared/core/format.ts`).
 *
 * A "local" time is a zone's wall clock written as if it were UTC milliseconds: calendar steps
 * (days, months) are plain UTC arithmetic on it, and `epochOfLocal` turns it back into an instant.
 */
import { instantOf, utcWallClock, type WallClock, wallClockAt } from '#shared/core/format.ts';

/** The units of DATETIME_DIFF, DATE_ADD and IS_SAME… (quarter only for diffs and comparisons). */
export type DateUnit =
  | 'millisecond'
  | 'second'
  | 'minute'
  | 'hour'
  | 'day'
  | 'week'
  | 'month'
  | 'quarter'
  | 'year';

const SHORT_UNITS: Readonly<Record<string, DateUnit>> = {
  ms: 'millisecond',
  s: 'second',
  m: 'minute',
  h: 'hour',
  d: 'day',
  w: 'week',
  M: 'month',
  Q: 'quarter',
  y: 'year',
};

const LONG_UNITS: ReadonlySet<string> = new Set([
  'millisecond',
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
]);

/**
 * The unit a text names: a short alias exactly as written (`m` minute, `M` month), or a long name
 * in any letter case with an optional plural `s` (`Days`, `MONTHS`). Undefined when unknown.
 */
export const unitOf = (text: string): DateUnit | undefined => {
  const trimmed = text.trim();
  if (Object.hasOwn(SHORT_UNITS, trimmed)) return SHORT_UNITS[trimmed];
  const long = trimmed.toLowerCase().replace(/s$/, '');
  return LONG_UNITS.has(long) ? (long as DateUnit) : undefined;
};

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;

/** Milliseconds per unit for the units of fixed length. */
const FIXED_MS: Readonly<Partial<Record<DateUnit, number>>> = {
  millisecond: 1,
  second: SECOND_MS,
  minute: MINUTE_MS,
  hour: HOUR_MS,
  day: DAY_MS,
  week: WEEK_MS,
};

/** Months per unit for the calendar units. */
const UNIT_MONTHS: Readonly<Partial<Record<DateUnit, number>>> = { month: 1, quarter: 3, year: 12 };

/** A wall-clock time as UTC milliseconds (Date.UTC without its 0..99 → 1900s quirk). */
export const localOfWall = (w: WallClock): number => {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, w.millisecond);
  return d.getTime();
};

/** The wall-clock fields of a local time (kept as epoch ms read in UTC). */
export const wallOfLocal = (local: number): WallClock => utcWallClock(local);

/** The local time `timeZone` shows at the instant `epochMs`. */
export const localAt = (epochMs: number, timeZone: string): number =>
  localOfWall(wallClockAt(epochMs, timeZone));

/** The instant at which `timeZone` shows the local time (a skipped time lands just after the gap). */
export const epochOfLocal = (local: number, timeZone: string): number =>
  instantOf(wallOfLocal(local), timeZone);

/** Sunday 0 … Saturday 6 of a local time. */
export const weekdayOfLocal = (local: number): number => new Date(local).getUTCDay();

/** Midnight of a local time's day. */
export const startOfLocalDay = (local: number): number => Math.floor(local / DAY_MS) * DAY_MS;

/** Days since 1970-01-01 of a local time's day (negative before). */
export const dayNumberOf = (local: number): number => Math.floor(local / DAY_MS);

const daysInMonth = (year: number, month: number): number => {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
};

/** A local time moved by whole months, the day clamped to the month's end (Jan 31 + 1 → Feb 28/29). */
export const addMonthsLocal = (local: number, months: number): number => {
  const w = wallOfLocal(local);
  const index = w.year * 12 + (w.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return localOfWall({ ...w, year, month, day: Math.min(w.day, daysInMonth(year, month)) });
};

/**
 * Calendar months from `b` to `a` (negative when `a` is earlier), fractional, as dayjs computes
 * them: whole months, then the rest as a share of the month that follows (or precedes).
 */
export const monthsBetween = (a: number, b: number): number => {
  const wa = wallOfLocal(a);
  const wb = wallOfLocal(b);
  if (wa.day < wb.day) return -monthsBetween(b, a);
  const whole = (wb.year - wa.year) * 12 + (wb.month - wa.month);
  const anchor = addMonthsLocal(a, whole);
  const behind = b - anchor < 0;
  const next = addMonthsLocal(a, whole + (behind ? -1 : 1));
  const span = behind ? anchor - next : next - anchor;
  return -(whole + (b - anchor) / span) || 0;
};

/**
 * `a − b` in `unit`, fractional: months, quarters and years by calendar in `timeZone`; days and
 * weeks by wall clock (a daylight-saving day is still one day); shorter units by elapsed time; an
 * unknown unit (undefined) in milliseconds.
 */
export const diffIn = (a: number, b: number, unit: DateUnit | undefined, timeZone: string): number => {
  if (unit === undefined) return a - b;
  const months = UNIT_MONTHS[unit];
  if (months !== undefined) return monthsBetween(localAt(a, timeZone), localAt(b, timeZone)) / months;
  const size = FIXED_MS[unit] ?? 1;
  if (unit === 'day' || unit === 'week') return (localAt(a, timeZone) - localAt(b, timeZone)) / size;
  return (a - b) / size;
};

/** Local start of the unit holding a local time, for day and longer units. */
const startOfLocal = (local: number, unit: DateUnit): number => {
  const day = startOfLocalDay(local);
  const w = wallOfLocal(day);
  switch (unit) {
    case 'week':
      return day - weekdayOfLocal(day) * DAY_MS;
    case 'month':
      return localOfWall({ ...w, day: 1 });
    case 'quarter':
      return localOfWall({ ...w, month: Math.floor((w.month - 1) / 3) * 3 + 1, day: 1 });
    case 'year':
      return localOfWall({ ...w, month: 1, day: 1 });
    default:
      return day;
  }
};

/** Milliseconds of the wall clock elapsed since the start of a sub-day unit. */
const elapsedInUnit = (w: WallClock, unit: DateUnit): number => {
  switch (unit) {
    case 'hour':
      return w.minute * MINUTE_MS + w.second * SECOND_MS + w.millisecond;
    case 'minute':
      return w.second * SECOND_MS + w.millisecond;
    case 'second':
      return w.millisecond;
    default:
      return 0;
  }
};

/**
 * The instant the unit holding `epochMs` starts, in `timeZone`; weeks start on Sunday; an unknown
 * unit (undefined) or milliseconds keep the instant. Sub-day units step back by elapsed time, so
 * the hour repeated by a daylight-saving change stays two hours.
 */
export const startOf = (epochMs: number, unit: DateUnit | undefined, timeZone: string): number => {
  if (unit === undefined || unit === 'millisecond') return epochMs;
  if (unit === 'second' || unit === 'minute' || unit === 'hour') {
    return epochMs - elapsedInUnit(wallClockAt(epochMs, timeZone), unit);
  }
  return epochOfLocal(startOfLocal(localAt(epochMs, timeZone), unit), timeZone);
};

/**
 * `epochMs` moved by `count` units in `timeZone`: milliseconds to hours by elapsed time; days and
 * weeks by wall clock (time of day kept, count rounded); months and years by calendar (count
 * truncated, day clamped to the month's end). Quarters are not a DATE_ADD unit.
 */
export const addUnits = (epochMs: number, count: number, unit: DateUnit, timeZone: string): number => {
  const months = unit === 'quarter' ? undefined : UNIT_MONTHS[unit];
  if (months !== undefined) {
    return epochOfLocal(addMonthsLocal(localAt(epochMs, timeZone), Math.trunc(count) * months), timeZone);
  }
  if (unit === 'day' || unit === 'week') {
    const days = Math.round(count * (unit === 'week' ? 7 : 1));
    return epochOfLocal(localAt(epochMs, timeZone) + days * DAY_MS, timeZone);
  }
  return epochMs + Math.round(count * (FIXED_MS[unit] ?? 1));
};
