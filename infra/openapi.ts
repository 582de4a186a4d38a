/**
 * The API description (OpenAPI 3.1), generated from the code: the route table (method, path,
 * success status, token kind, actions), the zod schemas each handler validates its path, query
 * and body with (`defineHandler` keeps them on the handler as `spec`), and each route's success
 * answer from `infra/answers.ts` (its building blocks, a record, a field, a view…, are shared
 * components; a route with an empty answer shows no body). `npm run docs` writes it to
 * `infra/openapi.json`, which `GET /api/openapi.json` answers, locally and in the stack; a unit
 * test fails when the file and the code disagree, and validates the document, and an integration
 * test checks every route's real answer against the schema it is described with.
 *
 * What it does not say: the further checks the field layer makes on record cells and field
 * options, and the shape of each cell by field type (`fields.md`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { listParamsSchema, listQuery } from '#shared/listing/params.ts';
import { API_PREFIX, type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { ANSWER_BLOCKS, ANSWERS, type Answer } from './answers.ts';
import { needsOf, ROUTE_SUMMARIES } from './local/route-docs.ts';

type JsonSchema = Record<string, unknown>;
type Spec = { params?: z.ZodMiniType; query?: z.ZodMiniType; body?: z.ZodMiniType };

/** The listing query as the description shows it (listing.md 1): what `readListParams` reads. */
const LIST_QUERY_DOC = z.extend(listParamsSchema, {
  filter: z.optional(
    z.string().check(z.meta({ description: 'Filter as JSON text: {conjunction, filterSet}' })),
  ),
  orderBy: z.optional(z.string().check(z.meta({ description: 'Sort as JSON text: [{fieldId, order}]' }))),
  groupBy: z.optional(
    z.string().check(z.meta({ description: 'Groups as JSON text: [{fieldId, order}] (≤ 3)' })),
  ),
  collapsedGroupIds: z.optional(z.array(z.string())),
});

/** Where the generated document is kept (and read by the route that answers it). */
export const OPENAPI_FILE = new URL('./openapi.json', import.meta.url);

/** The error body of every refusal (auth-errors.md). */
const ERROR_BODY: JsonSchema = {
  type: 'object',
  required: ['message', 'status', 'code'],
  properties: {
    message: { type: 'string' },
    status: { type: 'integer' },
    code: {
      type: 'string',
      examples: ['validation_error', 'unauthorized', 'restricted_resource', 'not_found'],
    },
    requestId: { type: 'string', description: 'The request id, also in the X-Request-Id header' },
    details: { type: 'array', items: { type: 'object' }, description: 'Per-path problems of a 400' },
  },
};

/** The refusals a route can answer, by what it takes. */
const errorStatuses = (route: RouteDef, spec: Spec): string[] => [
  ...(spec.params || spec.query || spec.body ? ['400'] : []),
  ...(route.auth === 'none' ? [] : route.auth === 'password' ? ['403', '429'] : ['401', '403']),
  ...(route.path.includes('{') ? ['404'] : []),
  ...(route.method === 'GET' ? [] : ['409']),
  ...(spec.body ? ['413'] : []),
  '500',
  '503',
];

const ERROR_TEXT: Record<string, string> = {
  '400': 'Bad input (the message names the parameter)',
  '401': 'No token or session, or one that is unknown, expired, revoked or signed out',
  '403': 'The token or the role lacks the right (or a cookie-carried write from another origin)',
  '404': 'Not found',
  '409': 'A concurrent change won; retry',
  '413': 'Too large',
  '429': 'Too many failed sign-ins for this email or address (see Retry-After)',
  '500': 'Unexpected error',
  '503': 'Busy or out of time; nothing was written (see Retry-After)',
};

const jsonSchemaOf = (schema: z.ZodMiniType): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    // a safe integer's bound says nothing: the real limit (a file's size) is checked by the route
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as JsonSchema;
  return rest;
};

/** Where a shared building block of the answers is described. */
const componentRef = (name: string) => `#/components/schemas/${name}`;

const withoutIds = ({ $schema: _schema, $id: _id, ...rest }: JsonSchema): JsonSchema => rest;

/**
 * The answers' JSON Schemas (io 'output', as the server writes them): the building blocks as
 * components, and each JSON answer by handler, with the blocks it holds as `$ref`s.
 */
const answerSchemas = (routes: readonly RouteDef[]) => {
  const registry = z.registry<{ id: string }>();
  const blocks = new Map<z.ZodMiniType, string>();
  for (const [name, schema] of Object.entries(ANSWER_BLOCKS)) {
    registry.add(schema, { id: name });
    blocks.set(schema, name);
  }
  // An answer used by several routes is described once, under the first route's name.
  const named = new Map<z.ZodMiniType, string>();
  for (const route of routes) {
    const answer = ANSWERS[route.handler as HandlerName];
    if (answer.kind !== 'json' || blocks.has(answer.schema) || named.has(answer.schema)) continue;
    named.set(answer.schema, `answer.${route.handler}`);
    registry.add(answer.schema, { id: `answer.${route.handler}` });
  }
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    unrepresentable: 'any',
    uri: componentRef,
    override: ({ jsonSchema }) => {
      // `format` says it; zod's long pattern for a date-time and the bounds of a safe integer only add noise
      if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as { schemas: Record<string, JsonSchema> };
  const components = Object.fromEntries([...blocks.values()].map((n) => [n, withoutIds(schemas[n] ?? {})]));
  const of = (schema: z.ZodMiniType): JsonSchema => {
    const block = blocks.get(schema);
    if (block) return { $ref: componentRef(block) };
    const json = withoutIds(schemas[named.get(schema) ?? ''] ?? {});
    // only building blocks are components: an answer nested in another would point nowhere
    const nested = /"\$ref":"#\/components\/schemas\/answer\.([\w-]+)"/.exec(JSON.stringify(json));
    if (nested)
      throw new Error(
        `The answer of ${nested[1]} is part of another: make it a building block (infra/answers.ts)`,
      );
    return json;
  };
  return { components, of };
};

/** The success response of a route: its answer's schema, or no body. */
const successResponse = (answer: Answer, schemaOf: (schema: z.ZodMiniType) => JsonSchema) => {
  // typed too: the answer is the status alone (an integration test checks the body is empty)
  if (answer.kind === 'none')
    return {
      description: 'Success, with an empty body',
      headers: {
        'Content-Length': { description: 'The body is empty', schema: { type: 'integer', const: 0 } },
      },
    };
  if (answer.kind === 'text')
    return {
      description: 'Success',
      content: Object.fromEntries(answer.mediaTypes.map((type) => [type, { schema: { type: 'string' } }])),
    };
  return { description: 'Success', content: { 'application/json': { schema: schemaOf(answer.schema) } } };
};

/** An object schema's properties as OpenAPI parameters. */
const parametersOf = (schema: z.ZodMiniType | undefined, where: 'path' | 'query') => {
  if (!schema) return [];
  const json = jsonSchemaOf(schema === listQuery ? LIST_QUERY_DOC : schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  const named = Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: property,
    ...(property.type === 'array' ? { style: 'form', explode: true } : {}),
  }));
  // a query read whole (any keys): one free-form parameter says so
  if (named.length === 0 && where === 'query')
    return [{ name: 'query', in: 'query', required: false, style: 'form', explode: true, schema: json }];
  return named;
};

/** The path's parameters in path order, typed by the handler's schema where it has one. */
const pathParameters = (route: RouteDef, schema: z.ZodMiniType | undefined) => {
  const typed = new Map(parametersOf(schema, 'path').map((p) => [p.name, p]));
  return [...route.path.matchAll(/\{(\w+)\}/g)].map(
    ([, name]) =>
      typed.get(name as string) ?? { name, in: 'path', required: true, schema: { type: 'string' } },
  );
};

/** The operation of one route. */
const operationOf = (route: RouteDef, spec: Spec, schemaOf: (schema: z.ZodMiniType) => JsonSchema) => {
  const status = String(route.status ?? 200);
  return {
    operationId: route.handler,
    summary: ROUTE_SUMMARIES[route.handler as HandlerName],
    description: `Needs: ${needsOf(route)}. Code: \`functions/${route.handler}.ts\`.`,
    tags: [tagOf(route)],
    ...(route.auth === 'none' || route.auth === 'password'
      ? { security: [] }
      : { security: [{ bearer: [] }, { session: [] }] }),
    'x-actions': route.actions,
    parameters: [...pathParameters(route, spec.params), ...parametersOf(spec.query, 'query')],
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchemaOf(spec.body) } },
          },
        }
      : {}),
    responses: {
      [status]: successResponse(ANSWERS[route.handler as HandlerName], schemaOf),
      ...Object.fromEntries(
        errorStatuses(route, spec).map((s) => [s, { $ref: `#/components/responses/Error${s}` }]),
      ),
    },
  };
};

/** The group a route is shown in: the first segment of its path after a resource id. */
export const tagOf = (
  route: Pick<RouteDef, 'path'>,
  routes: readonly Pick<RouteDef, 'path'>[] = ROUTES,
): string => {
  const segments = route.path.split('/').filter((s) => s && !s.startsWith('{'));
  const root = segments[0] ?? 'api';
  const area = segments[1];
  if ((root !== 'table' && root !== 'base') || area === undefined) return root;
  // an area of one route (a base's `permanent`, `order`, `move`…) is an action on the root, not a group
  const prefix = route.path.slice(0, route.path.indexOf(`/${area}`) + area.length + 1);
  const inArea = routes.filter((r) => r.path === prefix || r.path.startsWith(`${prefix}/`));
  return inArea.length > 1 ? area : root;
};

/** The whole document, from the route table and the handlers' schemas. */
export const buildOpenApi = async (routes: readonly RouteDef[] = ROUTES) => {
  const paths: Record<string, Record<string, unknown>> = {};
  const answers = answerSchemas(routes);
  for (const route of routes) {
    const mod = (await import(`../functions/${route.handler}.ts`)) as { handler: { spec?: Spec } };
    const path = `${API_PREFIX}${route.path}`;
    paths[path] ??= {};
    const operation = operationOf(route, mod.handler.spec ?? {}, answers.of);
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = operation;
    // the same answer without its body (operation ids are unique in a document)
    if (route.head)
      (paths[path] as Record<string, unknown>).head = { ...operation, operationId: `${route.handler}-head` };
  }
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
    description: string;
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Workspace API', version: pkg.version, description: pkg.description },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A personal access token (`pat_…`) or a temporary token; `x-actions` lists the rights a route needs',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'auth_session',
          description:
            "The session cookie `POST /auth/signin` sets: the user's own rights; a write must come from this origin (Origin or Referer)",
        },
      },
      schemas: { Error: ERROR_BODY, ...answers.components },
      responses: Object.fromEntries(
        Object.entries(ERROR_TEXT).map(([s, description]) => [
          `Error${s}`,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
};

/** The document as the file holds it (stable formatting, so the test can compare). */
export const renderOpenApi = async (): Promise<string> =>
  `${JSON.stringify(await buildOpenApi(), null, 2)}\n`;

if (process.argv.includes('--write')) writeFileSync(OPENAPI_FILE, await renderOpenApi());
