import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '#shared/routes.ts';
import { isErrorBody } from '#test/support/answers.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';
import { newPlugin } from '#test/support/plugins.ts';
import { newDashboard, newTable } from '#test/support/workspace.ts';

/**
 * Issue 27, "keep it that way": the bad-input classes the second probe found, generated against
 * the routes they reach, with a valid owner's token on a real table (records whose titles feed the
 * patterns), a formula field, a dashboard and plugin installs. Whatever arrives: an answer (no
 * freeze: vitest's timeout ends a call that hangs), never a 5xx, every error the contract's body.
 * Classes: catastrophic patterns, huge and deep formulas, deep and hostile view options, and
 * hostile key names in every map a route stores.
 */

const RUNS = 25;

const world = await newTable({
  fields: [
    { name: 'Title', type: 'singleLineText' },
    { name: 'Count', type: 'number' },
  ],
  records: [
    { fields: { Title: `${'a'.repeat(32)}!` } },
    { fields: { Title: 'a'.repeat(5000) } },
    { fields: { Title: 'x', Count: 3 } },
  ],
});
const token = world.owner.auth;
const onTable = { tableId: world.tableId };
const onView = { tableId: world.tableId, viewId: world.viewId };
const titleId = (world.table.fields as { id: string }[])[0]?.id as string;
const recordId = (world.table.records as { id: string }[])[0]?.id as string;
const formula = await call('create-field', {
  token,
  params: onTable,
  body: { type: 'formula', name: 'Shout', options: { expression: `UPPER({${titleId}})` } },
});
const formulaId = formula.body.id as string;
const dashboardId = await newDashboard(world);
const plugin = await newPlugin(world.owner);
const onDashboard = { baseId: world.baseId, dashboardId };
const dashboardInstall = await call('install-dashboard-plugin', {
  token,
  params: onDashboard,
  body: { pluginId: plugin.id },
});
const menuInstall = await call('install-context-menu-plugin', {
  token,
  params: onTable,
  body: { pluginId: plugin.id },
});
const dashboardInstallId = dashboardInstall.body.pluginInstallId as string;
const menuInstallId = menuInstall.body.pluginInstallId as string;

// ---- generators -------------------------------------------------------------------------------

const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];
const key = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 6 }));

/** A JSON object with hostile keys at any depth, nested up to `depth` levels. */
const hostileMap = (depth: number): fc.Arbitrary<Record<string, unknown>> =>
  fc.integer({ min: 1, max: depth }).chain((levels) =>
    fc
      .tuple(
        fc.array(key, { minLength: levels, maxLength: levels }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
      )
      .map(([path, leaf, siblings]) => {
        let v: unknown = leaf;
        for (const k of path.reverse()) v = { ...siblings, [k]: v };
        return v as Record<string, unknown>;
      }),
  );

/** A body's JSON text: `__proto__` only survives as text (an object literal would drop it). */
const asRaw = (body: unknown) => ({
  rawBody: JSON.stringify(body, (_k, v) => v).replaceAll('"_hostile_proto_"', '"__proto__"'),
});

/** Maps with `__proto__` as a real key in the text sent. */
const rawMap = (depth: number) =>
  hostileMap(depth).map(
    (m) =>
      JSON.parse(JSON.stringify(m).replaceAll('"__proto__"', '"_hostile_proto_"')) as Record<string, unknown>,
  );

const CATASTROPHIC = [
  '(a+)+$',
  '(a|aa)+$',
  '(a*)*b',
  '(.*a){20}',
  '([a-z]+)*!$',
  '(a|a?)+$',
  '(\\w+\\s?)*$',
  '^(a+)+\\1$',
  '(?=a)+a',
];
const pattern = fc.oneof(fc.constantFrom(...CATASTROPHIC), fc.string({ maxLength: 12 }));
const quoted = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** Expressions of the four formula classes: patterns, depth, arguments, length. */
const expression = fc.oneof(
  pattern.map((p) => `REGEXP_REPLACE({${titleId}}, ${quoted(p)}, "b")`),
  fc
    .constantFrom('MMMM'.repeat(40), 'D'.repeat(200), 'YYYY MM DD HH mm'.repeat(10))
    .map((format) => `DATETIME_PARSE({${titleId}}, ${quoted(format)})`),
  fc.integer({ min: 50, max: 5000 }).map((n) => `${'('.repeat(n)}1${')'.repeat(n)}`),
  fc.integer({ min: 50, max: 2400 }).map((n) => `${'ABS('.repeat(n)}1${')'.repeat(n)}`),
  fc.integer({ min: 50, max: 6000 }).map((n) => Array.from({ length: n }, () => '1').join('+')),
  fc.integer({ min: 50, max: 5000 }).map((n) => `${'-'.repeat(n)}1`),
  fc
    .integer({ min: 100, max: 20_001 })
    .map((n) => `ARRAY_UNIQUE(${Array.from({ length: n }, () => '1').join(',')})`),
  fc.constantFrom(9_998, 10_001, 200_000, 5_000_000).map((n) => `"${'x'.repeat(n)}"`),
  fc.integer({ min: 1, max: 40 }).map((n) => `REPT({${titleId}}, ${10 ** Math.min(n, 12)})`),
);

// ---- routes and where their bodies carry what -------------------------------------------------

type Build<T> = (value: T) => CallOptions;
interface Case<T> {
  cls: string;
  route: HandlerName;
  gen: fc.Arbitrary<T>;
  build: Build<T>;
}

const formulaField = (expr: string) => ({ type: 'formula', name: 'F', options: { expression: expr } });
// biome-ignore lint/suspicious/noExplicitAny: each case pairs its own generator and builder; the table holds several kinds
const CASES: Case<any>[] = [
  {
    cls: 'formula',
    route: 'create-field',
    gen: expression,
    build: (e: string) => ({ params: onTable, body: formulaField(e) }),
  },
  {
    cls: 'formula',
    route: 'update-field',
    gen: expression,
    build: (e: string) => ({
      params: { ...onTable, fieldId: formulaId },
      body: { options: { expression: e } },
    }),
  },
  {
    cls: 'formula',
    route: 'convert-field',
    gen: expression,
    build: (e: string) => ({ params: { ...onTable, fieldId: formulaId }, body: formulaField(e) }),
  },
  {
    cls: 'formula',
    route: 'create-table',
    gen: expression,
    build: (e: string) => ({
      params: { baseId: world.baseId },
      body: { fields: [{ type: 'singleLineText', name: 'T' }, formulaField(e)] },
    }),
  },
  ...(['create-view', 'update-view', 'update-view-options'] as const).map((route) => ({
    cls: 'view options',
    route,
    gen: rawMap(40),
    build: (m: Record<string, unknown>) => ({
      params: route === 'create-view' ? onTable : onView,
      ...asRaw({ options: m }),
    }),
  })),
  {
    cls: 'view options',
    route: 'create-table',
    gen: rawMap(40),
    build: (m) => ({
      params: { baseId: world.baseId },
      ...asRaw({ views: [{ type: 'kanban', options: m }] }),
    }),
  },
  {
    cls: 'maps',
    route: 'update-view-filter',
    gen: rawMap(30),
    build: (m) => ({ params: onView, ...asRaw({ filter: m }) }),
  },
  {
    cls: 'maps',
    route: 'update-view',
    gen: rawMap(30),
    build: (m) => ({ params: onView, ...asRaw({ columnMeta: m }) }),
  },
  {
    cls: 'maps',
    route: 'update-view-column-meta',
    gen: rawMap(30),
    build: (m) => ({ params: onView, ...asRaw([{ fieldId: titleId, columnMeta: m }]) }),
  },
  {
    cls: 'maps',
    route: 'create-records',
    gen: rawMap(30),
    build: (m) => ({ params: onTable, ...asRaw({ records: [{ fields: m }] }) }),
  },
  {
    cls: 'maps',
    route: 'update-record',
    gen: rawMap(30),
    build: (m) => ({ params: { ...onTable, recordId }, ...asRaw({ record: { fields: m } }) }),
  },
  {
    cls: 'maps',
    route: 'update-record',
    gen: rawMap(30),
    build: (m) => ({ params: { ...onTable, recordId }, ...asRaw({ record: { fields: { Title: m } } }) }),
  },
  {
    cls: 'maps',
    route: 'create-field',
    gen: rawMap(30),
    build: (m) => ({ params: onTable, ...asRaw({ type: 'number', options: m }) }),
  },
  {
    cls: 'maps',
    route: 'create-field',
    gen: rawMap(30),
    build: (m) => ({ params: onTable, ...asRaw({ type: 'singleSelect', options: { choices: [m] } }) }),
  },
  {
    cls: 'maps',
    route: 'update-field',
    gen: rawMap(30),
    build: (m) => ({ params: { ...onTable, fieldId: titleId }, ...asRaw({ options: m }) }),
  },
  { cls: 'maps', route: 'create-query-params', gen: rawMap(30), build: (m) => ({ ...asRaw({ params: m }) }) },
  {
    cls: 'maps',
    route: 'update-dashboard-plugin-storage',
    gen: rawMap(30),
    build: (m) => ({
      params: { ...onDashboard, pluginInstallId: dashboardInstallId },
      ...asRaw({ storage: m }),
    }),
  },
  {
    cls: 'maps',
    route: 'update-context-menu-plugin-storage',
    gen: rawMap(30),
    build: (m) => ({ params: { ...onTable, pluginInstallId: menuInstallId }, ...asRaw({ storage: m }) }),
  },
  {
    cls: 'maps',
    route: 'update-dashboard-layout',
    gen: rawMap(30),
    build: (m) => ({ params: onDashboard, ...asRaw({ layout: [m] }) }),
  },
  {
    cls: 'maps',
    route: 'update-plugin',
    gen: rawMap(30),
    build: (m) => ({ params: { pluginId: plugin.id }, ...asRaw({ name: 'P', i18n: m }) }),
  },
  {
    cls: 'maps',
    route: 'update-plugin',
    gen: rawMap(30),
    build: (m) => ({ params: { pluginId: plugin.id }, ...asRaw({ name: 'P', config: m }) }),
  },
  {
    cls: 'maps',
    route: 'paste-selection',
    gen: rawMap(30),
    build: (m) => ({
      params: onTable,
      ...asRaw({
        ranges: [
          [0, 0],
          [0, 0],
        ],
        content: 'x',
        header: [m],
      }),
    }),
  },
];

// ---- the property -----------------------------------------------------------------------------

const tried: Record<string, number> = {};
afterAll(() => {
  const total = Object.values(tried).reduce((a, b) => a + b, 0);
  console.log(
    `hostile-input property test: ${total} calls (${Object.entries(tried)
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')})`,
  );
});

describe('hostile input of the second probe never gets a 5xx and never hangs', () => {
  it.each(CASES.map((c, i) => [`${c.cls}: ${c.route} #${i}`, c] as const))(
    '%s',
    async (_, c) => {
      await fc.assert(
        fc.asyncProperty(c.gen, async (value) => {
          const res = await call(c.route, { token, ...c.build(value) });
          tried[c.cls] = (tried[c.cls] ?? 0) + 1;
          const shown = JSON.stringify({ value, body: res.body }).slice(0, 600);
          expect(res.status, shown).toBeLessThan(500);
          if (res.status >= 400) expect(isErrorBody(res), shown).toBe(true);
        }),
        { numRuns: RUNS },
      );
    },
    120_000,
  );
});
