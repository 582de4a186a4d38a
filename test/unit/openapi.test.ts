/**
 * The API description (`infra/openapi.ts`): generated from the route table, the handlers'
 * schemas and the answers' schemas (`infra/answers.ts`), kept in `infra/openapi.json` (what
 * `GET /api/openapi.json` answers), valid OpenAPI 3.1 by a maintained validator, and complete:
 * every route, its path parameters, its body, its security, its actions and its success answer.
 * (`test/integration/route-matrix.test.ts` checks the real answers against the same schemas.)
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_BLOCKS, ANSWERS } from '#infra/answers.ts';
import { buildOpenApi, OPENAPI_FILE, renderOpenApi, tagOf } from '#infra/openapi.ts';
import { API_PREFIX, type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { importsOf } from '#test/support/import-graph.ts';

type Operation = {
  operationId: string;
  security: unknown[];
  'x-actions': string[];
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema: object }> }>;
};
type Doc = Awaited<ReturnType<typeof buildOpenApi>>;

let doc: Doc;
beforeAll(async () => {
  doc = await buildOpenApi();
}, 60_000);

const operation = (method: string, path: string) =>
  (doc.paths[`${API_PREFIX}${path}`] as Record<string, Operation> | undefined)?.[method.toLowerCase()];

describe('the API description', () => {
  it('is the one generated from the code (run `npm run docs` after changing routes or schemas)', async () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(await renderOpenApi());
  });

  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route: path parameters, body, security, actions, success and refusals', async () => {
    for (const route of ROUTES as readonly RouteDef[]) {
      const { handler } = (await import(`#functions/${route.handler}.ts`)) as {
        handler: { spec?: { body?: unknown } };
      };
      const op = operation(route.method, route.path);
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      if (!op) continue;
      expect(op.operationId).toBe(route.handler);
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(
        op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
        route.handler,
      ).toEqual(pathParams);
      expect(op.security).toEqual(
        route.auth === 'none' || route.auth === 'password' ? [] : [{ bearer: [] }, { session: [] }],
      );
      expect(op['x-actions']).toEqual(route.actions);
      expect(Object.keys(op.responses)).toContain(String(route.status ?? 200));
      if (route.auth === 'password')
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['403', '429']));
      else if (route.auth !== 'none')
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
      expect(op.requestBody !== undefined, route.handler).toBe(handler.spec?.body !== undefined);
    }
    const operations = Object.values(doc.paths).flatMap((p) => Object.keys(p as object));
    // one per route, and a HEAD beside the GET of a route that answers it
    expect(operations).toHaveLength(ROUTES.length + ROUTES.filter((r: RouteDef) => r.head).length);
    expect(Object.keys(doc.paths['/api/health'] as object)).toEqual(['get', 'head']);
  });

  it("shows the handlers' own schemas: a body's fields, the listing query", () => {
    const create = operation('POST', '/table/{tableId}/record') as Operation & {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    };
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['records', 'fieldKeyType', 'typecast', 'order']),
    );
    const list = operation('GET', '/table/{tableId}/record') as Operation;
    expect(list.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'viewId',
        'filter',
        'orderBy',
        'groupBy',
        'search',
        'skip',
        'take',
        'projection',
      ]),
    );
    expect(operation('GET', '/health')?.security).toEqual([]);
  });

  it('describes every success answer: a schema of its shape, or no body for a route that answers none', () => {
    const described: string[] = [];
    for (const route of ROUTES as readonly RouteDef[]) {
      const success = operation(route.method, route.path)?.responses[String(route.status ?? 200)];
      const answer = ANSWERS[route.handler as HandlerName];
      if (answer.kind === 'none') {
        expect(success?.content, route.handler).toBeUndefined();
        continue;
      }
      const schemas = Object.values(success?.content ?? {}).map((c) => c.schema);
      expect(schemas.length, route.handler).toBeGreaterThan(0);
      for (const schema of schemas) expect(schema, route.handler).not.toEqual({});
      described.push(route.handler);
    }
    expect(described.length).toBeGreaterThan(ROUTES.length / 2);
  });

  it('shows the building blocks of the answers once, as components the answers refer to', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Record', 'Field', 'View', 'Table', ...Object.keys(ANSWER_BLOCKS)]),
    );
    const answerOf = (method: string, path: string) =>
      operation(method, path)?.responses['200']?.content?.['application/json']?.schema;
    expect(answerOf('GET', '/table/{tableId}/record/{recordId}')).toEqual({
      $ref: '#/components/schemas/Record',
    });
    expect(answerOf('GET', '/table/{tableId}/field')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Field' },
    });
    // a route answering an empty body says so, typed by its length
    expect(operation('DELETE', '/table/{tableId}/view/{viewId}')?.responses['200']).toEqual({
      description: 'Success, with an empty body',
      headers: {
        'Content-Length': { description: 'The body is empty', schema: { type: 'integer', const: 0 } },
      },
    });
    // every success answer has a body schema or says it has none
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(
        operations as Record<string, { responses: Record<string, Record<string, unknown>> }>,
      )) {
        const success = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
        for (const [status, answer] of success)
          expect(Boolean(answer.content) || Boolean(answer.headers), `${method} ${path} ${status}`).toBe(
            true,
          );
      }
    // a batch's limit is stated where validation leaves it to the write (413)
    expect(JSON.stringify(doc)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(JSON.stringify(doc)).not.toContain('#/components/schemas/answer.');
  });

  it('keeps the answers out of the Lambda bundles: no code of functions/ or shared/ imports them', () => {
    const { imports } = importsOf('functions', 'shared');
    expect(imports.filter((i) => i.to === 'infra/answers.ts' || i.to === 'infra/openapi.ts')).toEqual([]);
  });

  it('groups routes by area', () => {
    expect(tagOf({ path: '/table/{tableId}/record/{recordId}' })).toBe('record');
    expect(tagOf({ path: '/base/{baseId}/table/{tableId}' })).toBe('table');
    expect(tagOf({ path: '/space' })).toBe('space');
    expect(tagOf({ path: '/health' })).toBe('health');
    // a base's or table's action of one route belongs to the base or table, not a group of its own
    for (const path of [
      '/base/{baseId}/permanent',
      '/base/{baseId}/order',
      '/base/{baseId}/move',
      '/base/access/all',
    ])
      expect(tagOf({ path }), path).toBe('base');
    expect(tagOf({ path: '/table/{tableId}/aggregation/row-count' })).toBe('aggregation');
  });
});
