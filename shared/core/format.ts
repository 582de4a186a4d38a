/**
 * Number and date text (`cellFormat=text`) and the date parsing of typecast. Pure: time zones come
 * from `Intl`, never from the process's own zone.
 */

/** The kinds of number formatting. */
export const NUMBER_FORMAT_TYPES = ['decimal', 'percent', 'currency'] as const;
export type NumberFormatType = (typeof NUMBER_FORMAT_TYPES)[number];

/** `number` options' `formatting` (fields.md). */
export interface NumberFormatting {
  type: NumberFormatType;
  /** Digits after the point, 0..5. */
  precision: number;
  /** Currency symbol; `$` when absent. */
  symbol?: string;
}

/** The date formats a date field may show (the brief's list plus Teable's presets). */
export const DATE_FORMATS = [
  'YYYY-MM-DD',
  'MM/DD/YYYY',
  'DD/MM/YYYY',
  'YYYY/MM/DD',
  'M/D/YYYY',
  'D/M/YYYY',
  'YYYY-MM',
  'MM-DD',
  'YYYY',
  'MM',
  'DD',
] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** How a date field shows the time of day: 24-hour, 12-hour, or not at all. */
export const TIME_FORMATS = ['HH:mm', 'hh:mm A', 'None'] as const;
export type TimeFormat = (typeof TIME_FORMATS)[number];

/** `date` options' `formatting` (fields.md); also createdTime / lastModifiedTime. */
export interface DateFormatting {
  date: DateFormat;
  time: TimeFormat;
  timeZone: string;
}

/** A date's formatting when none is given (fields.md: `YYYY-MM-DD`, `None`, UTC). */
export const DEFAULT_DATE_FORMATTING: DateFormatting = { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' };

// Building an Intl formatter is far slower than using one; a list of 1000 records formats the same
// few patterns over and over.
const numberFormatters = new Map<string, Intl.NumberFormat>();

const numberFormatter = (precision: number, grouping: boolean): Intl.NumberFormat => {
  const key = `${precision}:${grouping}`;
  let formatter = numberFormatters.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', {
      minimumFractionDigits: precision,
      maximumFractionDigits: precision,
      useGrouping: grouping,
      // `-0.00` for a tiny negative would read as a real negative amount
      signDisplay: 'negative',
    });
    numberFormatters.set(key, formatter);
  }
  return formatter;
};

const clampPrecision = (precision: number): number =>
  Number.isInteger(precision) ? Math.min(5, Math.max(0, precision)) : 2;

/** A number as text: decimal `12.50`, percent `1250.00%` (value × 100), currency `-$1,234.50`. */
export const formatNumber = (value: number, formatting: NumberFormatting): string => {
  if (!Number.isFinite(value)) return String(value);
  const precision = clampPrecision(formatting.precision);
  switch (formatting.type) {
    case 'percent':
      return `${numberFormatter(precision, false).format(value * 100)}%`;
    case 'currency': {
      const text = numberFormatter(precision, true).format(value);
      const symbol = formatting.symbol ?? '$';
      return text.startsWith('-') ? `-${symbol}${text.slice(1)}` : `${symbol}${text}`;
    }
    default:
      return numberFormatter(precision, false).format(value);
  }
};

/**
 * The number in text typecast to a number field: everything but digits, `.`, `+`, `-` is dropped
 * (`$1,234.50` → 1234.5) and a `%` divides by 100; undefined when nothing numeric is left.
 */
export const parseNumberText = (text: string): number | undefined => {
  const kept = text.replace(/[^\d.+-]/g, '');
  if (!/\d/.test(kept)) return undefined;
  const n = Number(kept);
  if (!Number.isFinite(n)) return undefined;
  // toPrecision(15) drops the binary noise of the division (1.1 / 100 → 0.011, not 0.011000000000000001)
  return text.includes('%') ? Number.parseFloat((n / 100).toPrecision(15)) : n;
};

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

// Every date cell written or shown asks for its zone's name: building a formatter to learn it
// costs a tenth of a millisecond, so the answers are kept (at most a few hundred zones exist).
const canonicalZones = new Map<string, string | undefined>();
const MAX_KEPT_ZONES = 1000;

/** The IANA time zone's canonical name (`utc` → `UTC`), or undefined when `Intl` does not know it. */
export const canonicalTimeZone = (timeZone: string): string | undefined => {
  if (canonicalZones.has(timeZone)) return canonicalZones.get(timeZone);
  let canonical: string | undefined;
  if (timeZone.trim() !== '')
    try {
      canonical = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
    } catch {
      canonical = undefined;
    }
  // a caller naming ever new unknown zones cannot grow the map without bound
  if (canonicalZones.size < MAX_KEPT_ZONES) canonicalZones.set(timeZone, canonical);
  return canonical;
};

const zoneFormatter = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = zoneFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneFormatters.set(timeZone, formatter);
  }
  return formatter;
};

/** A wall-clock time; month 1..12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** The wall-clock time in UTC at the instant `epochMs` (read from the date, no formatter). */
export const utcWallClock = (epochMs: number): WallClock => {
  const d = new Date(epochMs);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
};

/** The wall-clock time in `timeZone` at the instant `epochMs`. */
export const wallClockAt = (epochMs: number, timeZone: string): WallClock => {
  // UTC, the zone of most dates, needs no formatter (formatToParts costs microseconds a call)
  if (timeZone === 'UTC') return utcWallClock(epochMs);
  const parts: Record<string, number> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(epochMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const millisecond = ((epochMs % 1000) + 1000) % 1000;
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    millisecond,
  };
};

/** Date.UTC without its 0..99 → 1900s quirk. */
const utcMs = (w: WallClock): number => {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, w.millisecond);
  return d.getTime();
};

const offsetAt = (epochMs: number, timeZone: string): number =>
  utcMs(wallClockAt(epochMs, timeZone)) - epochMs;

/**
 * The instant at which `timeZone` shows the wall-clock time. Two passes settle the offset around
 * daylight-saving changes; a time skipped by a change lands just after it.
 */
export const instantOf = (wall: WallClock, timeZone: string): number => {
  const asUtc = utcMs(wall);
  const first = asUtc - offsetAt(asUtc, timeZone);
  const second = asUtc - offsetAt(first, timeZone);
  if (second === first) return first;
  // the offsets disagree only around a change: keep a candidate that shows the asked time; a time
  // the change skips shows in neither, and the later one is just after the change
  const shows = (candidate: number) => utcMs(wallClockAt(candidate, timeZone)) === asUtc;
  if (shows(second)) return second;
  if (shows(first)) return first;
  return Math.max(first, second);
};

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

const formatDay = (w: WallClock, format: string): string =>
  format.replace(/YYYY|MM|DD|M|D/g, (token) => {
    switch (token) {
      case 'YYYY':
        return pad(w.year, 4);
      case 'MM':
        return pad(w.month);
      case 'DD':
        return pad(w.day);
      case 'M':
        return String(w.month);
      default:
        return String(w.day);
    }
  });

const formatTime = (w: WallClock, format: TimeFormat): string => {
  if (format === 'HH:mm') return `${pad(w.hour)}:${pad(w.minute)}`;
  if (format === 'hh:mm A') return `${pad(w.hour % 12 || 12)}:${pad(w.minute)} ${w.hour < 12 ? 'AM' : 'PM'}`;
  return '';
};

/** An ISO time as the field shows it in its zone: `2026-03-01`, `2026-03-01 14:05`, `… 02:05 PM`. */
export const formatDate = (iso: string, formatting: DateFormatting): string => {
  const epochMs = Date.parse(iso);
  if (Number.isNaN(epochMs)) return iso;
  const timeZone = canonicalTimeZone(formatting.timeZone) ?? 'UTC';
  const wall = wallClockAt(epochMs, timeZone);
  const day = formatDay(wall, formatting.date);
  const time = formatTime(wall, formatting.time);
  return time ? `${day} ${time}` : day;
};

// The earliest and latest instants written as a 4-digit year, so stored values stay ISO 8601.
const MIN_EPOCH_MS = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX_EPOCH_MS = new Date('9999-12-31T23:59:59.999Z').getTime();

/** The UTC ISO text of an instant (`2026-03-01T00:00:00.000Z`), or undefined outside years 1..9999. */
export const isoOf = (epochMs: number): string | undefined =>
  Number.isFinite(epochMs) && epochMs >= MIN_EPOCH_MS && epochMs <= MAX_EPOCH_MS
    ? new Date(epochMs).toISOString()
    : undefined;

const daysInMonth = (year: number, month: number): number => {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
};

const isValidDay = (year: number, month: number, day: number): boolean =>
  year >= 1 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);

/** Milliseconds from a fraction of a second of any length (`5` → 500, `123456` → 123). */
const fractionMs = (fraction: string | undefined): number =>
  fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0;

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * An ISO 8601 time with an offset (`Z`, `+01:00`, `-0530`, `+09`) as UTC ISO with milliseconds;
 * undefined for anything else, including impossible dates like February 30.
 */
export const parseIsoWithOffset = (text: string): string | undefined => {
  const m = ISO_WITH_OFFSET.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const wall: WallClock = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
    millisecond: fractionMs(frac),
  };
  if (!isValidDay(wall.year, wall.month, wall.day)) return undefined;
  if (wall.hour > 24 || wall.minute > 59 || wall.second > 59) return undefined;
  if (wall.hour === 24 && (wall.minute || wall.second || wall.millisecond)) return undefined;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || 0);
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  return isoOf(utcMs(wall) - offsetMinutes * 60_000);
};

const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([AaPp]\.?[Mm]\.?)?`;
const YEAR_FIRST = new RegExp(String.raw`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:(?:[Tt]|\s+)${TIME})?$`);
const YEAR_LAST = new RegExp(String.raw`^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?:(?:[Tt]|,?\s+)${TIME})?$`);
const WEEKDAY = String.raw`(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?`;
const NAME_MONTH_FIRST = new RegExp(
  String.raw`^${WEEKDAY}([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:,?\s+${TIME})?$`,
  'i',
);
const NAME_DAY_FIRST = new RegExp(
  String.raw`^${WEEKDAY}(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]{3,9})\.?,?\s+(\d{4})(?:,?\s+${TIME})?$`,
  'i',
);

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** 1..12 for a month's English name or its first three letters (`Mar`, `march`, `Sept`). */
const monthOfName = (name: string): number | undefined => {
  const lower = name.toLowerCase() === 'sept' ? 'sep' : name.toLowerCase();
  const index = MONTHS.findIndex((m) => m === lower || m.slice(0, 3) === lower);
  return index < 0 ? undefined : index + 1;
};

/** Hour, minute, second, ms of a matched TIME group (undefined parts are midnight). */
const timeOf = (
  h: string | undefined,
  mi: string | undefined,
  s: string | undefined,
  frac: string | undefined,
  meridiem: string | undefined,
): Pick<WallClock, 'hour' | 'minute' | 'second' | 'millisecond'> | undefined => {
  if (h === undefined) return { hour: 0, minute: 0, second: 0, millisecond: 0 };
  let hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? 0);
  if (minute > 59 || second > 59) return undefined;
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    const pm = meridiem.toLowerCase().startsWith('p');
    hour = (hour % 12) + (pm ? 12 : 0);
  } else if (hour > 23) return undefined;
  return { hour, minute, second, millisecond: fractionMs(frac) };
};

/** How to read local date text: slash dates with the year last are month first unless `dayFirst`. */
export interface ParseDateOptions {
  timeZone: string;
  now: Date;
  dayFirst?: boolean;
}

const localDate = (text: string, dayFirst: boolean): WallClock | undefined => {
  let m = YEAR_FIRST.exec(text);
  if (m) {
    const [, y, mo, d, h, mi, s, frac, mer] = m;
    const time = timeOf(h, mi, s, frac, mer);
    return time && { year: Number(y), month: Number(mo), day: Number(d), ...time };
  }
  m = YEAR_LAST.exec(text);
  if (m) {
    const [, a, b, y, h, mi, s, frac, mer] = m;
    // 13/02/2026 can only be day first, whatever the field shows
    const swap = dayFirst ? Number(b) <= 12 || Number(a) > 12 : Number(a) > 12;
    const time = timeOf(h, mi, s, frac, mer);
    return time && { year: Number(y), month: Number(swap ? b : a), day: Number(swap ? a : b), ...time };
  }
  m = NAME_MONTH_FIRST.exec(text);
  const n = m ? undefined : NAME_DAY_FIRST.exec(text);
  if (m || n) {
    const [monthName, day, year] = m ? [m[1], m[2], m[3]] : [n?.[2], n?.[1], n?.[3]];
    const g = (m ?? n) as RegExpExecArray;
    const month = monthOfName(monthName ?? '');
    const time = timeOf(g[4], g[5], g[6], g[7], g[8]);
    return month && time ? { year: Number(year), month, day: Number(day), ...time } : undefined;
  }
  return undefined;
};

/**
 * A written date read the way typecast does (fields.md): `now`, epoch milliseconds, ISO with an
 * offset, or local text (`2026-03-01`, `2026-03-01 14:05`, `03/01/2026 2:05 PM`, `March 1, 2026`)
 * taken in the field's time zone. Returns UTC ISO, or undefined when it cannot be read.
 */
export const parseDate = (value: unknown, options: ParseDateOptions): string | undefined => {
  if (typeof value === 'number') return isoOf(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.toLowerCase() === 'now') return isoOf(options.now.getTime());
  const withOffset = parseIsoWithOffset(text);
  if (withOffset) return withOffset;
  const wall = localDate(text, options.dayFirst ?? false);
  if (!wall || !isValidDay(wall.year, wall.month, wall.day)) return undefined;
  return isoOf(instantOf(wall, canonicalTimeZone(options.timeZone) ?? 'UTC'));
};
