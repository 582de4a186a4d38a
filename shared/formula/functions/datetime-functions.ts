/**
 * The DateTime functions of computed.md section 2. dateTime values are ISO UTC texts; parts,
 * calendar steps and formats are taken in the formula's zone (`ctx.timeZone`). Every date argument
 * arrives prepared (text read with `readDate`); an empty date gives an empty result.
 */
import {
  addUnits,
  DAY_MS,
  type DateUnit,
  dayNumberOf,
  diffIn,
  epochOfLocal,
  localAt,
  startOf,
  startOfLocalDay,
  unitOf,
  wallOfLocal,
  weekdayOfLocal,
} from '../date-units.ts';
import { epochOfIso, formatWithTokens, isoOfEpoch, parseWithTokens, readDate } from '../dates.ts';
import {
  type ArgSpec,
  DATE,
  type EvalContext,
  FormulaEvalError,
  type FunctionSpec,
  NUMBER,
  single,
  TEXT,
  type Typed,
  type Value,
  type ValueType,
} from '../formula-types.ts';

const BOOLEAN: ArgSpec = { accepts: ['boolean'] };
/** DATETIME_PARSE's text: a date passed in is already read. */
const TEXT_OR_DATE: ArgSpec = { accepts: ['string', 'dateTime'] };

/** A spec whose result type never depends on its arguments. */
const define = (
  name: string,
  minArgs: number,
  args: readonly ArgSpec[],
  type: ValueType,
  evaluate: NonNullable<FunctionSpec['evaluate']>,
  exact = false,
): FunctionSpec => ({ name, minArgs, exact, args, result: () => single(type), evaluate });

/** The epoch milliseconds of a prepared date argument, undefined when empty. */
const epochArg = (value: Value | undefined): number | undefined =>
  typeof value === 'string' ? epochOfIso(value) : undefined;

/** A text argument, undefined when empty or blank. */
const textArg = (value: Value | undefined): string | undefined => {
  const text = typeof value === 'string' ? value.trim() : undefined;
  return text === '' ? undefined : text;
};

/** A unit argument: empty → `fallback`; unknown → undefined (each function decides). */
const unitArg = (value: Value | undefined, fallback: DateUnit): DateUnit | undefined => {
  const text = textArg(value);
  return text === undefined ? fallback : unitOf(text);
};

/** The local (wall-clock) time of a date argument in the formula's zone. */
const localArg = (value: Value | undefined, ctx: EvalContext): number | undefined => {
  const epochMs = epochArg(value);
  return epochMs === undefined ? undefined : localAt(epochMs, ctx.timeZone);
};

// --- now, today, record times ---

const today = (ctx: EvalContext): string =>
  isoOfEpoch(epochOfLocal(startOfLocalDay(localAt(ctx.now.getTime(), ctx.timeZone)), ctx.timeZone));

/** A record time as ISO UTC with milliseconds (empty when the record has none). */
const recordTime = (iso: string): Value => (iso ? isoOfEpoch(epochOfIso(iso)) : null);

const NOW_TODAY: readonly FunctionSpec[] = [
  define('NOW', 0, [], 'dateTime', (_args, ctx) => isoOfEpoch(ctx.now.getTime()), true),
  define('TODAY', 0, [], 'dateTime', (_args, ctx) => today(ctx), true),
  define('CREATED_TIME', 0, [], 'dateTime', (_args, ctx) => recordTime(ctx.record.createdTime), true),
  define(
    'LAST_MODIFIED_TIME',
    0,
    [],
    'dateTime',
    (_args, ctx) => recordTime(ctx.record.lastModifiedTime),
    true,
  ),
];

// --- parts ---

/** A one-date function reading a number from the date's wall clock in the formula's zone. */
const part = (name: string, read: (local: number) => number): FunctionSpec =>
  define(
    name,
    1,
    [DATE],
    'number',
    (args, ctx) => {
      const local = localArg(args[0], ctx);
      return local === undefined ? null : read(local);
    },
    true,
  );

/** Week of the year: weeks start on Sunday, week 1 holds 1 January. */
const weekNumber = (local: number): number => {
  const w = wallOfLocal(local);
  const first = new Date(0);
  first.setUTCFullYear(w.year, 0, 1);
  const dayOfYear = dayNumberOf(local) - dayNumberOf(first.getTime());
  return Math.floor((dayOfYear + first.getUTCDay()) / 7) + 1;
};

/** WEEKDAY: Sunday 0 … Saturday 6, or Monday 0 … Sunday 6 when start is `monday` (any case). */
const weekday = (args: readonly Value[], ctx: EvalContext): Value => {
  const local = localArg(args[0], ctx);
  if (local === undefined) return null;
  const sunday0 = weekdayOfLocal(local);
  return textArg(args[1])?.toLowerCase() === 'monday' ? (sunday0 + 6) % 7 : sunday0;
};

const PARTS: readonly FunctionSpec[] = [
  part('YEAR', (local) => wallOfLocal(local).year),
  part('MONTH', (local) => wallOfLocal(local).month),
  part('DAY', (local) => wallOfLocal(local).day),
  part('HOUR', (local) => wallOfLocal(local).hour),
  part('MINUTE', (local) => wallOfLocal(local).minute),
  part('SECOND', (local) => wallOfLocal(local).second),
  part('WEEKNUM', weekNumber),
  define('WEEKDAY', 1, [DATE, TEXT], 'number', weekday),
];

// --- differences ---

/** |a − b| in a unit (empty → day, unknown → milliseconds), truncated unless `float`. */
const absoluteDiff = (
  a: number,
  b: number,
  unit: Value | undefined,
  float: Value | undefined,
  tz: string,
) => {
  const diff = Math.abs(diffIn(a, b, unitArg(unit, 'day'), tz));
  return float === true ? diff : Math.trunc(diff);
};

const datetimeDiff = (args: readonly Value[], ctx: EvalContext): Value => {
  const a = epochArg(args[0]);
  const b = epochArg(args[1]);
  if (a === undefined || b === undefined) return null;
  return absoluteDiff(a, b, args[2], args[3], ctx.timeZone);
};

/** FROMNOW, TONOW: |now − d| in a unit. */
const fromNow = (args: readonly Value[], ctx: EvalContext): Value => {
  const d = epochArg(args[0]);
  return d === undefined ? null : absoluteDiff(ctx.now.getTime(), d, args[1], args[2], ctx.timeZone);
};

const DIFFS: readonly FunctionSpec[] = [
  define('DATETIME_DIFF', 2, [DATE, DATE, TEXT, BOOLEAN], 'number', datetimeDiff),
  define('FROMNOW', 2, [DATE, TEXT, BOOLEAN], 'number', fromNow),
  define('TONOW', 2, [DATE, TEXT, BOOLEAN], 'number', fromNow),
];

// --- adding ---

/** DATE_ADD(d, n, unit): an empty count adds nothing; an unknown or empty unit is an FormulaEvalError. */
const dateAdd = (args: readonly Value[], ctx: EvalContext): Value => {
  const d = epochArg(args[0]);
  if (d === undefined) return null;
  const text = textArg(args[2]) ?? '';
  const unit = unitOf(text);
  if (unit === undefined || unit === 'quarter')
    throw new FormulaEvalError(`DATE_ADD: unknown unit "${text}"`);
  const count = typeof args[1] === 'number' && Number.isFinite(args[1]) ? args[1] : 0;
  return isoOfEpoch(addUnits(d, count, unit, ctx.timeZone));
};

// --- working days ---

/** Whether a day number (days since 1970-01-01, a Thursday) is Monday..Friday. */
const isWeekdayNumber = (day: number): boolean => {
  const sunday0 = (((day + 4) % 7) + 7) % 7;
  return sunday0 >= 1 && sunday0 <= 5;
};

/** The day numbers of the comma-separated holidays that fall on Monday..Friday. */
const holidayDays = (value: Value | undefined, timeZone: string): ReadonlySet<number> => {
  const days = new Set<number>();
  const text = typeof value === 'string' ? value : '';
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const day = dayNumberOf(localAt(epochOfIso(readDate(item, timeZone)), timeZone));
    if (isWeekdayNumber(day)) days.add(day);
  }
  return days;
};

/** How many of the holidays lie in the day range between `from` and `to`, both included. */
const holidaysWithin = (holidays: ReadonlySet<number>, from: number, to: number): number => {
  const [low, high] = from <= to ? [from, to] : [to, from];
  let count = 0;
  for (const day of holidays) if (day >= low && day <= high) count += 1;
  return count;
};

/**
 * The day number `n` working days after (n < 0: before) `start`. Whole weeks are jumped (any 7
 * days hold 5 weekdays), holidays met on the way are paid back, the rest is stepped day by day.
 */
const nthWorkingDay = (start: number, n: number, holidays: ReadonlySet<number>): number => {
  const step = n < 0 ? -1 : 1;
  let remaining = Math.abs(n);
  let day = start;
  while (remaining > 0) {
    if (remaining > 5) {
      const weeks = Math.floor((remaining - 1) / 5);
      const next = day + step * 7 * weeks;
      remaining -= 5 * weeks - holidaysWithin(holidays, day + step, next);
      day = next;
    } else {
      day += step;
      if (isWeekdayNumber(day) && !holidays.has(day)) remaining -= 1;
    }
  }
  return day;
};

// 9999 years hold fewer than 2.7 million working days: more can only leave the date range
const MAX_WORKDAYS = 3_000_000;

/** WORKDAY(start, n, [holidays]): the n-th working day from start, its time of day kept. */
const workday = (args: readonly Value[], ctx: EvalContext): Value => {
  const local = localArg(args[0], ctx);
  if (local === undefined) return null;
  const n = typeof args[1] === 'number' && Number.isFinite(args[1]) ? Math.trunc(args[1]) : 0;
  if (Math.abs(n) > MAX_WORKDAYS) throw new FormulaEvalError('date out of range');
  const start = dayNumberOf(local);
  const day = nthWorkingDay(start, n, holidayDays(args[2], ctx.timeZone));
  return isoOfEpoch(epochOfLocal(local + (day - start) * DAY_MS, ctx.timeZone));
};

/** Monday..Friday days from day number 0 (a Thursday) up to, not including, `day`, offset alike. */
const weekdaysBefore = (day: number): number => {
  const fromMonday = day + 3;
  const weeks = Math.floor(fromMonday / 7);
  return 5 * weeks + Math.min(fromMonday - weeks * 7, 5);
};

/** WORKDAY_DIFF: working days from start to end, both included, less holidays; negative backwards. */
const workdayDiff = (args: readonly Value[], ctx: EvalContext): Value => {
  const start = localArg(args[0], ctx);
  const end = localArg(args[1], ctx);
  if (start === undefined || end === undefined) return null;
  const [from, to] = [dayNumberOf(start), dayNumberOf(end)];
  const [low, high] = from <= to ? [from, to] : [to, from];
  const days = weekdaysBefore(high + 1) - weekdaysBefore(low);
  const count = days - holidaysWithin(holidayDays(args[2], ctx.timeZone), low, high);
  return from <= to ? count : -count;
};

const STEPS: readonly FunctionSpec[] = [
  define('DATE_ADD', 3, [DATE, NUMBER, TEXT], 'dateTime', dateAdd),
  define('WORKDAY', 2, [DATE, NUMBER, TEXT], 'dateTime', workday),
  define('WORKDAY_DIFF', 2, [DATE, DATE, TEXT], 'number', workdayDiff),
];

// --- comparisons ---

/** IS_SAME, IS_AFTER, IS_BEFORE: the starts of the unit (empty → day, unknown → instant) compared. */
const compareAt =
  (test: (a: number, b: number) => boolean) =>
  (args: readonly Value[], ctx: EvalContext): Value => {
    const a = epochArg(args[0]);
    const b = epochArg(args[1]);
    if (a === undefined || b === undefined) return null;
    const unit = unitArg(args[2], 'day');
    return test(startOf(a, unit, ctx.timeZone), startOf(b, unit, ctx.timeZone));
  };

const COMPARISONS: readonly FunctionSpec[] = [
  define(
    'IS_SAME',
    2,
    [DATE, DATE, TEXT],
    'boolean',
    compareAt((a, b) => a === b),
  ),
  define(
    'IS_AFTER',
    2,
    [DATE, DATE, TEXT],
    'boolean',
    compareAt((a, b) => a > b),
  ),
  define(
    'IS_BEFORE',
    2,
    [DATE, DATE, TEXT],
    'boolean',
    compareAt((a, b) => a < b),
  ),
];

// --- text ---

const DEFAULT_FORMAT = 'YYYY-MM-DD HH:mm';

/** A one-date text function writing the date with a format in the formula's zone. */
const formatted = (name: string, format: string): FunctionSpec =>
  define(
    name,
    1,
    [DATE],
    'string',
    (args, ctx) => {
      const d = epochArg(args[0]);
      return d === undefined ? null : formatWithTokens(d, format, ctx.timeZone);
    },
    true,
  );

/** DATETIME_FORMAT(d, [fmt]): an empty format is `YYYY-MM-DD HH:mm`. */
const datetimeFormat = (args: readonly Value[], ctx: EvalContext): Value => {
  const d = epochArg(args[0]);
  if (d === undefined) return null;
  const format = typeof args[1] === 'string' && args[1] !== '' ? args[1] : DEFAULT_FORMAT;
  return formatWithTokens(d, format, ctx.timeZone);
};

/** DATETIME_PARSE(text, [fmt]): with a format, read by its tokens; without, as 1.5 reads text. */
const datetimeParse = (args: readonly Value[], ctx: EvalContext, types: readonly Typed[]): Value => {
  const value = args[0];
  if (typeof value !== 'string' || value.trim() === '') return null;
  if (types[0]?.type === 'dateTime') return isoOfEpoch(epochOfIso(value));
  const format = typeof args[1] === 'string' && args[1] !== '' ? args[1] : undefined;
  return format === undefined
    ? readDate(value, ctx.timeZone)
    : parseWithTokens(value, format, ctx.timeZone, ctx.now);
};

const TEXTS: readonly FunctionSpec[] = [
  formatted('DATESTR', 'YYYY-MM-DD'),
  formatted('TIMESTR', 'HH:mm:ss'),
  define('DATETIME_FORMAT', 1, [DATE, TEXT], 'string', datetimeFormat),
  define('DATETIME_PARSE', 1, [TEXT_OR_DATE, TEXT], 'dateTime', datetimeParse),
];

/** The datetime functions of computed.md section 2. */
export const DATETIME_FUNCTIONS: readonly FunctionSpec[] = [
  ...NOW_TODAY,
  ...PARTS,
  ...DIFFS,
  ...STEPS,
  ...COMPARISONS,
  ...TEXTS,
];
