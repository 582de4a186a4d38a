import { describe, expect, it } from 'vitest';
import { queryInput } from '#shared/db/query-input.ts';

describe('queries built apart from sending (queryInput)', () => {
  it('a whole partition: its key alone, in sort-key order, strongly consistent', () => {
    expect(queryInput({ pk: 'RECORDS#tblA' })).toEqual({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': 'RECORDS#tblA' },
      ScanIndexForward: true,
      ConsistentRead: true,
    });
  });

  it.each([
    [{ prefix: 'FIELD#' }, '#pk = :pk AND begins_with(#sk, :sk)', { ':sk': 'FIELD#' }],
    [{ below: 'k5' }, '#pk = :pk AND #sk < :bound', { ':bound': 'k5' }],
    [{ above: 'k5' }, '#pk = :pk AND #sk > :bound', { ':bound': 'k5' }],
    [{ from: 'a', to: 'm' }, '#pk = :pk AND #sk BETWEEN :from AND :to', { ':from': 'a', ':to': 'm' }],
    [{ from: 'a' }, '#pk = :pk AND #sk >= :from', { ':from': 'a' }],
    [{ to: 'm' }, '#pk = :pk AND #sk <= :to', { ':to': 'm' }],
  ])('a sort-key range %j: its key condition, names and values', (sk, condition, values) => {
    const input = queryInput({ pk: 'P', sk });
    expect(input.KeyConditionExpression).toBe(condition);
    expect(input.ExpressionAttributeNames).toEqual({ '#pk': 'pk', '#sk': 'sk' });
    expect(input.ExpressionAttributeValues).toEqual({ ':pk': 'P', ...values });
  });

  it('a range open on both sides is the whole partition', () => {
    expect(queryInput({ pk: 'P', sk: {} })).toEqual(queryInput({ pk: 'P' }));
  });

  it('a projection by placeholders (attribute names may be reserved words), a filter, newest first, a count', () => {
    const input = queryInput({
      pk: 'P',
      sk: { below: 'k' },
      filter: { expression: '#s = :s', names: { '#s': 'status' }, values: { ':s': 'open' } },
      projection: ['id', 'name'],
      newestFirst: true,
      countOnly: true,
    });
    expect(input).toEqual({
      KeyConditionExpression: '#pk = :pk AND #sk < :bound',
      FilterExpression: '#s = :s',
      ExpressionAttributeNames: { '#pk': 'pk', '#s': 'status', '#sk': 'sk', '#p0': 'id', '#p1': 'name' },
      ExpressionAttributeValues: { ':pk': 'P', ':s': 'open', ':bound': 'k' },
      ProjectionExpression: '#p0, #p1',
      Select: 'COUNT',
      ScanIndexForward: false,
      ConsistentRead: true,
    });
  });
});
