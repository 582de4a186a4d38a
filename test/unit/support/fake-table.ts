import type { BatchGetCommandInput, BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { mintPersonalToken } from '#shared/auth/personal-token.ts';
import { SCOPES } from '#shared/auth/scopes.ts';
import { type Item, TABLE } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';

/**
 * A user with a valid personal token holding every scope: the items `getItems` must return for
 * authentication, and the `Authorization` header to send. `lastUsedTime` is now, so no request
 * refreshes it (no stray UpdateItem in the mock's calls).
 */
export const signedInUser = () => {
  const userId = newId('user');
  const tokenId = newId('accessToken');
  const { token, secretHash } = mintPersonalToken(tokenId, userId);
  const tokenItem: Item = {
    ...keys.accessToken(userId, tokenId),
    type: 'accessToken',
    id: tokenId,
    userId,
    name: 'Unit token',
    scopes: [...SCOPES],
    spaceIds: null,
    baseIds: null,
    expiredTime: new Date(Date.now() + 86_400_000).toISOString(),
    lastUsedTime: new Date().toISOString(),
    secretHash,
  };
  const userItem: Item = {
    ...keys.user(userId),
    type: 'user',
    id: userId,
    name: 'Ada',
    email: 'ada@example.test',
    isAdmin: false,
  };
  return { userId, tokenId, token, auth: `Bearer ${token}`, items: [tokenItem, userItem] };
};

/** A BatchGetItem answer, as DynamoDB gives it: the stored items among the keys asked for. */
export const batchGetFrom =
  (items: readonly Item[]) =>
  (input: BatchGetCommandInput): BatchGetCommandOutput => {
    const asked = input.RequestItems?.[TABLE]?.Keys ?? [];
    const found = items.filter((item) => asked.some((k) => k.pk === item.pk && k.sk === item.sk));
    return { Responses: { [TABLE]: found }, UnprocessedKeys: {}, $metadata: {} };
  };
