import { ForbiddenError, ValidationError } from '#shared/core/errors.ts';
import type { Principal } from './permission.ts';
import { ADMIN_SCOPE, type Scope } from './scopes.ts';

/** What a token may do: its scopes and its space/base limits (absent or null: no limit). */
export interface TokenRights {
  scopes: readonly Scope[];
  spaceIds?: readonly string[] | null;
  baseIds?: readonly string[] | null;
}

const limited = (r: Pick<TokenRights, 'spaceIds' | 'baseIds'>) => Boolean(r.spaceIds || r.baseIds);

/**
 * The bases named by `wanted` whose space must be known to check it against `caller` (a base
 * outside the caller's own base list may still lie in one of its spaces). Pure.
 */
export const basesToPlace = (caller: Principal, wanted: TokenRights): string[] =>
  limited(caller) ? (wanted.baseIds ?? []).filter((b) => !caller.baseIds?.includes(b)) : [];

/**
 * Tokens are a ceiling (auth-errors.md): the rights a token creates or edits another token with
 * must lie within the caller's own. Scopes must be a subset; a limited caller may only set limits
 * inside its own (a space it covers, or a base it covers directly or through its space), never
 * none; `instance|admin` needs the user's admin flag too. `spaceOfBase` answers the space of a
 * base the caller does not list itself (undefined when unknown). Throws a 403 saying what exceeds.
 */
export const checkWithinCeiling = (
  caller: Principal,
  wanted: TokenRights,
  spaceOfBase: (baseId: string) => string | undefined = () => undefined,
): void => {
  if (wanted.scopes.includes(ADMIN_SCOPE) && !caller.isAdmin)
    throw new ForbiddenError(`only an instance admin's token may carry ${ADMIN_SCOPE}`);
  const extra = wanted.scopes.filter((s) => !caller.scopes.has(s));
  if (extra.length)
    throw new ForbiddenError(`this token cannot give scopes it does not have: ${extra.join(', ')}`);
  if (!limited(caller)) return;
  if (!limited(wanted))
    throw new ForbiddenError('this token is limited to some spaces or bases; so must be the tokens it gives');
  const spaces = caller.spaceIds ?? [];
  const outsideSpaces = (wanted.spaceIds ?? []).filter((s) => !spaces.includes(s));
  const outsideBases = (wanted.baseIds ?? []).filter((b) => {
    if (caller.baseIds?.includes(b)) return false;
    const space = spaceOfBase(b);
    return space === undefined || !spaces.includes(space);
  });
  const outside = [...outsideSpaces, ...outsideBases];
  if (outside.length)
    throw new ForbiddenError(
      `this token's limits do not cover ${outside.length === 1 ? outside[0] : `${outside.length} of the spaces or bases asked for`}`,
    );
};

/**
 * Tokens are a ceiling in time too: a token gives (creates, refreshes to) only an `expiredTime`
 * no later than its own expiry, and edits only tokens that expire no later than itself
 * (`editedTokenId` names the edited token; `expiredTime` is then its stored expiry). Otherwise a
 * 400 naming the limit: the remedy is an earlier time, not other rights. A caller without an
 * expiry (the operator's tools) is not bounded.
 */
export const checkExpiryWithinCeiling = (
  caller: Pick<Principal, 'expiredTime'>,
  expiredTime: string,
  editedTokenId?: string,
): void => {
  const limit = caller.expiredTime;
  // Compared as instants: the same time written with another offset or precision is equal.
  if (limit === undefined || !(Date.parse(expiredTime) > Date.parse(limit))) return;
  if (editedTokenId !== undefined)
    throw new ValidationError(
      `token ${editedTokenId} expires ${expiredTime}, later than the calling token's expiry (${limit}): a token edits only tokens that expire no later than itself`,
    );
  const message = `expiredTime must not be later than the calling token's expiry (${limit})`;
  throw new ValidationError(message, [{ path: 'body.expiredTime', message }]);
};

/**
 * Only an unlimited personal token may create an instance admin (`POST /admin/users` with
 * `isAdmin: true`): an admin's rights reach every space and last beyond any one request, so a
 * short-lived temporary token or one limited to some spaces or bases must not mint them (the
 * new admin's first token could not carry those bounds: the admin flag is the user's, not the
 * token's). Throws a 403 otherwise.
 */
export const checkMayCreateAdmin = (caller: Principal): void => {
  if (caller.kind === 'temporary' || limited(caller))
    throw new ForbiddenError(
      'creating an instance admin needs an unlimited personal token of an instance admin: not a temporary token, nor one limited to spaces or bases',
    );
};
