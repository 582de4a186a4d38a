import { newUser } from './fixtures.ts';
import { call } from './invoke.ts';

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

type Caller = Awaited<ReturnType<typeof newUser>>;

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
