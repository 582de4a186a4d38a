import * as z from 'zod/mini';
import { idOf, queryBool, queryInt, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { collaboratorsAnswer, listCollaborators } from '#shared/spaces/spaces.ts';

const params = z.object({ baseId: idOf('base') });
const query = z.object({
  skip: z.optional(queryInt(1_000_000)),
  take: z.optional(queryInt(1000)),
  search: z.optional(querySingle(z.string().check(z.maxLength(255)))),
  includeSystem: z.optional(queryBool),
  type: z.optional(querySingle(z.enum(['user', 'department']))),
});

// A base has no members of its own: its collaborators are its space's.
export const handler = defineHandler(
  'list-base-collaborators',
  { params, query },
  async ({ resource, query, principal }) =>
    collaboratorsAnswer(principal, await listCollaborators(resource.spaceId, query)),
);
