import type { Principal } from './permission.ts';
import { signingKeys } from './signing-keys.ts';
import { signTempToken } from './temp-token.ts';

/** A temporary token with exactly the calling personal token's user, scopes and limits. */
export const createTempToken = async (principal: Principal) =>
  signTempToken(
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
