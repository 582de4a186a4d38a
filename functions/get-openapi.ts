import { openApiDocument } from '#shared/http/docs-page.ts';
import { definePublicHandler } from '#shared/http/handler.ts';

/** The API description (OpenAPI 3.1), generated from the code by `npm run docs` (`infra/openapi.ts`). */
export const handler = definePublicHandler('get-openapi', openApiDocument);
