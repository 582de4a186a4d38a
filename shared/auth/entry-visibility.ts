/**
 * Who may read which change-log entries: the one rule the feed, live subscriptions, webhooks and
 * history share (data-flow.md 3, 5). An entry carries what its kind's read right shows (a record
 * entry carries cells): `record.*` needs `record|read`, `field.*` `field|read`, `table.*`
 * `table|read`, `view.*` `view|read`, in the caller's role in the base's space and in its token.
 * Rights are held per space, so the rule is the same for every table of a base. Pure.
 */

import { ForbiddenError } from '#shared/core/errors.ts';
import type { ChangeType } from '#shared/entities/change-log.ts';
import { type LocatedResource, mayDo, type Principal, tokenCovers } from './permission.ts';
import type { Role, Scope } from './scopes.ts';

/** The right that reading an entry of `type` needs. Pure. */
export const readRightOf = (type: ChangeType): Scope => {
  const kind = type.slice(0, type.indexOf('.'));
  return `${kind}|read` as Scope;
};

/** Where the entries are read: the base located in its space, with the caller's role there. */
export interface EntrySource extends LocatedResource {
  role: Role | undefined;
}

/** A test of whether the principal may read an entry of the base `source` locates. Pure. */
export const entryReader = (principal: Principal, source: EntrySource) => {
  const covered = tokenCovers(principal, source);
  const allowed = new Map<ChangeType, boolean>();
  return (entry: { type: ChangeType }): boolean => {
    let may = allowed.get(entry.type);
    if (may === undefined) {
      may = covered && mayDo(principal, source.role, readRightOf(entry.type));
      allowed.set(entry.type, may);
    }
    return may;
  };
};

/**
 * A webhook (created or changed) sends entries of `events` with their data to whoever holds its
 * URL: its author must be able to read every one of them (403 naming the missing right).
 */
export const assertMayReadEvents = (
  principal: Principal,
  source: EntrySource,
  events: readonly ChangeType[],
): void => {
  const may = entryReader(principal, source);
  const refused = events.find((type) => !may({ type }));
  if (refused)
    throw new ForbiddenError(
      `not allowed to operate ${readRightOf(refused)} on ${source.id}: a webhook of ${refused} events sends what only that right may read`,
    );
};
