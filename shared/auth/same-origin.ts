import { ForbiddenError } from '#shared/core/errors.ts';

/** Methods that change something: carried by a session cookie, they must come from our own pages. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The origin a `Referer` names, or undefined. */
const originOfUrl = (url: string | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? undefined : parsed.origin;
  } catch {
    return undefined;
  }
};

/**
 * Refuses a cross-site write carried by the session cookie (contract: sessions): its `Origin`
 * (else its `Referer`) must be the request's own host or one of the stage's web origins; with
 * neither header it is refused too. Bearer requests never reach this check. Pure.
 */
export const checkSameOrigin = (
  method: string,
  headers: Readonly<Record<string, string | undefined>>,
  ownHost: string | undefined,
  webOrigins: readonly string[],
): void => {
  if (!WRITES.has(method.toUpperCase())) return;
  const origin =
    headers.origin && headers.origin !== 'null' ? originOfUrl(headers.origin) : originOfUrl(headers.referer);
  if (!origin)
    throw new ForbiddenError('a write signed in by cookie must name its origin (Origin or Referer header)');
  if (ownHost && new URL(origin).host === ownHost.toLowerCase()) return;
  if (webOrigins.includes(origin)) return;
  throw new ForbiddenError(`cross-site write refused: ${origin} is not this service's origin`);
};

/**
 * The host a request was made to, as the browser saw it: CloudFront's `X-Forwarded-Host` (the
 * distribution's function sets it from the viewer's `Host`: API Gateway itself is reached under
 * its own host), else `Host`, else `fallback`. A browser page elsewhere cannot set this header on
 * a request that carries the cookie: a custom header needs a CORS preflight the API does not pass
 * for credentials, and the cookie is `SameSite=Lax` besides; a client that is not a browser has
 * no victim's cookie to send. Pure.
 */
export const ownHostOf = (
  headers: Readonly<Record<string, string | undefined>>,
  fallback?: string,
): string | undefined =>
  (Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-forwarded-host')?.[1] ?? '')
    .split(',')[0]
    ?.trim() ||
  Object.entries(headers).find(([k]) => k.toLowerCase() === 'host')?.[1] ||
  fallback;
