import * as z from 'zod/mini';
import { isScope, ROLES, type Scope } from '#shared/auth/scopes.ts';

/** A token scope; an unknown one is named in the error (contract: a 400). */
export const scopeSchema = z.custom<Scope>((v) => typeof v === 'string' && isScope(v), {
  error: (issue) =>
    `unknown scope ${JSON.stringify(String(issue.input).slice(0, 60))} (scopes read resource|action)`,
});

export const roleSchema = z.enum(ROLES);
