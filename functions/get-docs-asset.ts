import { docsAsset } from '#shared/http/docs-page.ts';
import { definePublicHandler } from '#shared/http/handler.ts';

/** A script or style sheet of the API reference page (bundled from `swagger-ui-dist`). */
export const handler = definePublicHandler('get-docs-asset', (params) => docsAsset(params.asset));
