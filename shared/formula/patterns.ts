/**
 * Regular expressions inside formulas, run by a linear-time engine (RE2 semantics, `re2js`), so
 * no pattern a user writes can make matching take exponential time (issue 27: `(a+)+$` against
 * 32 `a`s and a `!` blocked JavaScript's backtracking engine for 31 s). Patterns are written in
 * JavaScript syntax and translated; what RE2 cannot run in linear time (backreferences such as
 * `\1`, lookahead `(?=…)`/`(?!…)`, lookbehind `(?<=…)`/`(?<!…)`) is refused. Pure.
 */
import { RE2JS } from 're2js';
import { FormulaEvalError } from './formula-types.ts';

/** Longest pattern a formula may use (in characters). */
export const MAX_PATTERN_LENGTH = 1000;

const CACHE_SIZE = 64;
/** Compiled patterns, the oldest dropped first past `CACHE_SIZE`. */
const cache = new Map<string, RE2JS>();

/** Why a JavaScript pattern cannot run here, or undefined when it can. */
const refusal = (source: string, flags: number): string | undefined => {
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    compileNow(source, flags);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
};

const compileNow = (source: string, flags: number): RE2JS =>
  RE2JS.compile(RE2JS.translateRegExp(source), flags);

/**
 * A compiled pattern (the last 64 compiled are kept), or a FormulaEvalError when it is not valid or
 * uses syntax the linear-time engine does not run.
 */
export const compilePattern = (source: string, caseInsensitive = false): RE2JS => {
  const flags = caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0;
  const key = `${flags}:${source}`;
  // a formula's pattern is mostly a literal, the same for every record: the cache serves it
  const hit = cache.get(key);
  if (hit) return hit;
  const why = refusal(source, flags);
  if (why !== undefined) throw new FormulaEvalError(`invalid regular expression: ${why}`);
  const compiled = compileNow(source, flags);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
};

/**
 * For a pattern written in a formula as a literal: why it is refused at create/convert (a 400), or
 * undefined. A pattern JavaScript itself refuses stays an evaluation error (an empty cell, as the
 * contract says of a bad regex); a valid JavaScript pattern the linear-time engine does not take
 * (backreferences, lookaround) or an over-long one is refused up front, so the author learns it.
 */
export const unsupportedPattern = (source: string): string | undefined => {
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    // eslint-disable-next-line no-new -- constructing a RegExp checks its syntax without running it
    new RegExp(source);
  } catch {
    return undefined;
  }
  const why = refusal(source, 0);
  return why === undefined
    ? undefined
    : `uses syntax this service does not run (backreferences and lookaround are not supported): ${why}`;
};

/** JavaScript's replacement text for one match: `$$`, `$&`, `` $` ``, `$'`, `$1`…`$99`, `$<name>`. */
const expand = (
  replacement: string,
  text: string,
  start: number,
  end: number,
  group: (g: number | string) => string | null,
  groups: number,
): string => {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i] as string;
    const next = replacement[i + 1];
    if (c !== '$' || next === undefined) {
      out += c;
      continue;
    }
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '&') {
      out += text.slice(start, end);
      i++;
    } else if (next === '`') {
      out += text.slice(0, start);
      i++;
    } else if (next === "'") {
      out += text.slice(end);
      i++;
    } else if (next >= '0' && next <= '9') {
      const two = replacement.slice(i + 1, i + 3);
      const n2 = /^\d\d$/.test(two) ? Number(two) : Number.NaN;
      const n1 = Number(next);
      if (n2 >= 1 && n2 <= groups) {
        out += group(n2) ?? '';
        i += 2;
      } else if (n1 >= 1 && n1 <= groups) {
        out += group(n1) ?? '';
        i++;
      } else out += c;
    } else if (next === '<') {
      const close = replacement.indexOf('>', i + 2);
      if (close < 0) {
        out += c;
        continue;
      }
      try {
        out += group(replacement.slice(i + 2, close)) ?? '';
      } catch {
        // no such named group: JavaScript answers an empty text
      }
      i = close;
    } else out += c;
  }
  return out;
};

/** `text` with its first match of `source` replaced as JavaScript's `String.replace` would. */
export const replaceFirst = (text: string, source: string, replacement: string): string => {
  const m = compilePattern(source).matcher(text);
  if (!m.find()) return text;
  const start = m.start();
  const end = m.end();
  const expanded = expand(replacement, text, start, end, (g) => m.group(g), m.groupCount());
  return text.slice(0, start) + expanded + text.slice(end);
};

/** The groups of a whole-text, case-insensitive match of `source` (index 0 is the text), or null. */
export const matchWhole = (text: string, source: string): (string | null)[] | null => {
  const m = compilePattern(source, true).matcher(text);
  if (!m.matches()) return null;
  return Array.from({ length: m.groupCount() + 1 }, (_, i) => m.group(i));
};
