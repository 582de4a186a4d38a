import * as z from 'zod';
import { type ErrorDetail, ValidationError } from './errors.ts';

/** Reads a query value as a list: a bare single value is a one-element list. */
export const queryList = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item));

/** A query value that must appear once. */
export const querySingle = <T extends z.ZodType>(inner: T) =>
  z.preprocess((v) => (Array.isArray(v) ? (v.length === 1 ? v[0] : v) : v), inner);

/** An ISO 8601 time in the future. */
export const futureIsoTime = z.iso
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) > Date.now(), { message: 'must be in the future' });

/** A display name: trimmed, 1..255 characters. */
export const displayName = z.string().trim().min(1).max(255);

const describePath = (where: string, path: readonly PropertyKey[]) =>
  [where, ...path.map((p) => String(p))].join('.');

/** Parses a value with a schema; failure is a 400 listing every issue as `{path, message}`. */
export const parseInput = <T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.slice(0, 20).map((issue) => ({
    path: describePath(where, issue.path),
    message: issue.message.slice(0, 300),
  }));
  const first = details[0];
  throw new ValidationError(first ? `Invalid ${first.path}: ${first.message}` : `Invalid ${where}`, details);
};
