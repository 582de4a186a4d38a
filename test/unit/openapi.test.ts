/**
 * The API description (`infra/openapi.ts`): generated from the route table and the handlers'
 * schemas, kept in `infra/openapi.json` (what `GET /api/openapi.json` answers), valid OpenAPI 3.1
 * by a maintained validator, and complete: every route, its path parameters, its body, its
 * security and its actions.
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi, OPENAPI_FILE, renderOpenApi, tagOf } from '#infra/openapi.ts';
import { API_PREFIX, ROUTES, type RouteDef } from '#shared/routes.ts';

type Operation = {
  operationId: string;
  security: unknown[];
  'x-actions': string[];
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
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
      expect(op.security).toEqual(route.auth === 'none' ? [] : [{ bearer: [] }]);
      expect(op['x-actions']).toEqual(route.actions);
      expect(Object.keys(op.responses)).toContain(String(route.status ?? 200));
      if (route.auth !== 'none')
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
      expect(op.requestBody !== undefined, route.handler).toBe(handler.spec?.body !== undefined);
    }
    const operations = Object.values(doc.paths).flatMap((p) => Object.keys(p as object));
    expect(operations).toHaveLength(ROUTES.length);
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

  it('groups routes by area', () => {
    expect(tagOf({ path: '/table/{tableId}/record/{recordId}' })).toBe('record');
    expect(tagOf({ path: '/base/{baseId}/table/{tableId}' })).toBe('table');
    expect(tagOf({ path: '/space' })).toBe('space');
    expect(tagOf({ path: '/health' })).toBe('health');
  });
});
