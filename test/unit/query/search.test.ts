/** Search (listing.md section 5): field resolution, matching on the text rendering, hide, hits of the page. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import { runQuery } from '#shared/query/engine.ts';
import { compileSearch, searchFieldIds } from '#shared/query/search.ts';
import { alice, bob, contextOf, makeField, query, recId, rowsOf } from './engine-support.ts';

const NAME = 'fldNameNameNameName';
const AMOUNT = 'fldAmountAmountAmou';
const DONE = 'fldDoneDoneDoneDone';
const WHEN = 'fldWhenWhenWhenWhen';
const TAGS = 'fldTagsTagsTagsTags';
const OWNER = 'fldOwnerOwnerOwnerO';
const LINK = 'fldLinkLinkLinkLink';
const CREATED = 'fldCreatedCreatedCr';
const NOTES = 'fldNotesNotesNotesN';

const R1 = 'recForeign000000001';
const R2 = 'recForeign000000002';

const fields = [
  makeField(NAME, 'singleLineText', undefined, 'Name'),
  makeField(AMOUNT, 'number', { formatting: { type: 'currency', precision: 2, symbol: '€' } }, 'Amount'),
  makeField(DONE, 'checkbox', undefined, 'Done'),
  makeField(
    WHEN,
    'date',
    { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Asia/Tokyo' } },
    'When',
  ),
  makeField(TAGS, 'multipleSelect', { choices: [{ name: 'red, hot' }, { name: 'blue' }] }, 'Tags'),
  makeField(OWNER, 'user', undefined, 'Owner'),
  makeField(LINK, 'link', { relationship: 'manyMany', foreignTableId: 'tblForeignAAAAAAAAA' }, 'Link'),
  makeField(CREATED, 'createdTime', undefined, 'Created'),
  makeField(NOTES, 'longText', undefined, 'Notes'),
];
const ctx = contextOf(fields, { [R1]: 'Invoice North', [R2]: 'Other' });
const ALL = fields.map((f) => f.id);

describe('searchFieldIds', () => {
  it('defaults to the visible fields except checkbox and date fields, in visible order', () => {
    const visible = [NOTES, NAME, DONE, WHEN, AMOUNT, CREATED, OWNER];
    expect(searchFieldIds(undefined, fields, visible)).toEqual([NOTES, NAME, AMOUNT, OWNER]);
    expect(searchFieldIds('', new Map(fields.map((f) => [f.id, f])), visible)).toEqual([
      NOTES,
      NAME,
      AMOUNT,
      OWNER,
    ]);
    expect(searchFieldIds(' , ', fields, visible)).toEqual([NOTES, NAME, AMOUNT, OWNER]);
  });

  it('hidden (not visible) fields are left out of the default', () => {
    expect(searchFieldIds(undefined, fields, [NAME])).toEqual([NAME]);
  });

  it('takes comma-separated ids or names, trimmed, in the order given, each once', () => {
    expect(searchFieldIds(`Amount, ${NAME},When ,Amount`, fields, [])).toEqual([AMOUNT, NAME, WHEN]);
  });

  it('an unknown field is a 400 naming it', () => {
    expect(() => searchFieldIds('Name,Nope', fields, ALL)).toThrow(ValidationError);
    expect(() => searchFieldIds('Name,Nope', fields, ALL)).toThrow(/Nope/);
  });
});

const rows = rowsOf([
  { [NAME]: 'Alpha report', [AMOUNT]: 1234.5, [OWNER]: alice, [NOTES]: 'nothing' },
  { [NAME]: 'beta', [AMOUNT]: -12, [TAGS]: ['red, hot'], [LINK]: [R2, R1], [DONE]: true },
  { [NAME]: 'gamma', [WHEN]: '2026-03-01T20:30:00.000Z', [OWNER]: bob, [NOTES]: 'REPORT due' },
  { [NAME]: 'delta' },
]);

const hitsOf = (value: string, fieldIds: string[]) => {
  const search = compileSearch({ value, fieldIds, hide: false }, ctx);
  return rows.map((row) => search?.hitFieldIds(row) ?? []);
};

describe('matching on the text rendering', () => {
  it('text ignores case', () => {
    expect(hitsOf('REPort', [NAME, NOTES])).toEqual([[NAME], [], [NOTES], []]);
  });

  it('numbers match their formatted text (currency, thousands separators, sign)', () => {
    expect(hitsOf('€1,234.50', [AMOUNT])).toEqual([[AMOUNT], [], [], []]);
    expect(hitsOf('-€12.00', [AMOUNT])).toEqual([[], [AMOUNT], [], []]);
    expect(hitsOf('1234', [AMOUNT])).toEqual([[], [], [], []]);
  });

  it('a number field never matches text it cannot show', () => {
    expect(hitsOf('alpha', [AMOUNT, NAME])).toEqual([[NAME], [], [], []]);
  });

  it('dates match the text in the field time zone', () => {
    expect(hitsOf('2026-03-02 05:30', [WHEN])).toEqual([[], [], [WHEN], []]);
    expect(hitsOf('2026-03-01', [WHEN])).toEqual([[], [], [], []]);
  });

  it('multiple select matches its rendered list (quoted names), users and links their titles', () => {
    expect(hitsOf('"red, hot"', [TAGS])).toEqual([[], [TAGS], [], []]);
    expect(hitsOf('ALICE', [OWNER])).toEqual([[OWNER], [], [], []]);
    expect(hitsOf('other, invoice', [LINK])).toEqual([[], [LINK], [], []]);
  });

  it('checkbox renders as true when named explicitly', () => {
    expect(hitsOf('TRUE', [DONE, NAME])).toEqual([[], [DONE], [], []]);
  });

  it('an empty value searches nothing', () => {
    expect(compileSearch({ value: '', fieldIds: [NAME], hide: true }, ctx)).toBeUndefined();
    const result = runQuery(rows, query({ search: { value: '', fieldIds: [NAME], hide: true } }), ctx);
    expect(result.total).toBe(4);
    expect(result.searchHitIndex).toBeNull();
  });
});

describe('hide and searchHitIndex', () => {
  const search = (hide: boolean) => ({ value: 'a', fieldIds: [NOTES, NAME], hide });

  it('hide: false keeps every record and lists the hits of the page', () => {
    const result = runQuery(rows, query({ search: search(false) }), ctx);
    expect(result.total).toBe(4);
    expect(result.ids).toEqual([1, 2, 3, 4].map(recId));
    expect(result.searchHitIndex).toEqual([
      { recordId: recId(1), fieldId: NAME },
      { recordId: recId(2), fieldId: NAME },
      { recordId: recId(3), fieldId: NAME },
      { recordId: recId(4), fieldId: NAME },
    ]);
  });

  it('hide: true keeps only records with a hit', () => {
    const result = runQuery(
      rows,
      query({ search: { value: 'report', fieldIds: [NOTES, NAME], hide: true } }),
      ctx,
    );
    expect(result.ids).toEqual([recId(1), recId(3)]);
    expect(result.total).toBe(2);
    // fields in search-field order: NOTES before NAME
    expect(result.searchHitIndex).toEqual([
      { recordId: recId(1), fieldId: NAME },
      { recordId: recId(3), fieldId: NOTES },
    ]);
  });

  it('fields in search-field order within a record, records in page order', () => {
    const result = runQuery(
      rows,
      query({
        search: { value: 'a', fieldIds: [OWNER, NAME], hide: false },
        sort: [{ fieldId: NAME, order: 'desc' }],
      }),
      ctx,
    );
    expect(result.ids).toEqual([3, 4, 2, 1].map(recId));
    expect(result.searchHitIndex).toEqual([
      { recordId: recId(3), fieldId: NAME },
      { recordId: recId(4), fieldId: NAME },
      { recordId: recId(2), fieldId: NAME },
      { recordId: recId(1), fieldId: OWNER },
      { recordId: recId(1), fieldId: NAME },
    ]);
  });

  it('only the returned page is indexed; null when the page has no hit', () => {
    const s = { value: 'gamma', fieldIds: [NAME], hide: false };
    expect(runQuery(rows, query({ search: s, skip: 2, take: 1 }), ctx).searchHitIndex).toEqual([
      { recordId: recId(3), fieldId: NAME },
    ]);
    expect(runQuery(rows, query({ search: s, skip: 0, take: 2 }), ctx).searchHitIndex).toBeNull();
  });

  it('no search: searchHitIndex is null', () => {
    expect(runQuery(rows, query(), ctx).searchHitIndex).toBeNull();
  });
});
