import { HttpError, UnauthorizedError } from '#shared/core/errors.ts';
import { type AccessToken, accessTokenLookup } from '#shared/entities/access-tokens.ts';
import { type ItemKey, type Loaded, readBatch } from '#shared/entities/batch-read.ts';
import { type Session, sessionLookup } from '#shared/entities/sessions.ts';
import { userLookup } from '#shared/entities/users.ts';
import type { Principal } from './permission.ts';
import { parsePersonalToken, secretMatches } from './personal-token.ts';
import { type Scope, scopesFor } from './scopes.ts';
import { parseSessionCookie, SESSION_TOUCH_MS, sessionCookieIn } from './session-cookie.ts';
import { signingKeys } from './signing-keys.ts';
import { type TempTokenClaims, verifyTempToken } from './temp-token.ts';

/** A bearer credential or a session cookie, after the checks that need no database. */
export type Credential =
  | { kind: 'personal'; tokenId: string; userId: string; secret: string }
  | { kind: 'temporary'; tokenId: string; userId: string; claims: TempTokenClaims }
  | { kind: 'session'; userId: string; secretHash: string };

const MAX_TOKEN_LENGTH = 4096;

/**
 * Reads the request's credential: the `Authorization` header's bearer token, else the session
 * cookie (a request with both uses the bearer). Anything malformed, or neither, is a 401.
 */
export const readCredential = async (
  authorization: string | undefined,
  cookies?: readonly string[],
): Promise<Credential> => {
  if (!authorization?.trim()) {
    const cookie = sessionCookieIn(cookies);
    if (cookie === undefined) throw new UnauthorizedError('no bearer token and no session cookie');
    const session = parseSessionCookie(cookie);
    if (!session) throw new UnauthorizedError('session cookie malformed');
    return { kind: 'session', ...session };
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const token = match?.[1];
  if (!token) throw new UnauthorizedError('no bearer token');
  if (token.length > MAX_TOKEN_LENGTH) throw new UnauthorizedError('token too long');
  const personal = parsePersonalToken(token);
  if (personal) return { kind: 'personal', ...personal };
  if (token.split('.').length === 3) {
    let reason = 'temporary token rejected';
    const claims = await verifyTempToken(token, await signingKeys(), (r) => {
      reason = r;
    });
    if (claims) return { kind: 'temporary', tokenId: claims.parentTokenId, userId: claims.userId, claims };
    throw new UnauthorizedError(reason);
  }
  throw new UnauthorizedError('token of unknown form');
};

/**
 * A credential as a connection keeps it between Lambdas (the cloud's realtime socket), checked
 * again at each message without its secret: a session by the hash of its id (as it is stored), a
 * personal token by its refresh count (a refresh changes the secret and counts up), a temporary
 * token by its verified claims and expiry. Never a secret.
 */
export type KeptCredential =
  | Extract<Credential, { kind: 'session' }>
  | { kind: 'kept-personal'; tokenId: string; userId: string; refreshCount: number }
  | { kind: 'kept-temporary'; tokenId: string; userId: string; claims: TempTokenClaims };

/** What a connection keeps of the credential it authenticated with (`principal` its principal). */
export const keepCredential = (c: Credential, principal: Principal): KeptCredential => {
  if (c.kind === 'session') return c;
  if (c.kind === 'personal')
    return {
      kind: 'kept-personal',
      tokenId: c.tokenId,
      userId: c.userId,
      refreshCount: principal.refreshCount ?? 0,
    };
  return { kind: 'kept-temporary', tokenId: c.tokenId, userId: c.userId, claims: c.claims };
};

/**
 * Several kept credentials read again together (a fan-out's connections: one batch, each item
 * read once however many tabs share it): for each, its principal or the error (a 401) saying why not.
 */
export const authenticateKeptAll = async (
  cs: readonly KeptCredential[],
  now = Date.now(),
): Promise<(Principal | HttpError)[]> => {
  if (!cs.length) return [];
  const loaded = await readBatch(cs.flatMap(credentialKeys));
  return cs.map((c) => {
    try {
      return principalFrom(c, loaded, now);
    } catch (error) {
      if (error instanceof HttpError) return error;
      throw error;
    }
  });
};

/** The items authentication reads: the (parent) token or the session, and its user. */
export const credentialKeys = (c: Credential | KeptCredential): ItemKey[] => [
  c.kind === 'session'
    ? sessionLookup(c.userId, c.secretHash).key
    : accessTokenLookup(c.userId, c.tokenId).key,
  userLookup(c.userId).key,
];

/**
 * A session's principal: the user's own rights (every scope of the user's kind, no limits). A
 * session ended, expired, of an older epoch (the password changed since) or of a user no longer
 * there is a 401.
 */
const sessionPrincipal = (
  c: Extract<Credential, { kind: 'session' }>,
  loaded: Loaded,
  now: number,
): Principal => {
  const session = loaded.valueFor(sessionLookup(c.userId, c.secretHash));
  const user = loaded.valueFor(userLookup(c.userId));
  if (!session) throw new UnauthorizedError('session not found (signed out, or never existed)');
  if (!(Date.parse(session.expiresAt) > now)) throw new UnauthorizedError('session expired');
  if (!user) throw new UnauthorizedError(`user ${c.userId} of the session not found`);
  if (session.epoch !== (user.sessionEpoch ?? 0))
    throw new UnauthorizedError('session ended by a password change');
  return {
    userId: c.userId,
    name: user.name,
    email: user.email,
    isAdmin: user.isAdmin,
    tokenId: '',
    kind: 'session',
    scopes: new Set(scopesFor(user.isAdmin)),
    session: { secretHash: c.secretHash, epoch: session.epoch },
  };
};

interface Limits {
  spaceIds?: string[];
  baseIds?: string[];
}

/**
 * Intersection of two space/base limits. Neither list set means unlimited; once one list is set,
 * an unset other list means "none" (`tokenCovers`), so it must not widen the result.
 */
const narrow = (a: Limits, b: Limits): Limits => {
  if (!a.spaceIds && !a.baseIds) return b;
  if (!b.spaceIds && !b.baseIds) return a;
  const both = (x: string[] | undefined, y: string[] | undefined) =>
    x || y ? (x ?? []).filter((v) => y?.includes(v) ?? false) : undefined;
  return { spaceIds: both(a.spaceIds, b.spaceIds), baseIds: both(a.baseIds, b.baseIds) };
};

/**
 * For a temporary token signed before refreshes were counted (no `rfc`; ten minutes at most): it
 * was signed in the second of the parent's last refresh or later. `iat` has whole seconds, so
 * whole seconds are compared, or a token minted right after the refresh would fail.
 */
const signedAfterRefresh = (issuedAt: number | undefined, token: AccessToken): boolean =>
  (issuedAt ?? 0) >= (token.refreshedTime ? Math.floor(Date.parse(token.refreshedTime) / 1000) : 0);

/**
 * Checks a credential against the items read for it and builds the principal. A temporary token
 * never has more rights than its parent has now: its scopes and limits are narrowed by the
 * parent's current ones, and a deleted or expired parent voids it.
 */
export const principalFrom = (
  c: Credential | KeptCredential,
  loaded: Loaded,
  now = Date.now(),
): Principal => {
  if (c.kind === 'session') return sessionPrincipal(c, loaded, now);
  const read = loaded;
  const token = read.valueFor(accessTokenLookup(c.userId, c.tokenId));
  const user = read.valueFor(userLookup(c.userId));
  if (!token) throw new UnauthorizedError(`token ${c.tokenId} not found (deleted or never existed)`);
  if (c.kind === 'personal' && !secretMatches(c.secret, token.secretHash))
    throw new UnauthorizedError(`token ${c.tokenId}: wrong secret (refreshed or tampered)`);
  if (c.kind === 'kept-personal' && (token.refreshCount ?? 0) !== c.refreshCount)
    throw new UnauthorizedError(`token ${c.tokenId} refreshed since the connection authenticated`);
  if (c.kind === 'kept-temporary' && !((c.claims.expiresAt ?? 0) * 1000 > now))
    throw new UnauthorizedError(`temporary token of ${c.tokenId} expired`);
  if (!(Date.parse(token.expiredTime) > now)) throw new UnauthorizedError(`token ${c.tokenId} expired`);
  if (!user) throw new UnauthorizedError(`user ${c.userId} of token ${c.tokenId} not found`);
  const tokenScopes = token.scopes;
  let scopes: Scope[] = tokenScopes;
  // A stored limit list that is empty limits to nothing (it never means "no limit").
  let spaceIds = token.spaceIds ?? undefined;
  let baseIds = token.baseIds ?? undefined;
  if (c.kind === 'temporary' || c.kind === 'kept-temporary') {
    // A refresh of the parent (say after a leak) voids the temporary tokens minted before it,
    // even in the same second: the token carries the parent's refresh count, and any refresh
    // since moved it. A count needs no clock, so Lambdas whose clocks differ agree, and a mint
    // authenticated by the old secret but signed after the refresh is void too.
    const refreshCount = token.refreshCount ?? 0;
    const { parentRefreshCount, issuedAt } = c.claims;
    if (
      parentRefreshCount !== undefined
        ? parentRefreshCount !== refreshCount
        : !signedAfterRefresh(issuedAt, token)
    )
      throw new UnauthorizedError(`temporary token of ${c.tokenId} signed before the token was refreshed`);
    scopes = c.claims.scopes.filter((s) => tokenScopes.includes(s));
    ({ spaceIds, baseIds } = narrow({ spaceIds, baseIds }, c.claims));
  }
  return {
    userId: c.userId,
    name: user.name,
    email: user.email,
    isAdmin: user.isAdmin,
    tokenId: c.tokenId,
    kind: c.kind === 'kept-personal' ? 'personal' : c.kind === 'kept-temporary' ? 'temporary' : c.kind,
    scopes: new Set(scopes),
    spaceIds,
    baseIds,
    expiredTime: token.expiredTime,
    refreshCount: token.refreshCount ?? 0,
  };
};

/** How stale `lastUsedTime` may get before a request refreshes it (one write an hour at most). */
export const LAST_USED_RESOLUTION_MS = 3_600_000;

const staleUse = ({ lastUsedTime }: Pick<AccessToken, 'lastUsedTime'>, now: number): boolean =>
  lastUsedTime === null || now - Date.parse(lastUsedTime) > LAST_USED_RESOLUTION_MS;

/** True when this request should refresh the token's `lastUsedTime` (the token as read). */
export const shouldTouch = (
  token: Pick<AccessToken, 'lastUsedTime'> | undefined,
  now = Date.now(),
): boolean => token !== undefined && staleUse(token, now);

/** True when this request should refresh the `lastUsedTime` of the credential's token, read with it. */
export const credentialToTouch = (c: Credential, loaded: Loaded, now = Date.now()): boolean => {
  if (c.kind === 'session')
    return sessionToTouch(loaded.valueFor(sessionLookup(c.userId, c.secretHash)), now);
  const token = loaded.valueFor(accessTokenLookup(c.userId, c.tokenId));
  return token !== undefined && staleUse(token, now);
};

/** True when a session's expiry should slide forward now (its last use over an hour ago). */
export const sessionToTouch = (
  session: Pick<Session, 'lastUsedTime'> | undefined,
  now = Date.now(),
): boolean => session !== undefined && now - Date.parse(session.lastUsedTime) > SESSION_TOUCH_MS;

/**
 * The principal of a bare bearer token, read on its own (a live connection, which has no request
 * to batch the reads with): the 401 that says why not when it is no good.
 */
export const authenticateToken = async (token: string, now = Date.now()): Promise<Principal> => {
  const credential = await readCredential(`Bearer ${token}`);
  return principalFrom(credential, await readBatch(credentialKeys(credential)), now);
};

/**
 * The principal of a request's credential read on its own (a WebSocket upgrade, which has no
 * route to batch the reads with): the bearer in `authorization`, else the session cookie among
 * `cookies` (`name=value` each). The 401 that says why not when there is none or it is no good.
 */
export const authenticateCredential = async (
  authorization: string | undefined,
  cookies: readonly string[],
  now = Date.now(),
): Promise<Principal> => {
  const credential = await readCredential(authorization, cookies);
  return principalFrom(credential, await readBatch(credentialKeys(credential)), now);
};
