import { type Scope, scopesFor } from '#shared/auth/scopes.ts';
import { ConflictError, InternalServerError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/client.ts';
import { claimEmailOp, toUserItem, type User } from '#shared/entities/users.ts';
import { newId } from '#shared/ids.ts';
import { accessTokenItem } from './access-tokens.ts';

/** How long the first token of a new user lasts. */
export const FIRST_TOKEN_DAYS = 30;

export interface NewUser {
  name: string;
  email: string;
  isAdmin?: boolean;
  /**
   * The scopes of the first token, at most those a user of this kind may have (`scopesFor`);
   * every one of them when absent (the operator's tools).
   */
  scopes?: readonly Scope[];
}

/** The public shape of a user. */
export const toUser = (user: User) => ({
  id: user.id,
  name: user.name,
  email: user.email,
});

/**
 * Creates a user with a personal token (valid 30 days) holding `input.scopes` or every scope, atomically with the
 * claim on its email; an email already taken is a 409. Returns the user and the token text.
 */
export const createUser = async (input: NewUser, now = new Date()) => {
  const userId = newId('user');
  const email = input.email.trim();
  const user: User = {
    id: userId,
    name: input.name,
    email,
    isAdmin: input.isAdmin === true,
    createdTime: now.toISOString(),
  };
  const {
    accessToken,
    item: tokenItem,
    token,
  } = accessTokenItem({
    userId,
    name: 'Default token',
    scopes: scopesFor(input.isAdmin === true).filter((s) => !input.scopes || input.scopes.includes(s)),
    expiredTime: new Date(now.getTime() + FIRST_TOKEN_DAYS * 86_400_000).toISOString(),
    now,
  });
  await transact([claimEmailOp(email, userId), { put: toUserItem(user) }, { put: tokenItem }], (index) =>
    index === 0 ? new ConflictError(`The email ${email} is already in use`) : new InternalServerError(),
  );
  return { ...toUser(user), token, tokenId: accessToken.id, isAdmin: user.isAdmin };
};
