import type { HttpError } from '#shared/core/errors.ts';
import { isScope, type Scope } from '#shared/core/rights.ts';
import {
  deleteItem,
  getItems,
  type Item,
  putItem,
  queryAll,
  type TransactOp,
  type UpdateSpec,
  updateItem,
} from '#shared/db/client.ts';
import { EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { optionalText, text, textOrNull, textsOrNull } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * A personal access token (`USER#<usr>` `TOKEN#<tok>`). A limit list is never empty: `null`
 * means no limit. `secretHash` never leaves the service.
 */
export interface AccessToken {
  id: string;
  userId: string;
  name: string;
  description: string | null;
  scopes: Scope[];
  spaceIds: string[] | null;
  baseIds: string[] | null;
  expiredTime: string;
  createdTime: string;
  lastUsedTime: string | null;
  /** When the secret was last replaced (absent until the first refresh). */
  refreshedTime?: string;
  /**
   * How many times the secret was replaced (absent until the first refresh, or for a token last
   * refreshed before refreshes were counted). Temporary tokens carry it: a count that moved since
   * they were signed voids them, however close in time the refresh came.
   */
  refreshCount?: number;
  secretHash: string;
}

/** The stored item of a token. Pure. */
export const toAccessTokenItem = (token: AccessToken): Item => ({
  ...keys.accessToken(token.userId, token.id),
  type: 'accessToken',
  id: token.id,
  userId: token.userId,
  name: token.name,
  description: token.description,
  scopes: token.scopes,
  spaceIds: token.spaceIds,
  baseIds: token.baseIds,
  expiredTime: token.expiredTime,
  createdTime: token.createdTime,
  lastUsedTime: token.lastUsedTime,
  ...(token.refreshedTime === undefined ? {} : { refreshedTime: token.refreshedTime }),
  ...(token.refreshCount === undefined ? {} : { refreshCount: token.refreshCount }),
  secretHash: token.secretHash,
});

/** The token stored in an item; scopes no longer in the contract are dropped. */
export const accessTokenOf = (item: Item): AccessToken => {
  const refreshedTime = optionalText(item.refreshedTime);
  return {
    id: text(item.id),
    userId: text(item.userId),
    name: text(item.name),
    description: textOrNull(item.description),
    scopes: (textsOrNull(item.scopes) ?? []).filter(isScope),
    spaceIds: textsOrNull(item.spaceIds),
    baseIds: textsOrNull(item.baseIds),
    expiredTime: text(item.expiredTime),
    createdTime: text(item.createdTime),
    lastUsedTime: textOrNull(item.lastUsedTime),
    ...(refreshedTime === undefined ? {} : { refreshedTime }),
    ...(typeof item.refreshCount === 'number' ? { refreshCount: item.refreshCount } : {}),
    secretHash: text(item.secretHash),
  };
};

/** Condition of every change to a token: it is still there (not revoked meanwhile). */
export const TOKEN_EXISTS = EXISTS;

/**
 * The update that gives a token a new secret and expiry: it stamps the refresh and counts it
 * (`refreshCount`, atomically, so two refreshes racing each move it). Pure.
 */
export const refreshTokenUpdate = (
  userId: string,
  id: string,
  change: { secretHash: string; expiredTime: string; now: Date },
): UpdateSpec => ({
  key: keys.accessToken(userId, id),
  update:
    'SET secretHash = :h, expiredTime = :e, refreshedTime = :now, refreshCount = if_not_exists(refreshCount, :zero) + :one',
  condition: TOKEN_EXISTS,
  values: {
    ':h': change.secretHash,
    ':e': change.expiredTime,
    ':now': change.now.toISOString(),
    ':zero': 0,
    ':one': 1,
  },
});

/** Tokens by user and id (one batch read): those still there, keyed `<userId>#<tokenId>`. */
export const readAccessTokens = async (
  pairs: readonly { userId: string; tokenId: string }[],
): Promise<Map<string, AccessToken>> => {
  const wanted = [...new Map(pairs.map((p) => [`${p.userId}#${p.tokenId}`, p])).values()];
  const found = await getItems(wanted.map((p) => keys.accessToken(p.userId, p.tokenId)));
  const out = new Map<string, AccessToken>();
  for (const p of wanted) {
    const item = found.get(keys.accessToken(p.userId, p.tokenId));
    if (item) out.set(`${p.userId}#${p.tokenId}`, accessTokenOf(item));
  }
  return out;
};

/** The operation that stores a new token (its id is new: unconditional). Pure. */
export const putAccessTokenOp = (token: AccessToken): TransactOp => ({ put: toAccessTokenItem(token) });

/** Stores a new token (one unconditional put: its id is new). */
export const putAccessToken = (token: AccessToken): Promise<void> => putItem(toAccessTokenItem(token));

/** A user's tokens, in token id order. */
export const accessTokensOfUser = async (userId: string): Promise<AccessToken[]> =>
  (await queryAll(keys.accessTokensOf(userId))).map(accessTokenOf);

/**
 * Sets attributes of a token that is there (`sets`, as `#name = :name`, with their names and
 * values; none: the token is rewritten unchanged) and answers it; one gone becomes `onMissing()`.
 */
export const patchAccessToken = async (
  userId: string,
  id: string,
  patch: { sets: string[]; names: Record<string, string>; values: Record<string, unknown> },
  onMissing: () => HttpError,
): Promise<AccessToken> => {
  const { sets, names, values } = patch;
  const item = await updateItem(
    {
      key: keys.accessToken(userId, id),
      update: sets.length ? `SET ${sets.join(', ')}` : 'SET #id = #id',
      condition: TOKEN_EXISTS,
      // An empty patch rewrites the id onto itself; '#id' must not be named when unused.
      names: sets.length ? names : { '#id': 'id' },
      values: Object.keys(values).length ? values : undefined,
    },
    onMissing,
  );
  return accessTokenOf(item);
};

/** Gives a token that is there a new secret and expiry (`refreshTokenUpdate`) and answers it. */
export const refreshAccessTokenItem = async (
  userId: string,
  id: string,
  change: { secretHash: string; expiredTime: string; now: Date },
  onMissing: () => HttpError,
): Promise<AccessToken> => accessTokenOf(await updateItem(refreshTokenUpdate(userId, id, change), onMissing));

/** Deletes a token that is there; one gone becomes `onMissing()`. */
export const deleteAccessTokenItem = (
  userId: string,
  id: string,
  onMissing: () => HttpError,
): Promise<void> => deleteItem(keys.accessToken(userId, id), onMissing);

/** Stamps when a token that is there was last used; one gone becomes `onMissing()`. */
export const touchAccessTokenItem = async (
  userId: string,
  id: string,
  now: Date,
  onMissing: () => HttpError,
): Promise<void> => {
  await updateItem(
    {
      key: keys.accessToken(userId, id),
      update: 'SET lastUsedTime = :t',
      condition: TOKEN_EXISTS,
      values: { ':t': now.toISOString() },
    },
    onMissing,
    // Read routes may update only this attribute, and IAM refuses them anything returned.
    'NONE',
  );
};
/** The lookup of a user's token, to read in a batch. Pure. */
export const accessTokenLookup = (userId: string, tokenId: string): Lookup<AccessToken> =>
  lookupOf(keys.accessToken(userId, tokenId), accessTokenOf);
