/**
 * The API reference page (`GET /api/docs`): Swagger UI, its assets bundled from the npm registry
 * (`swagger-ui-dist`, no CDN), reading the generated description at `/api/openapi.json`. "Try it
 * out" sends real requests to the same origin with the token given under "Authorize" (kept in
 * the browser's storage across reloads).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { NotFoundError } from '#shared/core/errors.ts';
import { API_PREFIX } from '#shared/routes.ts';
import { TextReply } from './handler.ts';

/** The assets the page loads, by name, with their content type. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** Assets change only with the package's version: browsers may keep them a day. */
const ASSET_MAX_AGE = 86_400;

// Absolute paths: the page is served at /api/docs and /api/docs/ alike, and a relative one would
// resolve under the second to /api/docs/docs/… (a blank page).
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workspace API reference</title>
<link rel="stylesheet" href="${API_PREFIX}/docs/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="${API_PREFIX}/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: '${API_PREFIX}/openapi.json',
  dom_id: '#docs',
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  docExpansion: 'none',
  filter: true,
});
</script>
</body>
</html>
`;

/** The page. Pure. */
export const docsPage = (): TextReply => new TextReply(PAGE, 'text/html; charset=utf-8');

const assetText = new Map<string, string>();

/**
 * A file the docs routes answer: beside the bundle in a Lambda (the stack copies it there,
 * `infra/bundling.ts`), else where the project keeps it (local server, tests).
 */
const readBeside = (name: string, elsewhere: () => string): string => {
  try {
    return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
  } catch {
    return readFileSync(elsewhere(), 'utf8');
  }
};

const readAsset = (name: string): string =>
  readBeside(name, () => createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`));

let openApiText: string | undefined;

/** The API description `npm run docs` generated (`infra/openapi.json`), as JSON text; read once per process. */
export const openApiDocument = (): TextReply => {
  openApiText ??= readBeside(
    'openapi.json',
    () => new URL('../../infra/openapi.json', import.meta.url).pathname,
  );
  return new TextReply(openApiText, 'application/json; charset=utf-8');
};

/** One asset of the page; any other name is a 404. Read once per process. */
export const docsAsset = (name: string | undefined): TextReply => {
  if (!name || !Object.hasOwn(DOCS_ASSETS, name)) throw new NotFoundError(`No docs asset ${name ?? ''}`);
  const type = DOCS_ASSETS[name] as string;
  let text = assetText.get(name);
  if (text === undefined) {
    text = readAsset(name);
    assetText.set(name, text);
  }
  return new TextReply(text, type, ASSET_MAX_AGE);
};
