/** Request schemas of the space routes that several handlers share. */
import * as z from 'zod/mini';
import { roleSchema } from '#shared/auth/token-requests.ts';
import { idOf, listOf } from '#shared/core/validation.ts';
import { MAX_COLLABORATORS_PER_CALL } from './spaces.ts';

export const spaceParams = z.object({ spaceId: idOf('space') });

/** Users added to a space with one role (`POST /space/{s}/collaborators`, and the client's singular form). */
export const addCollaboratorsBody = z.object({
  collaborators: listOf(
    z.object({ principalId: idOf('user'), principalType: z.literal('user') }),
    1,
    MAX_COLLABORATORS_PER_CALL,
  ),
  role: roleSchema,
});
