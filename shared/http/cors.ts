/**
 * The one CORS policy of the API: the stack hands it to API Gateway (`corsPreflight`), the local
 * server answers it itself. Only the allowed origins differ by stage (infra/stage-config.ts) or by
 * `CORS_ORIGINS` locally.
 */

export const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'Idempotency-Key',
  'X-Request-Id',
] as const;
export const CORS_EXPOSE_HEADERS = ['X-Request-Id', 'ETag', 'Retry-After'] as const;
/** How long a browser may keep a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 3600;

/**
 * Allowed origins from a comma-separated list (`CORS_ORIGINS`): unset means `*`, an empty value
 * means none (no CORS headers, and no preflight answer, like a stage without CORS).
 */
export const parseCorsOrigins = (text: string | undefined): string[] =>
  text === undefined
    ? ['*']
    : text
        .split(',')
        .map((origin) => origin.trim().replace(/\/+$/, ''))
        .filter(Boolean);

/** The `Access-Control-Allow-Origin` for a request's `Origin`, or undefined when it is not allowed. */
const allowedOrigin = (origin: string | undefined, allowed: readonly string[]): string | undefined => {
  if (allowed.includes('*')) return '*';
  return origin !== undefined && allowed.includes(origin) ? origin : undefined;
};

/** An answer echoing one of several origins varies by `Origin`: caches must keep them apart. */
const varyFor = (allowed: readonly string[]): Record<string, string> =>
  allowed.includes('*') ? {} : { vary: 'origin' };

/** The CORS headers of an ordinary answer (as API Gateway adds them): none for an origin not allowed. */
export const corsAnswerHeaders = (
  origin: string | undefined,
  allowed: readonly string[],
): Record<string, string> => {
  const allow = allowedOrigin(origin, allowed);
  if (allow === undefined) return allowed.length ? varyFor(allowed) : {};
  return {
    'access-control-allow-origin': allow,
    'access-control-expose-headers': CORS_EXPOSE_HEADERS.join(', '),
    ...varyFor(allowed),
  };
};

/** The headers of the 204 answering a preflight `OPTIONS`: none for an origin not allowed. */
export const corsPreflightHeaders = (
  origin: string | undefined,
  allowed: readonly string[],
): Record<string, string> => {
  const allow = allowedOrigin(origin, allowed);
  if (allow === undefined) return varyFor(allowed);
  return {
    'access-control-allow-origin': allow,
    'access-control-allow-methods': CORS_ALLOW_METHODS.join(', '),
    'access-control-allow-headers': CORS_ALLOW_HEADERS.join(', '),
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
    ...varyFor(allowed),
  };
};
