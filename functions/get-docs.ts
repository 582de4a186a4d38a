import { docsPage } from '#shared/http/docs-page.ts';
import { definePublicHandler } from '#shared/http/handler.ts';

/** The API reference page (Swagger UI over `/api/openapi.json`). */
export const handler = definePublicHandler('get-docs', docsPage);
