/**
 * Dates inside formulas (computed.md 1.5 and the DateTime functions of section 2): reading text as
 * an instant in the formula's zone, and writing or reading a date with format tokens
 * (`YYYY-MM-DD HH:mm`). Owned by the date-time functions' author; the evaluator converts text
 * arguments with `readDate`. Pure; zones only through `Intl`.
 */
import { isoOf, parseDate, parseIsoWithOffset, type WallClock } from '#shared/core/format.ts';
import { epochOfLocal, localAt, localOfWall, wallOfLocal, weekdayOfLocal } from './date-units.ts';
import { FormulaEvalError } from './formula-types.ts';
import { matchWhole } from './patterns.ts';

/** `2023-09` (first of the month) or `2023` (1 January), which typecast's parser does not read. */
const YEAR_MONTH = /^(\d{4})(?:-(\d{1,2}))?$/;

const readYearMonth = (text: string, timeZone: string): string | undefined => {
  const m = YEAR_MONTH.exec(text);
  if (!m) return undefined;
  const month = Number(m[2] ?? 1);
  if (month < 1 || month > 12) return undefined;
  const wall: WallClock = {
    year: Number(m[1]),
    month,
    day: 1,
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
  };
  return isoOf(epochOfLocal(localOfWall(wall), timeZone));
};

/** Local date text read the way typecast reads it, except the word `now` (no clock here). */
const readLocal = (text: string, timeZone: string): string | undefined => {
  if (text.toLowerCase() === 'now') return undefined;
  return readYearMonth(text, timeZone) ?? parseDate(text, { timeZone, now: new Date(0) });
};

/**
 * The instant a text names, as ISO UTC: ISO-8601 with `Z` or an offset is that instant; other
 * text (`2023-09-08`, `2023-09-08 18:28:38`) is local time in `timeZone`. Unreadable: FormulaEvalError.
 */
export const readDate = (text: string, timeZone: string): string => {
  const trimmed = text.trim();
  const iso = parseIsoWithOffset(trimmed) ?? readLocal(trimmed, timeZone);
  if (iso === undefined) throw new FormulaEvalError(`"${text}" is not a date`);
  return iso;
};

/** The epoch milliseconds of a dateTime value (ISO text); FormulaEvalError when it is not one. */
export const epochOfIso = (iso: string): number => {
  const epochMs = Date.parse(iso);
  if (Number.isNaN(epochMs)) throw new FormulaEvalError(`"${iso}" is not a date`);
  return epochMs;
};

/** The ISO text of an instant; FormulaEvalError outside years 1..9999. */
export const isoOfEpoch = (epochMs: number): string => {
  const iso = isoOf(epochMs);
  if (iso === undefined) throw new FormulaEvalError('date out of range');
  return iso;
};

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** `[literal]` or one format token, longest first. */
const TOKEN = /\[([^\]]+)\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|A|a|ZZ|Z/g;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `+08:00` (or `+0800` without `colon`) for an offset in minutes. */
const offsetText = (minutes: number, colon: boolean): string => {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}${colon ? ':' : ''}${pad(abs % 60)}`;
};

/** What one format token writes for a wall clock with its weekday and zone offset. */
const tokenText = (token: string, w: WallClock, weekday: number, offsetMinutes: number): string => {
  switch (token) {
    case 'YYYY':
      return pad(w.year, 4);
    case 'YY':
      return pad(w.year % 100);
    case 'MMMM':
      return MONTH_NAMES[w.month - 1] ?? '';
    case 'MMM':
      return (MONTH_NAMES[w.month - 1] ?? '').slice(0, 3);
    case 'MM':
      return pad(w.month);
    case 'M':
      return String(w.month);
    case 'DD':
      return pad(w.day);
    case 'D':
      return String(w.day);
    case 'dddd':
      return DAY_NAMES[weekday] ?? '';
    case 'ddd':
      return (DAY_NAMES[weekday] ?? '').slice(0, 3);
    case 'dd':
      return (DAY_NAMES[weekday] ?? '').slice(0, 2);
    case 'd':
      return String(weekday);
    case 'HH':
      return pad(w.hour);
    case 'H':
      return String(w.hour);
    case 'hh':
      return pad(w.hour % 12 || 12);
    case 'h':
      return String(w.hour % 12 || 12);
    case 'mm':
      return pad(w.minute);
    case 'm':
      return String(w.minute);
    case 'ss':
      return pad(w.second);
    case 's':
      return String(w.second);
    case 'SSS':
      return pad(w.millisecond, 3);
    case 'A':
      return w.hour < 12 ? 'AM' : 'PM';
    case 'a':
      return w.hour < 12 ? 'am' : 'pm';
    case 'ZZ':
      return offsetText(offsetMinutes, false);
    default:
      return offsetText(offsetMinutes, true);
  }
};

/**
 * An instant written with format tokens in `timeZone`: `YYYY YY M MM MMM MMMM D DD d dd ddd dddd
 * H HH h hh m mm s ss SSS A a Z ZZ` (English names; `Z` = `+08:00`, `ZZ` = `+0800`), `[text]`
 * written as is, any other character copied.
 */
export const formatWithTokens = (epochMs: number, format: string, timeZone: string): string => {
  const local = localAt(epochMs, timeZone);
  const wall = wallOfLocal(local);
  const weekday = weekdayOfLocal(local);
  const offsetMinutes = Math.round((local - epochMs) / 60_000);
  return format.replace(
    TOKEN,
    (token: string, literal: string | undefined) => literal ?? tokenText(token, wall, weekday, offsetMinutes),
  );
};

/** The pattern one format token reads. */
const TOKEN_PATTERNS: Readonly<Record<string, string>> = {
  YYYY: String.raw`\d{4}`,
  YY: String.raw`\d{2}`,
  MMMM: '[a-z]+',
  MMM: '[a-z]+',
  MM: String.raw`\d{1,2}`,
  M: String.raw`\d{1,2}`,
  DD: String.raw`\d{1,2}`,
  D: String.raw`\d{1,2}`,
  dddd: '[a-z]+',
  ddd: '[a-z]+',
  dd: '[a-z]+',
  d: '[0-6]',
  HH: String.raw`\d{1,2}`,
  H: String.raw`\d{1,2}`,
  hh: String.raw`\d{1,2}`,
  h: String.raw`\d{1,2}`,
  mm: String.raw`\d{1,2}`,
  m: String.raw`\d{1,2}`,
  ss: String.raw`\d{1,2}`,
  s: String.raw`\d{1,2}`,
  SSS: String.raw`\d{1,3}`,
  A: '[ap]m',
  a: '[ap]m',
  ZZ: String.raw`z|[+-]\d{2}:?\d{2}`,
  Z: String.raw`z|[+-]\d{2}:?\d{2}`,
};

const escapeLiteral = (text: string): string =>
  text.replace(/\s+|[.*+?^${}()|[\]\\/-]/g, (c) => (/^\s/.test(c) ? String.raw`\s+` : `\\${c}`));

/** A format as an anchored case-insensitive pattern and the token each capture group holds. */
const compileFormat = (format: string): { pattern: string; tokens: string[] } => {
  const tokens: string[] = [];
  let source = '';
  let last = 0;
  for (const m of format.matchAll(TOKEN)) {
    source += escapeLiteral(format.slice(last, m.index));
    if (m[1] !== undefined) source += escapeLiteral(m[1]);
    else {
      tokens.push(m[0]);
      source += `(${TOKEN_PATTERNS[m[0]]})`;
    }
    last = m.index + m[0].length;
  }
  source += escapeLiteral(format.slice(last));
  return { pattern: source, tokens };
};

/** The fields a format read, before defaults. */
interface ReadFields {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  millisecond?: number;
  pm?: boolean;
  offsetMinutes?: number;
}

/** 1..12 for an English month name or its first three letters; NaN otherwise. */
const monthOfName = (name: string): number => {
  const lower = name.toLowerCase();
  const index = MONTH_NAMES.findIndex(
    (m) => m.toLowerCase() === lower || m.slice(0, 3).toLowerCase() === lower,
  );
  return index < 0 ? Number.NaN : index + 1;
};

/** Offset minutes of `Z`, `+08:00`, `-0530`. */
const offsetOfText = (text: string): number => {
  if (text.toUpperCase() === 'Z') return 0;
  const digits = text.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return text.startsWith('-') ? -minutes : minutes;
};

/** Records what one token read into `fields`. */
const readToken = (token: string, text: string, fields: ReadFields): void => {
  const n = Number(text);
  if (token === 'YYYY') fields.year = n;
  else if (token === 'YY') fields.year = n + (n > 68 ? 1900 : 2000);
  else if (token === 'MMMM' || token === 'MMM') fields.month = monthOfName(text);
  else if (token === 'MM' || token === 'M') fields.month = n;
  else if (token === 'DD' || token === 'D') fields.day = n;
  else if (/^[Hh]{1,2}$/.test(token)) fields.hour = n;
  else if (token === 'mm' || token === 'm') fields.minute = n;
  else if (token === 'ss' || token === 's') fields.second = n;
  else if (token === 'SSS') fields.millisecond = Number(text.padEnd(3, '0'));
  else if (token === 'A' || token === 'a') fields.pm = text.toLowerCase() === 'pm';
  else if (token === 'Z' || token === 'ZZ') fields.offsetMinutes = offsetOfText(text);
  // weekdays (d dd ddd dddd) are read and ignored
};

/**
 * Missing date parts as dayjs fills them: no year → this year; no month → January when a year
 * was read, else this month; no day → the 1st when a year or month was read, else today.
 */
const withDefaults = (f: ReadFields, today: WallClock): WallClock | undefined => {
  let hour = f.hour ?? 0;
  if (f.pm !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (f.pm ? 12 : 0);
  }
  const dated = f.year !== undefined || f.month !== undefined;
  return {
    year: f.year ?? today.year,
    month: f.month ?? (f.year !== undefined ? 1 : today.month),
    day: f.day ?? (dated ? 1 : today.day),
    hour,
    minute: f.minute ?? 0,
    second: f.second ?? 0,
    millisecond: f.millisecond ?? 0,
  };
};

/** True when every part is in range (no 30 February, no 24:00). */
const isValidWall = (w: WallClock): boolean => {
  const back = wallOfLocal(localOfWall(w));
  return (
    w.year >= 1 &&
    w.year <= 9999 &&
    back.year === w.year &&
    back.month === w.month &&
    back.day === w.day &&
    back.hour === w.hour &&
    back.minute === w.minute &&
    back.second === w.second
  );
};

/**
 * Text read with format tokens (as `formatWithTokens` writes them; letter case and runs of spaces
 * are free) in `timeZone`, or at the offset a `Z`/`ZZ` token read. Missing parts per dayjs, from
 * `now`. Returns ISO UTC; FormulaEvalError when the text does not match or names no real time.
 */
export const parseWithTokens = (text: string, format: string, timeZone: string, now: Date): string => {
  const { pattern, tokens } = compileFormat(format);
  // a format is the user's too: matched in linear time (patterns.ts), whatever its tokens
  const m = matchWhole(text.trim(), pattern);
  if (!m) throw new FormulaEvalError(`"${text}" does not match the format "${format}"`);
  const fields: ReadFields = {};
  tokens.forEach((token, i) => {
    readToken(token, m[i + 1] ?? '', fields);
  });
  const wall = withDefaults(fields, wallOfLocal(localAt(now.getTime(), timeZone)));
  if (!wall || !isValidWall(wall)) throw new FormulaEvalError(`"${text}" is not a date`);
  const epochMs =
    fields.offsetMinutes === undefined
      ? epochOfLocal(localOfWall(wall), timeZone)
      : localOfWall(wall) - fields.offsetMinutes * 60_000;
  return isoOfEpoch(epochMs);
};
