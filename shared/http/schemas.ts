import * as z from 'zod/mini';
import { isScope, ROLES, type Scope } from '#shared/auth/scopes.ts';
import { ID_PREFIX, type IdKind, isId } from '#shared/ids.ts';

/** An id of one kind, e.g. `idOf('space')` accepts `spc` + 16 base62 characters. */
export const idOf = (kind: IdKind) =>
  z
    .string()
    .check(z.refine((v) => isId(kind, v), { error: `must be an id starting with ${ID_PREFIX[kind]}` }));

/** A token scope; an unknown one is named in the error (contract: a 400). */
export const scopeSchema = z.custom<Scope>((v) => typeof v === 'string' && isScope(v), {
  error: (issue) =>
    `unknown scope ${JSON.stringify(String(issue.input).slice(0, 60))} (scopes read resource|action)`,
});

export const roleSchema = z.enum(ROLES);
