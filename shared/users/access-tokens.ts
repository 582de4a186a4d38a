import type { Principal } from '#shared/auth/permission.ts';
import { mintPersonalToken } from '#shared/auth/personal-token.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import {
  basesToPlace,
  checkExpiryWithinCeiling,
  checkWithinCeiling,
  type TokenRights,
} from '#shared/auth/token-ceiling.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import {
  type AccessToken,
  accessTokenLookup,
  accessTokensOfUser,
  deleteAccessTokenItem,
  patchAccessToken,
  putAccessToken,
  refreshAccessTokenItem,
  touchAccessTokenItem,
} from '#shared/entities/access-tokens.ts';
import { spacesOfBases } from '#shared/entities/bases.ts';
import type { Loaded } from '#shared/entities/batch-read.ts';
import { newId } from '#shared/ids.ts';

/** A token's fields as a caller gives them; a limit list is never empty (null or absent: no limit). */
export interface TokenFields {
  name: string;
  description?: string | null;
  scopes: Scope[];
  spaceIds?: string[] | null;
  baseIds?: string[] | null;
  expiredTime: string;
}

/** A new token and its text (shown once; only its hash is kept). Pure but for randomness. */
export const newAccessToken = (input: TokenFields & { userId: string; now?: Date }) => {
  const id = newId('accessToken');
  const { token, secretHash } = mintPersonalToken(id, input.userId);
  const accessToken: AccessToken = {
    id,
    userId: input.userId,
    name: input.name,
    description: input.description ?? null,
    scopes: input.scopes,
    spaceIds: input.spaceIds ?? null,
    baseIds: input.baseIds ?? null,
    expiredTime: input.expiredTime,
    createdTime: (input.now ?? new Date()).toISOString(),
    lastUsedTime: null,
    secretHash,
  };
  return { accessToken, token };
};

/**
 * The public shape of a token (never the secret or its hash), as every token route answers it:
 * `hasFullAccess` when it has no space or base limits (Teable's token routes).
 */
export const toTokenInfo = (token: AccessToken) => ({
  id: token.id,
  name: token.name,
  description: token.description,
  scopes: token.scopes,
  spaceIds: token.spaceIds,
  baseIds: token.baseIds,
  expiredTime: token.expiredTime,
  createdTime: token.createdTime,
  lastUsedTime: token.lastUsedTime,
  hasFullAccess: token.spaceIds === null && token.baseIds === null,
});

const notFound = (id: string) => () => new NotFoundError(`Access token ${id} not found`);

/** The stored rights of a token. */
const rightsOf = (token: AccessToken): TokenRights => ({
  scopes: token.scopes,
  spaceIds: token.spaceIds,
  baseIds: token.baseIds,
});

/**
 * Checks that `wanted` lies within the calling token's rights (a 403 otherwise). Reads the bases
 * it names that the caller does not list itself, to learn their spaces (one batch, only for a
 * limited caller).
 */
const checkCeiling = async (caller: Principal, wanted: TokenRights): Promise<void> => {
  const unplaced = basesToPlace(caller, wanted);
  const spaces = await spacesOfBases(unplaced);
  checkWithinCeiling(caller, wanted, (b) => spaces.get(b));
};

/** Items read in a batch with authentication. */

/** The lookup of the caller's own token `id`: the routes that change a token read it with authentication. */
export { accessTokenLookup };

/**
 * One of the caller's tokens that the calling token may manage: it must exist (404) and lie
 * within the calling token's rights (403), so a narrowed token cannot refresh, widen or revoke a
 * stronger sibling.
 */
const manageable = async (caller: Principal, id: string, loaded: Loaded): Promise<AccessToken> => {
  const token = loaded.valueFor(accessTokenLookup(caller.userId, id));
  if (!token) throw notFound(id)();
  if (id !== caller.tokenId) await checkCeiling(caller, rightsOf(token));
  return token;
};

/**
 * Creates a token for the calling user within the calling token's rights and lifetime
 * (`checkWithinCeiling`, `checkExpiryWithinCeiling`); returns its info with the token text.
 */
export const createAccessToken = async (caller: Principal, fields: TokenFields) => {
  checkExpiryWithinCeiling(caller, fields.expiredTime);
  await checkCeiling(caller, fields);
  const { accessToken, token } = newAccessToken({ ...fields, userId: caller.userId });
  await putAccessToken(accessToken);
  return { ...toTokenInfo(accessToken), token };
};

/** Creates a token with no ceiling check: for the operator's tools, which act as the user. */
export const createOperatorToken = async (userId: string, fields: TokenFields) => {
  const { accessToken, token } = newAccessToken({ ...fields, userId });
  await putAccessToken(accessToken);
  return { ...toTokenInfo(accessToken), token };
};

/** The user's tokens, oldest first. */
export const listAccessTokens = async (userId: string) => {
  const tokens = await accessTokensOfUser(userId);
  return tokens.map(toTokenInfo).sort((a, b) => a.createdTime.localeCompare(b.createdTime));
};

/** Builds the update of a token's editable fields. Pure. */
export const tokenPatch = (patch: Partial<Omit<TokenFields, 'expiredTime'>>) => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  return { sets, names, values };
};

/**
 * Changes name, description, scopes or limits of one of the user's tokens (404 if not there).
 * The token must be one the caller may manage, and its rights after the change must lie within
 * the caller's (403 otherwise, nothing written); it must expire no later than the caller (400:
 * an edit keeps the expiry, and a token widened by a shorter-lived one would outlive its giver;
 * refresh it to an earlier time first). `null` limits mean "no limit".
 */
export const updateAccessToken = async (
  caller: Principal,
  id: string,
  patch: Partial<Omit<TokenFields, 'expiredTime'>>,
  loaded: Loaded,
) => {
  const current = await manageable(caller, id, loaded);
  checkExpiryWithinCeiling(caller, current.expiredTime, id);
  const before = rightsOf(current);
  await checkCeiling(caller, {
    scopes: patch.scopes ?? before.scopes,
    spaceIds: patch.spaceIds === undefined ? before.spaceIds : patch.spaceIds,
    baseIds: patch.baseIds === undefined ? before.baseIds : patch.baseIds,
  });
  return toTokenInfo(await patchAccessToken(caller.userId, id, tokenPatch(patch), notFound(id)));
};

/**
 * Gives one of the caller's tokens (one it may manage) a new secret and an expiry no later than
 * the caller's own (400 otherwise: a token never extends its own life, nor a sibling's past
 * itself); the old text stops working at once. A sibling that lives longer than the caller may be
 * refreshed: the refresh brings it within the caller's lifetime.
 */
export const refreshAccessToken = async (
  caller: Principal,
  id: string,
  expiredTime: string,
  loaded: Loaded,
) => {
  await manageable(caller, id, loaded);
  checkExpiryWithinCeiling(caller, expiredTime);
  const { token, secretHash } = mintPersonalToken(id, caller.userId);
  const refreshed = await refreshAccessTokenItem(
    caller.userId,
    id,
    { secretHash, expiredTime, now: new Date() },
    notFound(id),
  );
  return { ...toTokenInfo(refreshed), token };
};

/** Revokes one of the caller's tokens (one it may manage) at once. */
export const deleteAccessToken = async (caller: Principal, id: string, loaded: Loaded): Promise<void> => {
  await manageable(caller, id, loaded);
  await deleteAccessTokenItem(caller.userId, id, notFound(id));
};

/** Records that a token was used (at most hourly, see `shouldTouch`). */
export const touchAccessToken = async (userId: string, id: string, now = new Date()): Promise<void> => {
  await touchAccessTokenItem(userId, id, now, notFound(id));
};

/** One of the caller's own tokens (`GET /access-token/{id}`), without its text; 404 for any other. */
export const getAccessToken = (userId: string, id: string, loaded: Loaded) => {
  const token = loaded.valueFor(accessTokenLookup(userId, id));
  if (!token) throw notFound(id)();
  return toTokenInfo(token);
};

/**
 * Replaces a token's name, description, scopes and limits (`PUT /access-token/{id}`): what the
 * body leaves out is cleared (no description, no limit). `hasFullAccess: true` means no limits.
 * The same ceiling rules as the PATCH apply.
 */
export const replaceAccessToken = async (
  caller: Principal,
  id: string,
  fields: Omit<TokenFields, 'expiredTime'>,
  loaded: Loaded,
) =>
  updateAccessToken(
    caller,
    id,
    {
      name: fields.name,
      description: fields.description ?? null,
      scopes: fields.scopes,
      spaceIds: fields.spaceIds ?? null,
      baseIds: fields.baseIds ?? null,
    },
    loaded,
  );
