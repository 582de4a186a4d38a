import { expect } from 'vitest';
import { getItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import type { newUser } from './fixtures.ts';
import { call } from './invoke.ts';

type User = Awaited<ReturnType<typeof newUser>>;

/** The time `days` days from now, as an ISO string (token expiry times). */
export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** The Authorization header value for a token's text. */
export const bearer = (token: string) => `Bearer ${token}`;

/** A personal token as `POST /access-token` answers it. */
export interface CreatedToken {
  id: string;
  name: string;
  description: string | null;
  scopes: string[];
  spaceIds: string[] | null;
  baseIds: string[] | null;
  expiredTime: string;
  createdTime: string;
  lastUsedTime: string | null;
  token: string;
}

/**
 * Creates a personal token for the user through the route (named Script, space|create and
 * space|read, for seven days, unless `body` says otherwise); fails the test unless it is a 201.
 */
export const createToken = async (user: User, body: Record<string, unknown> = {}): Promise<CreatedToken> => {
  const res = await call('create-access-token', {
    token: user.auth,
    body: { name: 'Script', scopes: ['space|create', 'space|read'], expiredTime: inDays(7), ...body },
  });
  expect(res.status).toBe(201);
  return res.body as CreatedToken;
};

/** The stored item of a user's token, read straight from DynamoDB (undefined when there is none). */
export const storedToken = async (userId: string, tokenId: string) =>
  (await getItems([keys.accessToken(userId, tokenId)])).get(keys.accessToken(userId, tokenId));

/** `GET /auth/user/me` with an Authorization header value. */
export const me = (authorization: string) => call('get-current-user', { token: authorization });
