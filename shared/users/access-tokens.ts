import { mintPersonalToken } from '#shared/auth/personal-token.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import { deleteItem, type Item, putItem, queryAll, updateItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { NotFoundError } from '#shared/http/errors.ts';
import { newId } from '#shared/ids.ts';

export interface TokenFields {
  name: string;
  description?: string | null;
  scopes: Scope[];
  spaceIds?: string[];
  baseIds?: string[];
  expiredTime: string;
}

/** The stored item of a new token and the token text (shown once). Pure but for randomness. */
export const accessTokenItem = (input: TokenFields & { userId: string; now?: Date }) => {
  const id = newId('accessToken');
  const { token, secretHash } = mintPersonalToken(id, input.userId);
  const item: Item = {
    ...keys.accessToken(input.userId, id),
    type: 'accessToken',
    id,
    userId: input.userId,
    name: input.name,
    description: input.description ?? null,
    scopes: input.scopes,
    spaceIds: input.spaceIds?.length ? input.spaceIds : null,
    baseIds: input.baseIds?.length ? input.baseIds : null,
    expiredTime: input.expiredTime,
    createdTime: (input.now ?? new Date()).toISOString(),
    lastUsedTime: null,
    secretHash,
  };
  return { item, token };
};

/** The public shape of a token (never the secret or its hash). */
export const toTokenInfo = (item: Item) => ({
  id: String(item.id),
  name: String(item.name),
  description: (item.description as string | null) ?? null,
  scopes: (item.scopes as string[]) ?? [],
  spaceIds: (item.spaceIds as string[] | null) ?? null,
  baseIds: (item.baseIds as string[] | null) ?? null,
  expiredTime: String(item.expiredTime),
  createdTime: String(item.createdTime),
  lastUsedTime: (item.lastUsedTime as string | null) ?? null,
});

const notFound = (id: string) => () => new NotFoundError(`Access token ${id} not found`);

/** Creates a token for the user; returns its info with the token text. */
export const createAccessToken = async (userId: string, fields: TokenFields) => {
  const { item, token } = accessTokenItem({ ...fields, userId });
  await putItem(item);
  return { ...toTokenInfo(item), token };
};

/** The user's tokens, oldest first. */
export const listAccessTokens = async (userId: string) => {
  const items = await queryAll(keys.accessTokensOf(userId));
  return items.map(toTokenInfo).sort((a, b) => a.createdTime.localeCompare(b.createdTime));
};

/** Builds the update of a token's editable fields. Pure. */
export const tokenPatch = (patch: Partial<Omit<TokenFields, 'expiredTime'>>) => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = Array.isArray(value) && value.length === 0 && field !== 'scopes' ? null : value;
    sets.push(`#${field} = :${field}`);
  }
  return { sets, names, values };
};

/** Changes name, description, scopes or limits of one of the user's tokens (404 if not there). */
export const updateAccessToken = async (
  userId: string,
  id: string,
  patch: Partial<Omit<TokenFields, 'expiredTime'>>,
) => {
  const { sets, names, values } = tokenPatch(patch);
  const item = await updateItem(
    {
      key: keys.accessToken(userId, id),
      update: sets.length ? `SET ${sets.join(', ')}` : 'SET #id = #id',
      condition: 'attribute_exists(pk)',
      // An empty patch rewrites the id onto itself; '#id' must not be named when unused.
      names: sets.length ? names : { '#id': 'id' },
      values: Object.keys(values).length ? values : undefined,
    },
    notFound(id),
  );
  return toTokenInfo(item);
};

/** Gives a token a new secret and expiry; the old text stops working at once. */
export const refreshAccessToken = async (userId: string, id: string, expiredTime: string) => {
  const { token, secretHash } = mintPersonalToken(id, userId);
  const item = await updateItem(
    {
      key: keys.accessToken(userId, id),
      update: 'SET secretHash = :h, expiredTime = :e, refreshedTime = :now',
      condition: 'attribute_exists(pk)',
      values: { ':h': secretHash, ':e': expiredTime, ':now': new Date().toISOString() },
    },
    notFound(id),
  );
  return { ...toTokenInfo(item), token };
};

/** Revokes a token at once. */
export const deleteAccessToken = async (userId: string, id: string): Promise<void> => {
  await deleteItem(keys.accessToken(userId, id), notFound(id));
};

/** Records that a token was used (at most hourly, see `shouldTouch`). */
export const touchAccessToken = async (userId: string, id: string, now = new Date()): Promise<void> => {
  await updateItem(
    {
      key: keys.accessToken(userId, id),
      update: 'SET lastUsedTime = :t',
      condition: 'attribute_exists(pk)',
      values: { ':t': now.toISOString() },
    },
    notFound(id),
    // Read routes may update only this attribute, and IAM refuses them anything returned.
    'NONE',
  );
};
