import { definePublicHandler } from '#shared/http/handler.ts';
import { signInPage } from '#shared/http/sign-in-page.ts';

/** A plain sign-in page: a form for `POST /api/auth/signin`, then who is signed in. */
export const handler = definePublicHandler('get-sign-in-page', signInPage);
