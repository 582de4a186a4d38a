import * as z from 'zod/mini';
import { isScope, ROLES, type Scope } from '#shared/auth/scopes.ts';
import { displayName, idOf, listOf, text } from '#shared/core/validation.ts';

/** A token scope; an unknown one is named in the error (contract: a 400). */
export const scopeSchema = z.custom<Scope>((v) => typeof v === 'string' && isScope(v), {
  error: (issue) =>
    `unknown scope ${JSON.stringify(String(issue.input).slice(0, 60))} (scopes read resource|action)`,
});

export const roleSchema = z.enum(ROLES);

/**
 * A token's name, description, scopes and limits as the token routes take them (create, PUT;
 * the PATCH takes each optional). A limit list is never empty (auth-errors.md): absent or null
 * means no limit.
 */
export const tokenFields = z.object({
  name: displayName,
  description: z.optional(z.nullable(text(1000))),
  scopes: listOf(scopeSchema, 1, 100),
  spaceIds: z.optional(z.nullable(listOf(idOf('space'), 1, 100))),
  baseIds: z.optional(z.nullable(listOf(idOf('base'), 1, 100))),
});

/**
 * `expiredTime` in the body of PATCH or PUT `/access-token/{id}`: Teable's update schema has no
 * such part and would drop it silently, so a client could believe it moved the token's end. It is
 * a 400 that names the route that does it.
 */
export const expiryNotHere = {
  expiredTime: z.optional(
    z.custom<never>(() => false, {
      error:
        'cannot be changed here: refresh the token (POST /access-token/{accessTokenId}/refresh) with a new expiredTime',
    }),
  ),
};
