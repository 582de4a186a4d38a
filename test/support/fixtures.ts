import { randomBase62 } from '#shared/ids.ts';
import { createUser } from '#shared/users/users.ts';

/** A new user with a fresh email and its all-scopes token. */
export const newUser = async (options: { isAdmin?: boolean; name?: string } = {}) => {
  const tag = randomBase62(10).toLowerCase();
  const user = await createUser({
    name: options.name ?? `User ${tag}`,
    email: `${tag}@example.test`,
    isAdmin: options.isAdmin,
  });
  return { ...user, auth: `Bearer ${user.token}` };
};
