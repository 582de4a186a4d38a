import { describe, expect, it } from 'vitest';
import { cyclesOf, importsOf, unitOf } from '#test/support/import-graph.ts';

/**
 * The layers of the code, lowest first: a unit imports only from its own layer or the ones
 * below, and no two units import each other, directly or around a loop. The pure layers
 * (core and the logic of fields, queries and ordering) import no AWS SDK and no database code.
 */
const LAYERS: readonly (readonly [string, readonly string[]])[] = [
  ['core', ['shared/core', 'shared/ids', 'shared/config']],
  ['pure logic', ['shared/ordering', 'shared/fields', 'shared/query']],
  ['data', ['shared/db', 'shared/mail']],
  ['access', ['shared/auth', 'shared/users']],
  ['schema', ['shared/tables']],
  ['records', ['shared/records', 'shared/listing', 'shared/notifications']],
  [
    'workspace',
    [
      'shared/spaces',
      'shared/workspace',
      'shared/nodes',
      'shared/dashboards',
      'shared/plugins',
      'shared/trash',
      'shared/organizations',
    ],
  ],
  ['http', ['shared/http', 'shared/routes']],
  ['entry points', ['functions', 'infra']],
];
const PURE = new Set(['core', 'pure logic']);

/**
 * Imports that still go up a layer, being untied (issue 11): each must still exist, so the list
 * only shrinks. Do not add to it: move the code to the layer it belongs to.
 */
const KNOWN_UPWARD = new Set<string>([
  // Request schemas still in http/ (they leave it for their domain).
  'shared/listing -> shared/http',
  'shared/organizations -> shared/http',
  // Table lifecycle (create with records, trash, delete permanently) still lives with the schema.
  'shared/tables -> shared/records',
  'shared/tables -> shared/nodes',
  'shared/tables -> shared/trash',
]);
/** Folder cycles still being untied (issue 11); same rule: the list only shrinks. */
const KNOWN_CYCLES: string[][] = [
  [
    'shared/dashboards',
    'shared/nodes',
    'shared/notifications',
    'shared/records',
    'shared/spaces',
    'shared/tables',
    'shared/trash',
    'shared/workspace',
  ],
];

const layerOf = new Map(LAYERS.flatMap(([name, units], i) => units.map((u) => [u, { name, rank: i }])));
const { files, imports, packages } = importsOf('shared', 'functions', 'infra');
const between = imports
  .map((i) => ({ ...i, a: unitOf(i.from), b: unitOf(i.to) }))
  .filter((i) => i.a !== i.b && !i.b.startsWith('test'));

describe('architecture: layers', () => {
  it('every unit of the code has a layer', () => {
    const units = new Set(files.map(unitOf));
    expect([...units].filter((u) => !layerOf.has(u))).toEqual([]);
  });

  it('no import goes up a layer (beyond the ones still being untied)', () => {
    const upward = new Map<string, string[]>();
    for (const i of between) {
      const a = layerOf.get(i.a);
      const b = layerOf.get(i.b);
      if (!a || !b || b.rank <= a.rank) continue;
      const edge = `${i.a} -> ${i.b}`;
      upward.set(edge, [...(upward.get(edge) ?? []), `${i.from} imports ${i.specifier}`]);
    }
    const fresh = [...upward].filter(([edge]) => !KNOWN_UPWARD.has(edge));
    expect(fresh, 'imports that go up a layer').toEqual([]);
    expect(
      [...KNOWN_UPWARD].filter((edge) => !upward.has(edge)),
      'untied: remove from KNOWN_UPWARD',
    ).toEqual([]);
  });

  it('no two units import each other, directly or around a loop (beyond the ones still being untied)', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of between) edges.set(i.a, (edges.get(i.a) ?? new Set()).add(i.b));
    expect(cyclesOf(edges)).toEqual(KNOWN_CYCLES);
  });

  it('the pure layers import no AWS SDK and nothing that reaches the database', () => {
    const pureFiles = (path: string) => PURE.has(layerOf.get(unitOf(path))?.name ?? '');
    expect(packages.filter((p) => pureFiles(p.from) && /^@aws-sdk\/|^aws-cdk/.test(p.to))).toEqual([]);
    expect(between.filter((i) => pureFiles(i.from) && i.b === 'shared/db')).toEqual([]);
  });
});
