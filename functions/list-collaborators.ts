import * as z from 'zod/mini';
import { idOf, queryBool, queryInt, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { collaboratorsAnswer, listCollaborators } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const query = z.object({
  skip: z.optional(queryInt(1_000_000)),
  take: z.optional(queryInt(1000)),
  search: z.optional(querySingle(z.string().check(z.maxLength(255)))),
  includeSystem: z.optional(queryBool),
  includeBase: z.optional(queryBool),
  type: z.optional(querySingle(z.enum(['user', 'department']))),
  orderBy: z.optional(querySingle(z.enum(['asc', 'desc']))),
});

export const handler = defineHandler(
  'list-collaborators',
  { params, query },
  async ({ params, query, principal }) =>
    collaboratorsAnswer(principal, await listCollaborators(params.spaceId, query)),
);
