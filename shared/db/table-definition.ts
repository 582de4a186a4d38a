/**
 * The one DynamoDB table, as data: the CDK stack and the local server both build it from this,
 * so the cloud and the laptop never disagree on keys, indexes or TTL.
 *
 * No secondary index: every access pattern is served by the main table's keys (see
 * `keys.ts`), including the "by user" lists (mirror items written in the same transaction) and
 * record order (order items maintained in the main table). That keeps every read strongly
 * consistent, so a caller always reads its own writes.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after (idempotency, saved queries, codes). */
  ttlAttribute: 'expiresAt',
  globalSecondaryIndexes: [] as ReadonlyArray<{ name: string; partitionKey: string; sortKey: string }>,
  /**
   * The table's change stream, with every item's image before and after a write: the change log
   * is captured from it (data-flow.md 1), so a request pays nothing for it.
   */
  streamViewType: 'NEW_AND_OLD_IMAGES',
} as const;

/** The CreateTable input for the definition (DynamoDB Local and tests; the stack uses CDK). */
export const createTableInput = (tableName: string) => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST' as const,
  StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE_DEFINITION.streamViewType },
  AttributeDefinitions: [
    { AttributeName: TABLE_DEFINITION.partitionKey, AttributeType: 'S' as const },
    { AttributeName: TABLE_DEFINITION.sortKey, AttributeType: 'S' as const },
    ...TABLE_DEFINITION.globalSecondaryIndexes.flatMap((g) => [
      { AttributeName: g.partitionKey, AttributeType: 'S' as const },
      { AttributeName: g.sortKey, AttributeType: 'S' as const },
    ]),
  ],
  KeySchema: [
    { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' as const },
  ],
  ...(TABLE_DEFINITION.globalSecondaryIndexes.length
    ? {
        GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map((g) => ({
          IndexName: g.name,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' as const },
            { AttributeName: g.sortKey, KeyType: 'RANGE' as const },
          ],
          Projection: { ProjectionType: 'ALL' as const },
        })),
      }
    : {}),
});
