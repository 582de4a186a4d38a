import { jwtVerify, SignJWT } from 'jose';
import { config } from '#shared/config.ts';
import { isScope, type Scope } from './scopes.ts';
import type { SigningKeys } from './signing-keys.ts';

const ALGORITHM = 'HS256';
/** Temporary tokens live ten minutes (endpoints.md, route 11). */
export const TEMP_TOKEN_SECONDS = 600;

/** What a temporary token carries: the user, its parent personal token, and that token's rights. */
export interface TempTokenClaims {
  userId: string;
  parentTokenId: string;
  scopes: Scope[];
  spaceIds?: string[];
  baseIds?: string[];
  /** When it was signed (epoch seconds). */
  issuedAt?: number;
  /**
   * The parent's `refreshCount` when it was signed (claim `rfc`): a refresh of the parent since
   * then voids it. Absent in tokens signed before refreshes were counted.
   */
  parentRefreshCount?: number;
  /** When it ends (epoch seconds, claim `exp`): set on verified tokens. */
  expiresAt?: number;
}

const encoder = new TextEncoder();

/** Signs a temporary token with the current key; returns it with its expiry time. */
export const signTempToken = async (claims: TempTokenClaims, keys: SigningKeys, now = Date.now()) => {
  const exp = Math.floor(now / 1000) + TEMP_TOKEN_SECONDS;
  const key = keys.keys[keys.current];
  if (!key) throw new Error('no current signing key');
  const accessToken = await new SignJWT({
    tid: claims.parentTokenId,
    scp: claims.scopes,
    ...(claims.spaceIds ? { spc: claims.spaceIds } : {}),
    ...(claims.baseIds ? { bse: claims.baseIds } : {}),
    ...(claims.parentRefreshCount === undefined ? {} : { rfc: claims.parentRefreshCount }),
  })
    .setProtectedHeader({ alg: ALGORITHM, kid: keys.current, typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuer(config.jwtIssuer)
    .setAudience(config.jwtAudience)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(exp)
    .sign(encoder.encode(key));
  return { accessToken, expiresTime: new Date(exp * 1000).toISOString() };
};

const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;

/**
 * Verifies a temporary token: fixed algorithm, known `kid`, issuer, audience, expiry. Returns
 * its claims, or undefined for any token that does not verify (the reason goes to `onReject`).
 */
export const verifyTempToken = async (
  token: string,
  keys: SigningKeys,
  onReject: (reason: string) => void,
): Promise<TempTokenClaims | undefined> => {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid ? keys.keys[header.kid] : undefined;
        if (!key) throw new Error(`unknown kid ${header.kid}`);
        return encoder.encode(key);
      },
      {
        algorithms: [ALGORITHM],
        issuer: config.jwtIssuer,
        audience: config.jwtAudience,
        requiredClaims: ['exp', 'sub'],
      },
    );
    const scopes = stringList(payload.scp);
    if (typeof payload.sub !== 'string' || typeof payload.tid !== 'string' || !scopes) {
      onReject('temporary token without sub, tid or scp');
      return undefined;
    }
    return {
      userId: payload.sub,
      parentTokenId: payload.tid,
      scopes: scopes.filter(isScope),
      spaceIds: stringList(payload.spc),
      baseIds: stringList(payload.bse),
      issuedAt: typeof payload.iat === 'number' ? payload.iat : undefined,
      ...(typeof payload.rfc === 'number' ? { parentRefreshCount: payload.rfc } : {}),
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
    };
  } catch (error) {
    onReject(`temporary token rejected: ${(error as Error).message}`);
    return undefined;
  }
};
