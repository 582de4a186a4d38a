import { writeFile } from 'node:fs/promises';
import { authenticateToken } from '#shared/auth/authenticate.ts';
import { scopesFor } from '#shared/auth/scopes.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { createUser, FIRST_TOKEN_DAYS } from '#shared/users/users.ts';
import { readJson } from './environment.ts';

// an address every client's validation takes (Teable's login page refuses one without a dotted domain)
export const LOCAL_ADMIN = { name: 'Local Admin', email: 'admin@example.com' };

interface AdminState {
  userId: string;
  email: string;
  token: string;
  /** The password `npm start` gave the admin (to sign in to the web app); absent once changed. */
  password?: string;
}

/** The saved token still authenticates and carries every scope an admin may have (new scopes appear). */
const stillWorks = async (token: string): Promise<boolean> => {
  try {
    const principal = await authenticateToken(token);
    return scopesFor(true).every((s) => principal.scopes.has(s));
  } catch {
    return false;
  }
};

/**
 * The local instance admin: created on first start; later starts reuse it and its token, or mint
 * a new token when the saved one expired or was revoked. The token text is kept in the local
 * state file so it can be printed again (the database holds only its hash).
 */
export const ensureAdmin = async (stateFile: string | undefined): Promise<AdminState> => {
  const saved = stateFile ? await readJson<AdminState>(stateFile) : undefined;
  let state: AdminState;
  if (saved && (await stillWorks(saved.token))) state = saved;
  else if (saved) {
    const expiredTime = new Date(Date.now() + FIRST_TOKEN_DAYS * 86_400_000).toISOString();
    const { token } = await createOperatorToken(saved.userId, {
      name: 'Local server',
      scopes: scopesFor(true),
      expiredTime,
    });
    state = { ...saved, token };
  } else {
    const user = await createUser({ ...LOCAL_ADMIN, isAdmin: true });
    state = { userId: user.id, email: user.email, token: user.token };
  }
  state = await withPassword(state);
  if (stateFile) await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
};

/**
 * The admin's password for signing in: a generated one on first start (kept in the state file
 * beside the token, which is as secret); none shown once someone changed it.
 */
const withPassword = async (state: AdminState): Promise<AdminState> => {
  const { addPassword, generatePassword, passwordIsCurrent } = await import('#shared/users/sessions.ts');
  if (state.password && (await passwordIsCurrent(state.userId, state.password))) return state;
  const principal = await authenticateToken(state.token);
  if (principal.isAdmin && !(await hasPassword(state.userId))) {
    const password = generatePassword();
    await addPassword(state.userId, password);
    return { ...state, password };
  }
  const { password: _changed, ...rest } = state;
  return rest;
};

const hasPassword = async (userId: string) => {
  const { usersByIds } = await import('#shared/entities/users.ts');
  return (await usersByIds([userId])).get(userId)?.hasPassword === true;
};
