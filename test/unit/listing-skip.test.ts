/**
 * `skip` and `take` never reach DynamoDB out of range (issue 10.5: a skip of 2^31 was sent as a
 * Query's `Limit` and answered 500). Any skip up to 2^53 - 1 is an empty page past the end; more
 * is a 400; `take` is 1..1000.
 */
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_QUERY_LIMIT, queryBetween, queryPage } from '#shared/db/client.ts';
import { parseQueryString } from '#shared/http/query-string.ts';
import { readListParams } from '#shared/listing/params.ts';
import { viewOrderPage } from '#shared/listing/view-order.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
afterEach(() => ddbMock.reset());

const DYNAMODB_MAX_LIMIT = 2 ** 31 - 1;
const sentLimits = () => ddbMock.commandCalls(QueryCommand).map((c) => c.args[0].input.Limit);

describe('skip and take', () => {
  it.each([
    ['skip=9007199254740991', { skip: Number.MAX_SAFE_INTEGER }],
    ['skip=2147483648&take=1000', { skip: 2 ** 31, take: 1000 }],
  ])('%s is accepted', (qs, expected) => {
    expect(readListParams(parseQueryString(qs))).toMatchObject(expected);
  });

  it.each([
    ['skip=9007199254740992', 'skip must be an integer from 0 to 9007199254740991'],
    ['skip=1e30', 'skip must be an integer from 0 to 9007199254740991'],
    ['take=2147483648', 'take must be an integer from 1 to 1000'],
  ])('%s is a 400 naming the parameter and its range', (qs, message) => {
    expect(() => readListParams(parseQueryString(qs))).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ message })] }),
    );
  });

  it('a Query never carries a Limit DynamoDB refuses, however large the page asked for', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [] });

    await queryPage({ pk: 'RECNUM#tbl', limit: Number.MAX_SAFE_INTEGER });
    await queryBetween({ pk: 'RECNUM#tbl', limit: 2 ** 31 + 5 });

    expect(sentLimits()).toEqual([MAX_QUERY_LIMIT, MAX_QUERY_LIMIT]);
    expect(MAX_QUERY_LIMIT).toBeLessThanOrEqual(DYNAMODB_MAX_LIMIT);
  });

  it('a view-order page past the last autoNumber is empty without reading the index', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [] });

    const ids = await viewOrderPage('tblAAAAAAAAAAAAAAAA', 'viwAAAAAAAAAAAAAAAA', 2 ** 31, 100, 3);

    expect(ids).toEqual([]);
    expect(sentLimits()).toEqual([]);
  });
});
