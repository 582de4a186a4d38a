import { expect } from 'vitest';

/** The one 401 body, whatever the cause (auth-errors.md, "Tokens"). */
export const UNAUTHORIZED = {
  message: 'Sign in, or send a valid bearer token',
  status: 401,
  code: 'unauthorized',
};

/** A time as the API writes it: ISO 8601 in UTC with milliseconds. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A field as the field and table routes answer it. */
export type Field = {
  id: string;
  name: string;
  type: string;
  dbFieldName: string;
  options: Record<string, unknown>;
  [k: string]: unknown;
};

/** Matches an id of the contract's shape: the prefix and 16 base62 characters. */
export const id = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}[0-9A-Za-z]{16}$`));

/** Matches an error answer: the status and the contract's body (message exact, or a pattern). */
export const error = (status: number, code: string, message: string | RegExp) => ({
  status,
  body: {
    status,
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  },
});
export const notFound = (message: string | RegExp) => error(404, 'not_found', message);
export const invalid = (message: string | RegExp) => error(400, 'validation_error', message);
export const forbidden = (message: string | RegExp) => error(403, 'restricted_resource', message);

/** Whether an answer's body is the contract's error body, with the HTTP status in it. */
export const isErrorBody = (res: { status: number; body: unknown }): boolean => {
  const body = res.body as { message?: unknown; code?: unknown; status?: unknown } | null;
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof body.message === 'string' &&
    typeof body.code === 'string' &&
    body.status === res.status
  );
};
