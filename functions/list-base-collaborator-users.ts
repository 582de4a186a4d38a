import * as z from 'zod/mini';
import { idOf, queryBool, queryInt, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listCollaboratorUsers } from '#shared/spaces/spaces.ts';

const params = z.object({ baseId: idOf('base') });
const query = z.object({
  search: z.optional(querySingle(z.string().check(z.maxLength(255)))),
  skip: z.optional(queryInt(1_000_000)),
  take: z.optional(queryInt(1000)),
  includeSystem: z.optional(queryBool),
  orderBy: z.optional(querySingle(z.enum(['asc', 'desc']))),
});

export const handler = defineHandler(
  'list-base-collaborator-users',
  { params, query },
  async ({ resource, query }) => listCollaboratorUsers(resource.spaceId, query),
);
