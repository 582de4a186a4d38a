import { type Principal, recordRightsOf } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { attachmentFactsFor } from '#shared/entities/attachments.ts';
import { readMembers } from '#shared/entities/members.ts';
import { reserveAutoNumbers } from '#shared/entities/tables.ts';
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
  const members = await readMembers(spaceId);
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
    attachmentTokens.length
      ? attachmentFactsFor(attachmentTokens, {
          baseId: schema.table.baseId,
          tableId: schema.table.id,
          userId: principal.userId,
        })
      : undefined,
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
export const recordRights = (principal: Principal, located: Located) =>
  recordRightsOf(principal, located.role);

/**
 * Reserves `count` autoNumbers of a table (one atomic counter update); answers the first. Numbers
 * are never reused: a write that fails after this leaves a gap.
 */
export const allocateAutoNumbers = (tableId: string, count: number): Promise<number> =>
  reserveAutoNumbers(tableId, count, () => new NotFoundError(`Table ${tableId} not found`));
