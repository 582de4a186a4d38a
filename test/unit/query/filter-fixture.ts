/** A fixed table for the filter tests: one field of every filter kind and 13 rows, empty cells included. */
import type { Field, UserRef } from '#shared/fields/field-types.ts';
import type { QueryContext, Row } from '#shared/query/query-types.ts';
import { alice, bob, makeField, samA as sam } from '../fields/support.ts';

export { alice, bob, sam };

/** "Now" of every test: Tuesday 10 March 2026, noon UTC (New York already on daylight time). */
export const NOW = new Date('2026-03-10T12:00:00.000Z');

export const ALPHA = 'recAlphaAAAAAAAAAAA';
export const BETA = 'recBetaBBBBBBBBBBBBB';
export const GAMMA = 'recGammaCCCCCCCCCCC';
const TITLES: Record<string, string> = { [ALPHA]: 'Alpha', [BETA]: 'Beta', [GAMMA]: 'Gamma' };
const FOREIGN = 'tblForeignAAAAAAAAA';

const choices = (...names: string[]) => ({ choices: names.map((name) => ({ name })) });

export const F = {
  name: makeField('singleLineText', undefined, 'Name'),
  notes: makeField('longText', undefined, 'Notes'),
  count: makeField('number', undefined, 'Count'),
  stars: makeField('rating', undefined, 'Stars'),
  id: makeField('autoNumber', undefined, 'ID'),
  done: makeField('checkbox', undefined, 'Done'),
  when: makeField('date', { formatting: { timeZone: 'Asia/Tokyo' } }, 'When'),
  created: makeField('createdTime', undefined, 'Created'),
  status: makeField('singleSelect', choices('light', 'medium', 'heavy', 'Light'), 'Status'),
  tags: makeField('multipleSelect', choices('a', 'b', 'c'), 'Tags'),
  owner: makeField('user', undefined, 'Owner'),
  team: makeField('user', { isMultiple: true }, 'Team'),
  createdBy: makeField('createdBy', undefined, 'Created By'),
  parent: makeField('link', { relationship: 'manyOne', foreignTableId: FOREIGN }, 'Parent'),
  kids: makeField('link', { relationship: 'manyMany', foreignTableId: FOREIGN }, 'Kids'),
  files: makeField('attachment', undefined, 'Files'),
} satisfies Record<string, Field>;

export const FIELDS: Field[] = Object.values(F);

type Cells = Partial<Record<keyof typeof F, unknown>>;

const file = [{ id: 'actAAAAAAAAAAAAAAAA', name: 'a.png', token: 'tok' }];

const row = (n: number, cells: Cells, created: string, createdBy: UserRef): Row => {
  const out: Row = { id: `r${String(n).padStart(2, '0')}`, autoNumber: n, cells: {} };
  const all: Cells = { ...cells, id: n, created, createdBy };
  for (const [key, value] of Object.entries(all)) {
    if (value !== undefined) out.cells[F[key as keyof typeof F].id] = value as Row['cells'][string];
  }
  return out;
};

/** The 13 rows; the comments give what date filters see in UTC. */
export const ROWS: Row[] = [
  row(
    1,
    {
      name: 'Apple',
      count: 1,
      stars: 1,
      done: true,
      when: '2026-03-10T00:00:00.000Z', // today, first instant
      status: 'light',
      tags: ['a'],
      owner: alice,
      team: [alice, bob],
      parent: [ALPHA],
      kids: [ALPHA, BETA],
      files: file,
    },
    '2026-03-01T10:00:00.000Z',
    alice,
  ),
  row(
    2,
    {
      name: 'apple pie',
      notes: 'Pie notes',
      count: 2.5,
      stars: 2,
      when: '2026-03-10T23:59:59.999Z', // today, last instant
      status: 'medium',
      tags: ['a', 'b'],
      owner: bob,
      team: [bob],
      parent: [BETA],
      kids: [BETA],
    },
    '2026-03-02T10:00:00.000Z',
    bob,
  ),
  row(
    3,
    {
      name: 'Banana',
      count: -3,
      when: '2026-03-09T12:00:00.000Z', // yesterday
      status: 'heavy',
      tags: ['b', 'a'],
      team: [alice],
      kids: [GAMMA],
    },
    '2026-03-03T10:00:00.000Z',
    alice,
  ),
  row(4, {}, '2026-03-04T10:00:00.000Z', bob),
  row(
    5,
    {
      name: 'Cherry',
      count: 0,
      stars: 5,
      when: '2026-03-11T00:00:00.000Z', // tomorrow
      status: 'light',
      tags: ['c'],
      owner: sam,
      team: [bob, alice],
      parent: [GAMMA],
      files: file,
    },
    '2026-03-05T10:00:00.000Z',
    sam,
  ),
  row(
    6,
    {
      name: 'cherry',
      notes: 'Line one\nApple two',
      count: 10,
      stars: 3,
      done: true,
      when: '2026-03-03T08:00:00.000Z', // one week ago
      tags: ['a', 'b', 'c'],
      owner: alice,
      kids: [ALPHA, BETA, GAMMA],
    },
    '2026-03-06T10:00:00.000Z',
    alice,
  ),
  row(
    7,
    {
      name: 'Date',
      count: 100,
      done: true,
      when: '2026-02-10T05:00:00.000Z', // one month ago
      status: 'heavy',
      team: [sam],
      parent: [ALPHA],
    },
    '2026-03-07T10:00:00.000Z',
    bob,
  ),
  row(
    8,
    {
      name: 'Elder',
      count: 3,
      stars: 4,
      when: '2026-04-10T00:00:00.000Z', // one month from now
      status: 'medium',
      tags: ['b'],
      owner: bob,
      kids: [BETA],
    },
    '2026-03-08T10:00:00.000Z',
    alice,
  ),
  row(9, { name: 'Fig', count: 2.49, when: '2025-03-10T15:00:00.000Z' }, '2026-03-09T10:00:00.000Z', alice),
  row(
    10,
    { name: 'Grape', count: 1000, when: '2026-03-17T10:00:00.000Z', status: 'Light', tags: ['a'] },
    '2026-03-10T11:00:00.000Z',
    bob,
  ),
  row(11, { name: 'apple', count: 1, when: '2026-03-07T00:00:00.000Z' }, '2026-03-10T00:00:00.000Z', alice),
  row(
    12,
    { name: 'Kiwi', count: -0.5, when: '2026-03-09T23:59:59.999Z' }, // yesterday's last instant
    '2026-03-10T12:00:00.000Z',
    alice,
  ),
  row(13, { name: 'Lemon', when: '2026-03-10T20:00:00.000Z' }, '2026-03-10T12:00:00.000Z', alice),
];

export const ALL_IDS = ROWS.map((r) => r.id);

/** Every id but the ones given, in row order. */
export const allBut = (...ids: string[]): string[] => ALL_IDS.filter((id) => !ids.includes(id));

/** The query context of the tests: caller Alice, fixed now, three foreign records. */
export const CTX: QueryContext = {
  fields: new Map(FIELDS.map((f) => [f.id, f])),
  userId: alice.id,
  now: NOW,
  linkTitle: (_fieldId, recordId) => TITLES[recordId],
};
