import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fitResponse, GZIP_THRESHOLD_BYTES, MAX_RESPONSE_BYTES } from '#shared/http/handler.ts';
import { parseQueryString } from '#shared/http/query-string.ts';
import { newId } from '#shared/ids.ts';
import { jsonParam, mergeParams, readListParams } from '#shared/listing/params.ts';
import { normaliseSavedParams } from '#shared/listing/saved-queries.ts';
import { recordSlices, rowAttributes } from '#shared/records/rows.ts';
import { segmentPlan } from '#shared/records/view-indexes/build.ts';

const read = (qs: string) => readListParams(parseQueryString(qs));

describe('listing parameters', () => {
  it('has the contract defaults', () => {
    expect(read('')).toEqual({
      viewId: undefined,
      ignoreViewQuery: false,
      projection: undefined,
      cellFormat: 'json',
      fieldKeyType: 'name',
      filter: undefined,
      filterByTql: undefined,
      orderBy: undefined,
      groupBy: undefined,
      collapsedGroupIds: [],
      search: undefined,
      selectedRecordIds: undefined,
      filterLinkCellCandidate: undefined,
      filterLinkCellSelected: undefined,
      take: 100,
      skip: 0,
    });
  });

  it.each([
    ['ignoreViewQuery=false', false],
    ['ignoreViewQuery=true', true],
    ['ignoreViewQuery=1', true],
    ['ignoreViewQuery=', true],
  ])('%s → ignoreViewQuery %s (any text but false is true)', (qs, expected) => {
    expect(read(qs).ignoreViewQuery).toBe(expected);
  });

  it('reads lists from a bare value, repeated keys, brackets and indexes', () => {
    expect(read('projection=A').projection).toEqual(['A']);
    expect(read('projection=A&projection=B').projection).toEqual(['A', 'B']);
    expect(read('projection[]=A&projection[]=B').projection).toEqual(['A', 'B']);
    expect(read('projection[1]=B&projection[0]=A').projection).toEqual(['A', 'B']);
  });

  it('reads search given as one JSON array, and refuses a malformed one with both forms shown', () => {
    expect(read(`search=${encodeURIComponent('["abc","Name",true]')}`).search).toEqual({
      value: 'abc',
      fields: 'Name',
      hide: true,
    });
    expect(read(`search=${encodeURIComponent('["abc"]')}`).search).toEqual({ value: 'abc', hide: false });
    expect(read(`search=${encodeURIComponent('[draft')}`).search).toEqual({ value: '[draft', hide: false });
    expect(read(`search[]=${encodeURIComponent('[draft]')}&search[]=`).search).toEqual({
      value: '[draft]',
      hide: false,
    });
    // a JSON array cut short (it starts with [") is one too, not a value to search for
    for (const unparseable of ['[draft]', '["abc",Name]', "['abc']", '["abc",', '[ "abc"'])
      expect(() => read(`search=${encodeURIComponent(unparseable)}`)).toThrow(
        /^search: send search\[\]=value&search\[\]=field&search\[\]=true, or one JSON array \["value", "field", true\]; ".*" is not a JSON array/,
      );
    for (const bad of ['[1,2]', '[]', '["a","b",true,4]'])
      expect(() => read(`search=${encodeURIComponent(bad)}`)).toThrow(
        'search: send search[]=value&search[]=field&search[]=true, or one JSON array ["value", "field", true]',
      );
  });

  it('reads search as value, fields, hide', () => {
    expect(read('search=abc').search).toEqual({ value: 'abc', hide: false });
    expect(read('search[]=abc&search[]=Name,Notes&search[]=true').search).toEqual({
      value: 'abc',
      fields: 'Name,Notes',
      hide: true,
    });
    expect(read('search[]=abc&search[]=&search[]=false').search).toEqual({ value: 'abc', hide: false });
    expect(read('search[]=').search).toBeUndefined();
  });

  it('reads JSON parameters and collapsedGroupIds as JSON or a list', () => {
    const p = read(`filter=${encodeURIComponent('{"conjunction":"and","filterSet":[]}')}&orderBy=%5B%5D`);
    expect(p.filter).toEqual({ conjunction: 'and', filterSet: [] });
    expect(p.orderBy).toEqual([]);
    expect(read('collapsedGroupIds=%5B%2212%22%2C34%5D').collapsedGroupIds).toEqual(['12', '34']);
    expect(read('collapsedGroupIds[]=12&collapsedGroupIds[]=34').collapsedGroupIds).toEqual(['12', '34']);
    expect(read('collapsedGroupIds=12').collapsedGroupIds).toEqual(['12']);
  });

  it('filterByTql replaces filter (a broken filter is then not read)', () => {
    const p = read('filterByTql=%7BA%7D%20%3D%201&filter=%7Bbroken');
    expect(p.filterByTql).toBe('{A} = 1');
    expect(p.filter).toBeUndefined();
  });

  it('reads the pickers as a field and an optional record', () => {
    expect(read('filterLinkCellCandidate=fld0123456789abcdef').filterLinkCellCandidate).toEqual({
      fieldId: 'fld0123456789abcdef',
    });
    expect(
      read('filterLinkCellSelected[]=fld0123456789abcdef&filterLinkCellSelected[]=rec0123456789abcdef')
        .filterLinkCellSelected,
    ).toEqual({ fieldId: 'fld0123456789abcdef', recordId: 'rec0123456789abcdef' });
  });

  it.each([
    'take=0',
    'take=1001',
    'take=2.5',
    'take=-3',
    'take=1e3',
    'take=',
    'skip=-1',
    'skip=x',
    'take=1&take=2',
    'cellFormat=html',
    'fieldKeyType=x',
    'viewId=viwshort',
    'selectedRecordIds=nope',
    'filter=%7B',
    'orderBy=%5B%7B',
    'groupBy=x',
    'collapsedGroupIds=%5B%7B%7D%5D',
    'search[]=a&search[]=b&search[]=c&search[]=d',
    'filterLinkCellCandidate[]=fld0123456789abcdef&filterLinkCellCandidate[]=x',
  ])('%s is a 400', (qs) => {
    expect(() => read(qs)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('merges saved parameters under the request, key by key', () => {
    expect(mergeParams({ take: '5', orderBy: '[]' }, { take: '7', queryId: 'qry_x' })).toEqual({
      take: '7',
      orderBy: '[]',
    });
    expect(mergeParams(undefined, { skip: '1' })).toEqual({ skip: '1' });
  });

  it('normalises saved parameters to query-string shapes and drops unknown keys', () => {
    expect(
      normaliseSavedParams({
        filter: { conjunction: 'and', filterSet: [] },
        orderBy: [{ fieldId: 'A', order: 'asc' }],
        search: ['x', 'A', true],
        take: 5,
        ignoreViewQuery: true,
        nonsense: 1,
      }),
    ).toEqual({
      filter: '{"conjunction":"and","filterSet":[]}',
      orderBy: '[{"fieldId":"A","order":"asc"}]',
      search: ['x', 'A', 'true'],
      take: '5',
      ignoreViewQuery: 'true',
    });
    expect(() => normaliseSavedParams({ take: 5000 })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('record slices', () => {
  it.each([1, 2, 12, 16, 62, 64, 100])('%i slices cover every record id once, in order', (count) => {
    const slices = recordSlices(count);
    expect(slices).toHaveLength(count);
    const ids = [
      'rec0000000000000000',
      'rec9zzzzzzzzzzzzzzz',
      'recAAAAAAAAAAAAAAAA',
      'recZ000',
      'reca1',
      'reczzzzzzzzzzzzzzzz',
      'recz0',
      ...Array.from({ length: 200 }, () => newId('record')),
    ];
    for (const id of ids) {
      const holders = slices.filter(
        (s) => (s.from === undefined || id >= s.from) && (s.to === undefined || id <= s.to),
      );
      expect(holders).toHaveLength(1);
    }
    for (let i = 1; i < slices.length; i++)
      expect((slices[i]?.from ?? '') > (slices[i - 1]?.to ?? '')).toBe(true);
  });

  it('reads system fields from the envelope', () => {
    const fields = [
      { id: 'fldA', type: 'singleLineText' },
      { id: 'fldB', type: 'createdBy' },
      { id: 'fldC', type: 'lastModifiedTime' },
    ] as never;
    expect(rowAttributes(fields, ['fldA', 'fldB', 'fldC'])).toEqual([
      'id',
      'autoNumber',
      'ord',
      'fldA',
      'cb',
      'lastModifiedTime',
    ]);
  });
});

describe('response size', () => {
  const result = (body: string) => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body,
  });

  it('gzips a large body only when the caller accepts gzip', () => {
    const body = JSON.stringify({ text: 'abc '.repeat(GZIP_THRESHOLD_BYTES) });
    const zipped = fitResponse(result(body), 'deflate, gzip;q=0.8');
    expect(zipped.isBase64Encoded).toBe(true);
    expect(zipped.headers?.['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(zipped.body ?? '', 'base64')).toString()).toBe(body);
    expect(fitResponse(result(body), undefined)).toEqual(result(body));
    expect(fitResponse(result(body), 'gzip;q=0')).toEqual(result(body));
    expect(fitResponse(result(body), 'br')).toEqual(result(body));
  });

  it('leaves a small body alone', () => {
    expect(fitResponse(result('{"a":1}'), 'gzip')).toEqual(result('{"a":1}'));
  });

  it('answers 413 for a body over the limit, compressed or not', () => {
    const big = 'x'.repeat(MAX_RESPONSE_BYTES + 1);
    const plain = fitResponse(result(big), undefined);
    expect(plain.statusCode).toBe(413);
    expect(JSON.parse(plain.body ?? '')).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(JSON.parse(plain.body ?? '').message).toMatch(/lower `take`/);
    // Compressible: fits once gzipped.
    expect(fitResponse(result(big), 'gzip').statusCode).toBe(200);
  });
});

describe('a view index build in segments', () => {
  it.each([0, 1, 500, 19_999, 20_001, 100_000, 1_000_000, 5_120_001, 20_000_000])(
    '%i records: segments of about 20,000, read in at most 16 slices at once, within 256 slices',
    (records) => {
      const { segments, perSegment } = segmentPlan(records);
      expect(segments).toBeGreaterThanOrEqual(1);
      expect(segments * perSegment).toBeLessThanOrEqual(256);
      expect(perSegment).toBeGreaterThanOrEqual(1);
      expect(perSegment).toBeLessThanOrEqual(16);
      if (records <= 5_120_000) expect(records / segments).toBeLessThanOrEqual(20_000);
      else expect(segments).toBe(256);
      // every segment is whole slices of the one plan: the segments cover every record once
      expect(recordSlices(segments * perSegment)).toHaveLength(segments * perSegment);
    },
  );
});

describe('jsonParam', () => {
  it('parses JSON text, and JSON text encoded twice (Teable’s client handed a filter as text) as the value it holds', () => {
    const filter = { conjunction: 'and', filterSet: [{ fieldId: 'fldA', operator: 'is', value: 'x' }] };
    expect(jsonParam(JSON.stringify(filter), 'filter')).toEqual(filter);
    expect(jsonParam(JSON.stringify(JSON.stringify(filter)), 'filter')).toEqual(filter);
    // a JSON string that holds no object or list stays a string (then refused where an object goes)
    expect(jsonParam(JSON.stringify('plain'), 'filter')).toBe('plain');
    expect(() => jsonParam(JSON.stringify('{not json'), 'filter')).toThrow(/filter: not valid JSON/);
    expect(jsonParam('', 'filter')).toBeUndefined();
  });
});
