import * as z from 'zod';
import { ROLES, SCOPES } from '#shared/auth/scopes.ts';
import { ID_PREFIX, type IdKind, isId } from '#shared/ids.ts';

/** An id of one kind, e.g. `idOf('space')` accepts `spc` + 16 base62 characters. */
export const idOf = (kind: IdKind) =>
  z.string().refine((v) => isId(kind, v), { message: `must be an id starting with ${ID_PREFIX[kind]}` });

export const scopeSchema = z.enum(SCOPES, { message: `must be one of ${SCOPES.join(', ')}` });
export const roleSchema = z.enum(ROLES);
