/**
 * Synthetic rows for the pure query engine and its CPU figure (`benchEngine`), imported by
 * `npm run bench`; `npx tsx test/bench/engine-rows.ts [n]` prints the figure alone.
 *
 * The table has 20 fields of mixed kinds (text, long text, numbers, rating, checkbox, selects,
 * dates in two zones, users, links, attachments and the five record stamps); about one cell in ten
 * is empty. Values come from a seeded generator, so every run sees the same rows.
 */
import { defineField } from '#shared/fields/define.ts';
import type { Field, StoredCell, UserRef } from '#shared/fields/field-types.ts';
import { runQuery } from '#shared/query/engine.ts';
import { resolveFilter } from '#shared/query/filter.ts';
import type { Query, QueryContext, Row } from '#shared/query/query-types.ts';
import { searchFieldIds } from '#shared/query/search.ts';

/** A small seeded generator (mulberry32): numbers in [0, 1). */
export const seeded = (seed: number): (() => number) => {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const fieldId = (n: number): string => `fldBench${String(n).padStart(11, '0')}`;

const STATUSES = ['Todo', 'Doing', 'Review', 'Done', 'Blocked'];
const TAGS = ['red', 'green', 'blue', 'urgent', 'later', 'north', 'south', 'misc'];
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
const PEOPLE: UserRef[] = Array.from({ length: 30 }, (_, i) => ({
  id: `usrBench${String(i).padStart(11, '0')}`,
  title: `${WORDS[i % WORDS.length]} Person${i}`,
  email: `p${i}@example.com`,
}));
const FOREIGN = Array.from({ length: 500 }, (_, i) => `recForeign${String(i).padStart(9, '0')}`);
const FOREIGN_TITLES = new Map(FOREIGN.map((id, i) => [id, `${WORDS[i % WORDS.length]} item ${i}`]));

const FIELD_INPUTS: Record<string, unknown>[] = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'longText', name: 'Notes' },
  { type: 'number', name: 'Amount', options: { formatting: { type: 'currency', precision: 2 } } },
  { type: 'number', name: 'Quantity', options: { formatting: { type: 'decimal', precision: 0 } } },
  { type: 'rating', name: 'Score' },
  { type: 'checkbox', name: 'Done' },
  { type: 'singleSelect', name: 'Status', options: { choices: STATUSES.map((name) => ({ name })) } },
  { type: 'multipleSelect', name: 'Tags', options: { choices: TAGS.map((name) => ({ name })) } },
  {
    type: 'date',
    name: 'Due',
    options: { formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' } },
  },
  {
    type: 'date',
    name: 'Meeting',
    options: { formatting: { date: 'DD/MM/YYYY', time: 'HH:mm', timeZone: 'Europe/Berlin' } },
  },
  { type: 'user', name: 'Owner' },
  { type: 'user', name: 'Reviewers', options: { isMultiple: true } },
  {
    type: 'link',
    name: 'Items',
    options: { relationship: 'manyMany', foreignTableId: 'tblBenchForeign0000' },
  },
  {
    type: 'link',
    name: 'Parent',
    options: { relationship: 'manyOne', foreignTableId: 'tblBenchForeign0000' },
  },
  { type: 'attachment', name: 'Files' },
  { type: 'singleLineText', name: 'Email' },
  { type: 'createdTime', name: 'Created' },
  { type: 'lastModifiedTime', name: 'Modified' },
  { type: 'createdBy', name: 'Author' },
  { type: 'autoNumber', name: 'ID' },
];

/** The 20 fields of the synthetic table (ids `fldBench00000000000`…). */
export const benchFields = (): Field[] => {
  const fields: Field[] = [];
  FIELD_INPUTS.forEach((input, i) => {
    let c = 0;
    fields.push(
      defineField(
        { ...input, id: fieldId(i), isPrimary: i === 0 },
        { existing: fields, newChoiceId: () => `choBench${i}x${String(++c).padStart(8, '0')}` },
      ),
    );
  });
  return fields;
};

/** The query context of the synthetic table (link titles of 500 foreign records). */
export const benchContext = (fields: Field[]): QueryContext => ({
  fields: new Map(fields.map((f) => [f.id, f])),
  userId: PEOPLE[0]?.id ?? '',
  now: new Date('2026-03-01T12:00:00.000Z'),
  linkTitle: (_fieldId, recordId) => FOREIGN_TITLES.get(recordId),
});

/** `n` rows of the synthetic table (seeded: the same rows every time). */
export const benchRows = (n: number, fields: Field[], seed = 42): Row[] => {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const some = <T>(items: readonly T[], max: number): T[] => {
    const out = new Set<T>();
    const k = 1 + Math.floor(random() * max);
    for (let i = 0; i < k; i++) out.add(pick(items));
    return [...out];
  };
  const base = Date.UTC(2024, 0, 1);
  const span = 3 * 365 * 86_400_000;
  const instant = () => new Date(base + Math.floor(random() * span)).toISOString();
  const maker: ((i: number) => StoredCell | undefined)[] = [
    () => `${pick(WORDS)} ${pick(WORDS)} ${Math.floor(random() * 10_000)}`,
    () => `${pick(WORDS)} notes about ${pick(WORDS)}\nsecond line ${pick(WORDS)}`,
    () => Math.round(random() * 1_000_000) / 100,
    () => Math.floor(random() * 50),
    () => 1 + Math.floor(random() * 5),
    () => (random() < 0.5 ? true : undefined),
    () => pick(STATUSES),
    () => some(TAGS, 3),
    () => instant(),
    () => instant(),
    () => pick(PEOPLE),
    () => some(PEOPLE, 3),
    () => some(FOREIGN, 3),
    () => [pick(FOREIGN)],
    () => [
      {
        id: `act${Math.floor(random() * 1e9)}`,
        name: `${pick(WORDS)}.png`,
        token: 'tok',
        path: 'p',
        size: 10,
        mimetype: 'image/png',
      },
    ],
    (i) => `user${i}@example.com`,
    () => instant(),
    () => instant(),
    () => pick(PEOPLE),
    (i) => i + 1,
  ];
  const rows: Row[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const cells: Record<string, StoredCell | undefined> = {};
    fields.forEach((field, f) => {
      // system fields are never empty; other cells are empty one time in ten
      const always = field.isComputed || f === 0;
      if (always || random() >= 0.1) {
        const value = (maker[f] as (i: number) => StoredCell | undefined)(i);
        if (value !== undefined) cells[field.id] = value;
      }
    });
    rows[i] = { id: `rec${String(i + 1).padStart(16, '0')}`, autoNumber: i + 1, cells };
  }
  return rows;
};

/**
 * The benchmark's query: a filter (status any of three AND amount > 1,000 OR not done), two sort
 * items, two group levels, and a search of every default field for "echo" hiding non-matching rows.
 */
export const benchQuery = (fields: Field[]): Query => {
  const id = (name: string) => fields.find((f) => f.name === name)?.id ?? '';
  const filter = resolveFilter(
    {
      conjunction: 'and',
      filterSet: [
        { fieldId: 'Status', operator: 'isAnyOf', value: ['Todo', 'Doing', 'Review'] },
        {
          conjunction: 'or',
          filterSet: [
            { fieldId: 'Amount', operator: 'isGreater', value: 1000 },
            { fieldId: 'Done', operator: 'is', value: null },
          ],
        },
      ],
    },
    fields,
  );
  return {
    filter,
    groupBy: [
      { fieldId: id('Status'), order: 'asc' },
      { fieldId: id('Owner'), order: 'desc' },
    ],
    sort: [
      { fieldId: id('Name'), order: 'asc' },
      { fieldId: id('Amount'), order: 'desc' },
    ],
    collapsedGroupIds: [],
    search: {
      value: 'echo',
      fieldIds: searchFieldIds(
        undefined,
        fields,
        fields.map((f) => f.id),
      ),
      hide: true,
    },
    skip: 0,
    take: 100,
  };
};

const cpuMs = (act: () => void): number => {
  const start = process.cpuUsage();
  act();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/**
 * CPU milliseconds of `runs` consecutive `runQuery` calls (filter + 2 sorts + 2-level group +
 * search) over the same `n` rows × 20 fields, after two warm-up runs on 10,000 other rows (a warm
 * Lambda has compiled the engine). The first run also pays for touching rows the generator just
 * made (cold in the CPU cache, as rows fresh from DynamoDB are).
 */
export const benchEngineRuns = (n = 100_000, runs = 3): number[] => {
  const fields = benchFields();
  const ctx = benchContext(fields);
  const q = benchQuery(fields);
  const warm = benchRows(Math.min(n, 10_000), fields, 7);
  runQuery(warm, q, ctx);
  runQuery(warm, q, ctx);
  const rows = benchRows(n, fields);
  return Array.from({ length: runs }, () => cpuMs(() => runQuery(rows, q, ctx)));
};

/** The engine's CPU figure: the median of three runs of `benchEngineRuns` (see there). */
export const benchEngine = (n = 100_000): number => benchEngineRuns(n, 3).sort((a, b) => a - b)[1] as number;

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 100_000);
  const runs = benchEngineRuns(n, 3);
  const median = [...runs].sort((a, b) => a - b)[1] ?? 0;
  console.log(
    `query engine, ${n} rows × 20 fields: ${median.toFixed(1)} ms CPU (median; runs ${runs.map((t) => t.toFixed(0)).join(', ')})`,
  );
}
