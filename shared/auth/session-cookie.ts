import { isId, randomBase62 } from '#shared/ids.ts';
import { hashSecret } from './personal-token.ts';

/**
 * The session cookie (contract: sessions): `auth_session=<user id>.<secret>`. The secret is 43
 * random base62 characters (256 bits); only its SHA-256 is stored (`entities/sessions.ts`). The
 * user's id lets one strongly consistent read fetch the session with its user, as a personal
 * token's does. Pure.
 */
export const SESSION_COOKIE = 'auth_session';
const SECRET_LENGTH = 43;
/** Sessions last 30 days from their last use. */
export const SESSION_DAYS = 30;
export const SESSION_MS = SESSION_DAYS * 86_400_000;
/** How stale a session's last use may get before a request moves its expiry (one write an hour at most). */
export const SESSION_TOUCH_MS = 3_600_000;

/** A new session's cookie value and the hash to store. */
export const mintSession = (userId: string): { value: string; secretHash: string } => {
  const secret = randomBase62(SECRET_LENGTH);
  return { value: `${userId}.${secret}`, secretHash: hashSecret(secret) };
};

/** The session a cookie value names (user and the hash of its secret), or undefined when malformed. */
export const parseSessionCookie = (value: string): { userId: string; secretHash: string } | undefined => {
  const [userId, secret, ...rest] = value.split('.');
  if (rest.length || !isId('user', userId) || !secret || !/^[0-9A-Za-z]{43}$/.test(secret)) return undefined;
  return { userId, secretHash: hashSecret(secret) };
};

/** The session cookie's value among a request's cookies (`name=value` each, payload 2.0's `cookies`). */
export const sessionCookieIn = (cookies: readonly string[] | undefined): string | undefined => {
  for (const cookie of cookies ?? []) {
    for (const part of cookie.split(';')) {
      const at = part.indexOf('=');
      if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim();
    }
  }
  return undefined;
};

/** The `Set-Cookie` of a session: HttpOnly, SameSite=Lax, the whole site; Secure when deployed. */
export const sessionSetCookie = (value: string, secure: boolean, maxAgeSeconds = SESSION_MS / 1000): string =>
  `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** The `Set-Cookie` that removes the session cookie from the browser. */
export const clearSessionCookie = (secure: boolean): string => sessionSetCookie('', secure, 0);
