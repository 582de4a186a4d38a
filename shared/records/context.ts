import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ROLE_ACTIONS } from '#shared/auth/scopes.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { queryAll, updateItem } from '#shared/db/client.ts';
import { LIVE } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { attachmentFactsFor } from '#shared/entities/attachments.ts';
import { memberOf } from '#shared/entities/members.ts';
import type { UserRef, WriteContext } from '#shared/fields/field-types.ts';
import { newId } from '#shared/ids.ts';
import type { TableSchema } from '#shared/schema/schema.ts';

/** The caller as user cells and `createdBy` hold it. */
export const userRefOf = (principal: Principal): UserRef => ({
  id: principal.userId,
  title: principal.name,
  email: principal.email,
});

/** Collaborators of the space (user cells must name one); read only when the table has a user field. */
export const collaboratorsFor = async (schema: TableSchema, spaceId: string): Promise<UserRef[]> => {
  if (!schema.fields.some((f) => f.type === 'user')) return [];
  const members = (await queryAll(keys.membersOf(spaceId))).flatMap((m) => memberOf(m) ?? []);
  return members.map((m) => ({ id: m.userId, title: m.userName, email: m.email }));
};

/** What converting written values needs; `withCollaborators: false` when no user cell is written. */
export const writeContextFor = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  withCollaborators = true,
  /** The tokens written attachment cells name: their uploads are read (with the collaborators). */
  attachmentTokens: readonly string[] = [],
): Promise<WriteContext> => {
  const [collaborators, attachments] = await Promise.all([
    withCollaborators ? collaboratorsFor(schema, located.spaceId) : [],
    attachmentTokens.length ? attachmentFactsFor(attachmentTokens, schema.table.baseId) : undefined,
  ]);
  return {
    now: new Date(),
    user: userRefOf(principal),
    collaborators,
    newChoiceId: () => newId('choice'),
    ...(attachments ? { attachments } : {}),
  };
};

/** Whether the caller may update cells and delete records here (role and token scope). */
export const recordRights = (principal: Principal, located: Located) => {
  const role = located.role ? ROLE_ACTIONS[located.role] : new Set();
  return {
    canUpdate: role.has('record|update') && principal.scopes.has('record|update'),
    canDelete: role.has('record|delete') && principal.scopes.has('record|delete'),
  };
};

/**
 * Reserves `count` autoNumbers of a table (one atomic counter update); answers the first. Numbers
 * are never reused: a write that fails after this leaves a gap.
 */
export const allocateAutoNumbers = async (tableId: string, count: number): Promise<number> => {
  const item = await updateItem(
    {
      key: keys.table(tableId),
      update: 'ADD autoNumber :n',
      condition: LIVE,
      values: { ':n': count },
    },
    () => new NotFoundError(`Table ${tableId} not found`),
  );
  return Number(item.autoNumber) - count + 1;
};
