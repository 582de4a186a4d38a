import { ForbiddenError } from '#shared/core/errors.ts';
import type { Principal } from './permission.ts';
import { signingKeys } from './signing-keys.ts';
import { signTempToken } from './temp-token.ts';

/**
 * A temporary token with exactly the calling personal token's user, scopes and limits. A session
 * has no token to be the parent (a refresh or a delete of it must void the copy): 403.
 */
export const createTempToken = async (principal: Principal) => {
  if (principal.kind === 'session')
    throw new ForbiddenError(
      'a temporary token is made from a personal access token, not from a sign-in session',
    );
  return signTempToken(
    {
      userId: principal.userId,
      parentTokenId: principal.tokenId,
      scopes: [...principal.scopes],
      spaceIds: principal.spaceIds ? [...principal.spaceIds] : undefined,
      baseIds: principal.baseIds ? [...principal.baseIds] : undefined,
      parentRefreshCount: principal.refreshCount ?? 0,
    },
    await signingKeys(),
  );
};
