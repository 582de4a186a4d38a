import openapi from '#infra/openapi.json' with { type: 'json' };
import { definePublicHandler } from '#shared/http/handler.ts';

/** The API description (OpenAPI 3.1), generated from the code by `npm run docs` (`infra/openapi.ts`). */
export const handler = definePublicHandler('get-openapi', () => openapi);
