import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/routes.ts';
import { isErrorBody } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 10, item 6: generated bad input to every route of the route table, in process, with a
 * valid token of a user who owns a real space, base and table (so the input, not a missing
 * right, is what the route meets). Whatever arrives: never a 5xx, and every error is the
 * contract's body with the HTTP status in it.
 */

const RUNS_PER_ROUTE = 12;

const world = await newTable({
  fields: [{ name: 'Name', type: 'singleLineText' }],
  records: [{ fields: {} }],
});
const recordId = (world.table.records as { id: string }[])[0]?.id as string;
const fieldId = (world.table.fields as { id: string }[])[0]?.id as string;
/** A real id for a path parameter when there is one, so some calls get past the 404. */
const REAL: Record<string, string> = {
  spaceId: world.spaceId,
  baseId: world.baseId,
  tableId: world.tableId,
  viewId: world.viewId,
  recordId,
  fieldId,
};

const junkText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%00',
    '..',
    '../../etc',
    'null',
    '[]',
    '{}',
    '-1',
    '1e309',
    'spc0000000000000000',
  ),
  fc.constant('x'.repeat(5000)),
);
const param = (name: string) =>
  REAL[name] ? fc.oneof(fc.constant(REAL[name] as string), junkText) : junkText;

const queryValue = fc.oneof(
  junkText,
  fc.integer().map(String),
  fc.constantFrom('2147483648', '9007199254740993', '-0', 'NaN', 'Infinity', '1.5', '[1,2', '{"a":'),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);
const QUERY_KEYS = [
  'take',
  'skip',
  'filter',
  'orderBy',
  'groupBy',
  'search',
  'search[]',
  'viewId',
  'projection[]',
  'recordIds[]',
  'fieldKeyType',
  'cellFormat',
  'resourceType',
  'resourceId',
  'cursor',
  'ignoreViewQuery',
  'collapsedGroupIds',
  'selectedRecordIds[]',
  'filterLinkCellCandidate',
  'notifyStates',
];
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 })), queryValue), {
    maxLength: 5,
  })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.constantFrom(
      'name',
      'records',
      'fields',
      'fieldKeyType',
      'typecast',
      'order',
      'type',
      'options',
      'scopes',
      'spaceIds',
      'expiredTime',
      'record',
      'filter',
      'anchorId',
      'position',
      'recordIds',
      'collaborators',
      'role',
      'layout',
    ),
    fc.jsonValue({ maxDepth: 3 }),
  ),
);
const rawBody = fc.oneof(
  body.map((b) => ({ body: b as unknown })),
  fc.constantFrom('{', '{"a":1', 'null', '"', '\u0000', '[[[[[[[[[[').map((rawBody) => ({ rawBody })),
);
const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      '',
    ),
    'if-match': fc.oneof(junkText, fc.constant('"1"')),
    'idempotency-key': junkText,
    'accept-encoding': fc.constantFrom('gzip', 'br', '*;q=0', ''),
  },
  { requiredKeys: [] },
);

const tried = { calls: 0, held: 0 };
afterAll(() => {
  console.log(
    `bad-input property test: ${tried.calls} calls over ${ROUTES.length} routes, ${tried.held} held`,
  );
});

describe('bad input never gets a 5xx, and every error is the contract body', () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_, route) => {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    const params = fc.record(Object.fromEntries(names.map((n) => [n, param(n)])));
    await fc.assert(
      fc.asyncProperty(params, query, rawBody, headers, async (p, q, b, h) => {
        const res = await call(route.handler, {
          token: world.owner.auth,
          params: p as Record<string, string>,
          query: q,
          ...b,
          headers: h,
        });
        tried.calls++;
        const ok = res.status < 500 && (res.status < 400 || isErrorBody(res));
        if (ok) tried.held++;
        expect(res.status, JSON.stringify({ params: p, query: q, ...b, body: res.body })).toBeLessThan(500);
        if (res.status >= 400) expect(isErrorBody(res), JSON.stringify(res.body)).toBe(true);
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
  });
});
