import { expect } from 'vitest';
import type { Role } from '#shared/auth/scopes.ts';
import { newUser } from './fixtures.ts';
import { call } from './invoke.ts';

type Caller = Awaited<ReturnType<typeof newUser>>;

const postSpace = async (user: Caller, body: { name?: string }): Promise<string> => {
  const res = await call('create-space', { token: user.auth, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

/** Creates a space named `name` (201 asserted) and answers its id. */
export const createSpace = (user: Caller, name = 'Team') => postSpace(user, { name });

/** Creates a space without a name, so the API names it (201 asserted), and answers its id. */
export const createUnnamedSpace = (user: Caller) => postSpace(user, {});

/** A user with a space and a base of their own (owner of both). */
export const newWorkspace = async () => {
  const owner = await newUser();
  const space = await call('create-space', { token: owner.auth, body: { name: 'S' } });
  const base = await call('create-base', { token: owner.auth, body: { spaceId: space.body.id } });
  return { owner, spaceId: space.body.id as string, baseId: base.body.id as string };
};

/** A table in a fresh workspace, created with the given body (defaults otherwise). */
export const newTable = async (body: Record<string, unknown> = {}) => {
  const ws = await newWorkspace();
  const res = await call('create-table', { token: ws.owner.auth, params: { baseId: ws.baseId }, body });
  if (res.status !== 201) throw new Error(`create-table: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...ws, table: res.body, tableId: res.body.id as string, viewId: res.body.views[0].id as string };
};

/**
 * A table with `fields` and `n` records whose cells are `cells(i)`, with shortcuts to list it:
 * `list` answers the call as it is (as the owner unless told otherwise), `listOk` fails unless it
 * is a 200 and `names` answers the records' primary names of a 200.
 */
export const listedTable = async (
  fields: unknown[],
  n: number,
  cells: (i: number) => Record<string, unknown>,
) => {
  const t = await newTable({ fields, records: Array.from({ length: n }, (_, i) => ({ fields: cells(i) })) });
  const token = t.owner.auth;
  const ids = t.table.records.map((r: { id: string }) => r.id) as string[];
  const list = (query = '', caller = token) =>
    call('list-records', { token: caller, params: { tableId: t.tableId }, query });
  const listOk = async (query = '') => {
    const res = await list(query);
    if (res.status !== 200) throw new Error(`list-records: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  const names = async (query = '') =>
    (await listOk(query)).body.records.map((r: { name: string }) => r.name) as string[];
  return { ...t, token, ids, list, listOk, names };
};

/**
 * Table `Alpha` (records A1, A2, A3) in a fresh workspace and table `Beta` (records named
 * `betaNames`) in the same base, as created (the link tests' pair).
 */
export const alphaAndBeta = async (betaNames: string[]) => {
  const alpha = await newTable({
    name: 'Alpha',
    records: [{ fields: { Name: 'A1' } }, { fields: { Name: 'A2' } }, { fields: { Name: 'A3' } }],
  });
  const beta = await call('create-table', {
    token: alpha.owner.auth,
    params: { baseId: alpha.baseId },
    body: { name: 'Beta', records: betaNames.map((Name) => ({ fields: { Name } })) },
  });
  if (beta.status !== 201) throw new Error(`create-table: ${beta.status} ${JSON.stringify(beta.body)}`);
  return { alpha, beta: beta.body };
};

/** Adds `member` to a space with a role (the call must succeed). */
export const addMember = async (owner: Caller, spaceId: string, member: { id: string }, role: string) => {
  const res = await call('add-collaborators', {
    token: owner.auth,
    params: { spaceId },
    body: { collaborators: [{ principalId: member.id, principalType: 'user' }], role },
  });
  if (res.status !== 201) throw new Error(`add-collaborators: ${res.status} ${JSON.stringify(res.body)}`);
};

/** A new user added to the workspace's space with a role. */
export const newMember = async (ws: { owner: Caller; spaceId: string }, role: string) => {
  const member = await newUser();
  await addMember(ws.owner, ws.spaceId, member, role);
  return member;
};

/**
 * A space `Team` owned by a fresh user, with one fresh member of each role in `roles`, added in
 * that order; `names` gives users a name (otherwise a generated one).
 */
export const spaceWithRoles = async <R extends Role>(
  roles: readonly R[],
  names: Partial<Record<'owner' | R, string>> = {},
) => {
  const [owner, ...members] = await Promise.all([
    newUser({ name: names.owner }),
    ...roles.map((role) => newUser({ name: names[role] })),
  ]);
  if (!owner) throw new Error('no owner');
  const spaceId = await createSpace(owner);
  const byRole: Partial<Record<R, Caller>> = {};
  for (const [i, role] of roles.entries()) {
    const member = members[i] as Caller;
    await addMember(owner, spaceId, member, role);
    byRole[role] = member;
  }
  return { spaceId, owner, ...(byRole as Record<R, Caller>) };
};

/** Creates a dashboard in the workspace's base (201 asserted) and answers its id. */
export const newDashboard = async (ws: { owner: Caller; baseId: string }, name = 'Board') => {
  const res = await call('create-dashboard', {
    token: ws.owner.auth,
    params: { baseId: ws.baseId },
    body: { name },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
