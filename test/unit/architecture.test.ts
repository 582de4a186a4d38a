import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importsOf, ROOT, unitOf } from '#test/support/import-graph.ts';

/**
 * The layers of the code, lowest first: a unit imports only from its own layer or the ones
 * below, and no two units import each other, directly or around a loop. The pure layers
 * (core and the logic of fields, queries and ordering) import no AWS SDK and no database code.
 */
const LAYERS: readonly (readonly [string, readonly string[]])[] = [
  ['core', ['shared/core', 'shared/ids', 'shared/config', 'shared/net']],
  ['pure logic', ['shared/ordering', 'shared/formula', 'shared/fields', 'shared/query']],
  ['data', ['shared/db', 'shared/storage', 'shared/entities', 'shared/jobs', 'shared/mail']],
  ['access', ['shared/auth', 'shared/users']],
  ['schema', ['shared/schema']],
  ['records', ['shared/records', 'shared/listing']],
  ['tables', ['shared/tables']],
  [
    'workspace',
    [
      'shared/spaces',
      'shared/bases',
      'shared/nodes',
      'shared/dashboards',
      'shared/plugins',
      'shared/trash',
      'shared/organizations',
      'shared/changes',
      'shared/attachments',
      'shared/bulk',
      'shared/webhooks',
      'shared/live',
      'shared/pins',
    ],
  ],
  ['http', ['shared/http', 'shared/routes']],
  ['entry points', ['functions', 'infra']],
];
const PURE = new Set(['core', 'pure logic']);
const RAW_ITEM_NAMES = new Set(['Item', 'ItemLookup', 'asLoaded', 'noteRead', 'readEarlier']);

/** Code above the data layer: shared/ outside db/ and entities/, the handlers and the stack. */
const aboveData = (path: string) =>
  (path.startsWith('shared/') && !path.startsWith('shared/db/') && !path.startsWith('shared/entities/')) ||
  path.startsWith('functions/') ||
  path.startsWith('infra/');

/** The code lines of a file (comment lines left out), with where each is. */
const codeLines = (f: string) =>
  readFileSync(resolve(ROOT, f), 'utf8')
    .split('\n')
    .map((line, i) => ({ where: `${f}:${i + 1}`, line: line.trim() }))
    .filter(({ line }) => !line.startsWith('*') && !line.startsWith('//') && !line.startsWith('/*'));

/**
 * DynamoDB's expression language (conditions, update actions, placeholders) and a look inside an
 * operation (`'update' in op`): what entity modules write and read, and no one else.
 */
const EXPRESSION =
  /attribute_(?:not_)?exists\(|attribute_type\(|if_not_exists\(|list_append\(|begins_with\(|['"`](?:SET|REMOVE|ADD|DELETE) [#:a-zA-Z]|[=<>] :[a-zA-Z]|'(?:put|update|delete|conditionCheck)' in /;

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

  it('no import goes up a layer', () => {
    const upward = new Map<string, string[]>();
    for (const i of between) {
      const a = layerOf.get(i.a);
      const b = layerOf.get(i.b);
      if (!a || !b || b.rank <= a.rank) continue;
      const edge = `${i.a} -> ${i.b}`;
      upward.set(edge, [...(upward.get(edge) ?? []), `${i.from} imports ${i.specifier}`]);
    }
    expect([...upward], 'imports that go up a layer').toEqual([]);
  });

  it('no two units import each other, directly or around a loop', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of between) edges.set(i.a, (edges.get(i.a) ?? new Set()).add(i.b));
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('the pure layers import no AWS SDK and nothing that reaches the database', () => {
    const pureFiles = (path: string) => PURE.has(layerOf.get(unitOf(path))?.name ?? '');
    expect(packages.filter((p) => pureFiles(p.from) && /^@aws-sdk\/|^aws-cdk/.test(p.to))).toEqual([]);
    expect(between.filter((i) => pureFiles(i.from) && i.b === 'shared/db')).toEqual([]);
  });

  it('key formats are written and parsed in shared/db/keys.ts only', () => {
    const keyText =
      /['"`][A-Z_]{3,}#|(?:indexOf|lastIndexOf|split)\(['"]#['"]\)|\b(?:pk|sk)\)?\.(?:slice|split|startsWith|indexOf)\(/;
    const outside = files
      .filter((f) => f !== 'shared/db/keys.ts')
      .flatMap((f) =>
        readFileSync(resolve(ROOT, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${f}:${i + 1}`, line: line.trim() }))
          .filter(({ line }) => !line.startsWith('*') && !line.startsWith('//') && !line.startsWith('/*'))
          .filter(({ line }) => keyText.test(line)),
      );
    expect(outside).toEqual([]);
  });

  it('only the data layer (shared/db, shared/entities) imports the DynamoDB client and the key formats', () => {
    const dataLayer = (path: string) => path.startsWith('shared/db/') || path.startsWith('shared/entities/');
    const outside = imports
      .filter((i) => (i.to === 'shared/db/client.ts' || i.to === 'shared/db/keys.ts') && !dataLayer(i.from))
      .map((i) => `${i.from} imports ${i.specifier}`);
    expect(outside).toEqual([]);
  });

  // Above the data layer, code handles what entities read (a `Table`, a `BaseItem`), never the
  // stored item itself: no import of the item type (`Item`), of items read by key (`ItemLookup`,
  // `asLoaded`) or of the request's items read earlier (`noteRead`, `readEarlier`).
  it('code above the data layer takes domain types, never the stored items', () => {
    const namesItem = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"][^'"]*\/(?:db|entities)\/[^'"]+['"]/g;
    const rawItems = files.filter(aboveData).flatMap((f) =>
      [...readFileSync(resolve(ROOT, f), 'utf8').matchAll(namesItem)]
        .flatMap((m) => (m[1] as string).split(','))
        .map((name) =>
          name
            .trim()
            .replace(/^type\s+/, '')
            .replace(/\s+as\s+\w+$/, ''),
        )
        .filter((name) => RAW_ITEM_NAMES.has(name))
        .map((name) => `${f} imports ${name}`),
    );
    const operations = imports
      .filter((i) => i.to === 'shared/db/operations.ts' && aboveData(i.from))
      .map((i) => `${i.from} imports ${i.specifier}`);
    expect([...rawItems, ...operations]).toEqual([]);
  });

  it('code above the data layer writes no DynamoDB expression and looks inside no operation', () => {
    const spelled = files
      .filter(aboveData)
      .flatMap(codeLines)
      .filter(({ line }) => EXPRESSION.test(line));
    expect(spelled).toEqual([]);
  });

  it('only the data layer (shared/db, shared/entities) imports the write conditions', () => {
    const dataLayer = (path: string) => path.startsWith('shared/db/') || path.startsWith('shared/entities/');
    const outside = imports
      .filter((i) => i.to === 'shared/db/conditions.ts' && !dataLayer(i.from))
      .map((i) => `${i.from} imports ${i.specifier}`);
    expect(outside).toEqual([]);
  });

  it('no two modules share a file name, unless one is the entity and the other its feature', () => {
    const byName = new Map<string, string[]>();
    for (const f of files) {
      const name = f.slice(f.lastIndexOf('/') + 1);
      byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    const clashes = [...byName.values()].filter(
      (same) =>
        same.length > 1 &&
        !(same.length === 2 && same.filter((f) => f.startsWith('shared/entities/')).length === 1),
    );
    expect(clashes).toEqual([]);
  });

  it('existence conditions are named once, in shared/db/conditions.ts', () => {
    const spelled = files
      .filter((f) => f !== 'shared/db/conditions.ts')
      .flatMap((f) =>
        readFileSync(resolve(ROOT, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${f}:${i + 1}`, line: line.trim() }))
          .filter(({ line }) => !line.startsWith('*') && !line.startsWith('//'))
          .filter(({ line }) => /attribute_(not_)?exists\(pk\)/.test(line)),
      );
    expect(spelled).toEqual([]);
  });
});
