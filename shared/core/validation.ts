import * as z from 'zod/mini';
import type { $ZodType, output } from 'zod/v4/core';
import { en } from 'zod/v4/locales';
import { type ErrorDetail, ValidationError } from '#shared/core/errors.ts';
import { type IdKind, idProblem, isId } from '#shared/ids.ts';

// zod/mini (tree-shakable) instead of classic zod keeps each Lambda ~60 KB smaller; it ships no
// messages by default, so the English ones are loaded once here.
z.config(en());

/** Any zod schema (mini or classic). */
export type Schema = $ZodType;

/** How deep a request body may nest (DynamoDB stores maps 32 levels deep at most). */
export const MAX_BODY_DEPTH = 20;

/**
 * Refuses what no route takes in a JSON body, before any schema sees it: a key `__proto__`
 * anywhere (assigning it changes an object's prototype, so it would vanish silently or worse),
 * and nesting deeper than `MAX_BODY_DEPTH`. Iterative: a hostile body cannot exhaust the stack.
 */
export const checkJsonBody = (body: unknown): void => {
  const stack: [unknown, number, string][] = [[body, 0, 'body']];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [value, depth, path] = top;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_BODY_DEPTH)
      throw new ValidationError(`Invalid ${path}: nests more than ${MAX_BODY_DEPTH} levels deep`, [
        { path, message: `nests more than ${MAX_BODY_DEPTH} levels deep` },
      ]);
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) stack.push([v, depth + 1, `${path}.${i}`]);
    } else
      for (const [key, v] of Object.entries(value)) {
        if (key === '__proto__')
          throw new ValidationError(`Invalid ${path}.__proto__: this key is not allowed`, [
            { path: `${path}.__proto__`, message: 'this key is not allowed' },
          ]);
        stack.push([v, depth + 1, `${path}.${key}`]);
      }
  }
};

/** Reads a query value as a list: a bare single value is a one-element list. */
export const queryList = <T extends Schema>(item: T) =>
  z.pipe(
    z.transform((v: unknown) => (v === undefined ? undefined : Array.isArray(v) ? v : [v])),
    z.array(item),
  );

/** A query value that must appear once. */
export const querySingle = <T extends Schema>(inner: T) =>
  z.pipe(
    z.transform((v: unknown) => (Array.isArray(v) ? (v.length === 1 ? v[0] : v) : v)),
    inner,
  );

/** An ISO 8601 time in the future. */
export const futureIsoTime = z.iso
  .datetime({ offset: true })
  .check(z.refine((v) => Date.parse(v) > Date.now(), { error: 'must be in the future' }));

/** A display name: trimmed, 1..255 characters. */
export const displayName = z.string().check(z.trim(), z.minLength(1), z.maxLength(255));

/** Free text up to `max` characters. */
export const text = (max: number) => z.string().check(z.maxLength(max));

/** A list of `min`..`max` items. */
export const listOf = <T extends Schema>(item: T, min: number, max: number) =>
  z.array(item).check(z.minLength(min), z.maxLength(max));

/**
 * A batch of at least `min` items whose upper bound `max` the write checks itself (more is a 413,
 * not a 400); the API description still states it as `maxItems`.
 */
export const batchOf = <T extends Schema>(item: T, min: number, max: number) =>
  z
    .array(item)
    .check(z.minLength(min))
    .register(z.globalRegistry, {
      maxItems: max,
      description: `At most ${max} items: more is a 413`,
    });

const describePath = (where: string, path: readonly PropertyKey[]) =>
  [where, ...path.map((p) => String(p))].join('.');

/** Parses a value with a schema; failure is a 400 listing every issue as `{path, message}`. */
export const parseInput = <T extends Schema>(schema: T, value: unknown, where: string): output<T> => {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.slice(0, 20).map((issue) => ({
    path: describePath(where, issue.path),
    message: issue.message.slice(0, 300),
  }));
  const first = details[0];
  throw new ValidationError(first ? `Invalid ${first.path}: ${first.message}` : `Invalid ${where}`, details);
};

/** An id of one kind, e.g. `idOf('space')` accepts `spc` + 16 base62 characters. */
export const idOf = (kind: IdKind) =>
  z.string().check(z.refine((v) => isId(kind, v), { error: (issue) => idProblem(kind, issue.input) }));

/** A whole number in a query string, 0..max (`skip`, `take`). */
export const queryInt = (max: number) =>
  querySingle(
    z.pipe(
      z.string().check(z.regex(/^\d{1,9}$/, 'must be a whole number')),
      z.pipe(
        z.transform((v: string) => Number(v)),
        z.number().check(z.maximum(max)),
      ),
    ),
  );

/** `true` or `false` in a query string. */
export const queryBool = querySingle(
  z.pipe(
    z.enum(['true', 'false']),
    z.transform((v: 'true' | 'false') => v === 'true'),
  ),
);

/** An email as sign-in takes it (compared lowercased). */
export const emailAddress = z.email().check(z.maxLength(254));
