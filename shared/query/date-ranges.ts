/**
 * Date filter modes (contract `listing.md` section 2, "Dates"): a `DateValue` becomes a range of
 * whole days `[start of the first day, end of the last day]` in the value's IANA time zone. Pure:
 * zones come from `Intl` (through `format.ts`), never from the process's own zone.
 *
 * Decisions the contract leaves open:
 * - Month and year steps keep the day of the month, clamped to the target month's length
 *   (31 March one month ago is 28/29 February; 29 February one year ago is 28 February).
 * - A day whose midnight a daylight-saving change skips starts at the first instant that exists.
 * - `numberOfDays` is a whole number 0..100,000 (0 days ago is today).
 */
import { canonicalTimeZone, instantOf, parseDate, wallClockAt } from '#shared/core/format.ts';
import type { DateValue } from './query-types.ts';

/** Modes that name one day; allowed with every date operator but `isWithIn`. */
export const DAY_MODES = [
  'today',
  'tomorrow',
  'yesterday',
  'oneWeekAgo',
  'oneWeekFromNow',
  'oneMonthAgo',
  'oneMonthFromNow',
  'daysAgo',
  'daysFromNow',
  'exactDate',
] as const;

/** Modes that name a span of days; `isWithIn` only. */
export const RANGE_MODES = [
  'pastWeek',
  'pastMonth',
  'pastYear',
  'nextWeek',
  'nextMonth',
  'nextYear',
  'pastNumberOfDays',
  'nextNumberOfDays',
] as const;

export type DayMode = (typeof DAY_MODES)[number];
export type RangeMode = (typeof RANGE_MODES)[number];
export type DateMode = DayMode | RangeMode;

/** Modes that need `numberOfDays`. */
export const NUMBER_OF_DAYS_MODES: readonly DateMode[] = [
  'daysAgo',
  'daysFromNow',
  'pastNumberOfDays',
  'nextNumberOfDays',
];

/** The largest `numberOfDays` accepted (about 273 years). */
export const MAX_NUMBER_OF_DAYS = 100_000;

export const isDayMode = (mode: unknown): mode is DayMode => DAY_MODES.includes(mode as DayMode);
export const isRangeMode = (mode: unknown): mode is RangeMode => RANGE_MODES.includes(mode as RangeMode);

/** A calendar day (month 1..12), free of any zone. */
export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

const utcDate = (d: CalendarDay): Date => {
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day);
  return date;
};

const dayOf = (date: Date): CalendarDay => ({
  year: date.getUTCFullYear(),
  month: date.getUTCMonth() + 1,
  day: date.getUTCDate(),
});

/** The day `n` days after `d` (negative: before). */
export const addDays = (d: CalendarDay, n: number): CalendarDay => {
  const date = utcDate(d);
  date.setUTCDate(date.getUTCDate() + n);
  return dayOf(date);
};

const daysInMonth = (year: number, month: number): number => {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
};

/** The same day of the month `n` months later, clamped to that month's length. */
export const addMonths = (d: CalendarDay, n: number): CalendarDay => {
  const index = d.year * 12 + (d.month - 1) + n;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { year, month, day: Math.min(d.day, daysInMonth(year, month)) };
};

/** The first instant (epoch ms) of the day in the zone. */
export const startOfDay = (d: CalendarDay, timeZone: string): number =>
  instantOf({ ...d, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone);

/** The last millisecond of the day in the zone. */
export const endOfDay = (d: CalendarDay, timeZone: string): number => startOfDay(addDays(d, 1), timeZone) - 1;

/** The calendar day the zone shows at the instant. */
export const dayInZone = (epochMs: number, timeZone: string): CalendarDay => {
  const w = wallClockAt(epochMs, timeZone);
  return { year: w.year, month: w.month, day: w.day };
};

/**
 * The day `exactDate` names in the zone: an ISO time with an offset is the instant's day there,
 * local text (`2026-03-01`) is that day. Undefined when it cannot be read.
 */
export const exactDayOf = (exactDate: string, timeZone: string): CalendarDay | undefined => {
  // parseDate reads "now" too; an exact date means a written one
  if (exactDate.trim().toLowerCase() === 'now') return undefined;
  const iso = parseDate(exactDate, { timeZone, now: new Date(0) });
  return iso === undefined ? undefined : dayInZone(Date.parse(iso), timeZone);
};

/**
 * The `[startMs, endMs]` (both inclusive) a checked `DateValue` stands for at `now`. Throws a plain
 * Error for a value `resolveFilter` would have refused (unknown mode, missing numberOfDays…).
 */
export const dateRange = (value: DateValue, now: Date): [number, number] => {
  const zone = canonicalTimeZone(value.timeZone);
  if (!zone) throw new Error(`unknown time zone ${value.timeZone}`);
  const today = dayInZone(now.getTime(), zone);
  const n = value.numberOfDays ?? Number.NaN;
  const needN = (): number => {
    if (!Number.isInteger(n)) throw new Error(`mode ${value.mode} needs numberOfDays`);
    return n;
  };
  const span = (first: CalendarDay, last: CalendarDay): [number, number] => [
    startOfDay(first, zone),
    endOfDay(last, zone),
  ];
  const single = (d: CalendarDay) => span(d, d);
  switch (value.mode as DateMode) {
    case 'today':
      return single(today);
    case 'tomorrow':
      return single(addDays(today, 1));
    case 'yesterday':
      return single(addDays(today, -1));
    case 'oneWeekAgo':
      return single(addDays(today, -7));
    case 'oneWeekFromNow':
      return single(addDays(today, 7));
    case 'oneMonthAgo':
      return single(addMonths(today, -1));
    case 'oneMonthFromNow':
      return single(addMonths(today, 1));
    case 'daysAgo':
      return single(addDays(today, -needN()));
    case 'daysFromNow':
      return single(addDays(today, needN()));
    case 'exactDate': {
      const day = value.exactDate === undefined ? undefined : exactDayOf(value.exactDate, zone);
      if (!day) throw new Error('mode exactDate needs a readable exactDate');
      return single(day);
    }
    case 'pastWeek':
      return span(addDays(today, -7), today);
    case 'pastMonth':
      return span(addMonths(today, -1), today);
    case 'pastYear':
      return span(addMonths(today, -12), today);
    case 'nextWeek':
      return span(today, addDays(today, 7));
    case 'nextMonth':
      return span(today, addMonths(today, 1));
    case 'nextYear':
      return span(today, addMonths(today, 12));
    case 'pastNumberOfDays':
      return span(addDays(today, -needN()), today);
    case 'nextNumberOfDays':
      return span(today, addDays(today, needN()));
    default:
      throw new Error(`unknown date mode ${String(value.mode)}`);
  }
};
