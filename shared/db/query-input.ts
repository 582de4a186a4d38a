import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/** A filter applied after the key condition (it costs the items read all the same). */
export interface QueryFilter {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * Which sort keys of the partition a query reads: those with a prefix, those below or above a
 * bound (exclusive), or those from `from` to `to` (inclusive; either may be absent).
 */
export type SortKeyRange =
  | { prefix: string }
  | { below: string }
  | { above: string }
  | { from?: string; to?: string };

/** One query of a partition, as data. */
export interface QuerySpec {
  pk: string;
  sk?: SortKeyRange;
  filter?: QueryFilter;
  /** Top-level attributes to read (all when absent). */
  projection?: readonly string[];
  /** Sort-key order by default; `true` reads from the end. */
  newestFirst?: boolean;
  /** Only the count of the items (DynamoDB reads them all the same). */
  countOnly?: boolean;
}

/** The key condition of a sort-key range, with the names and values it uses. Pure. */
const keyCondition = (
  range: SortKeyRange | undefined,
): { condition: string; names: Record<string, string>; values: Record<string, unknown> } => {
  const none = { condition: '#pk = :pk', names: {}, values: {} };
  if (!range) return none;
  const sk = { '#sk': 'sk' };
  if ('prefix' in range)
    return { condition: '#pk = :pk AND begins_with(#sk, :sk)', names: sk, values: { ':sk': range.prefix } };
  if ('below' in range)
    return { condition: '#pk = :pk AND #sk < :bound', names: sk, values: { ':bound': range.below } };
  if ('above' in range)
    return { condition: '#pk = :pk AND #sk > :bound', names: sk, values: { ':bound': range.above } };
  const { from, to } = range;
  if (from !== undefined && to !== undefined)
    return {
      condition: '#pk = :pk AND #sk BETWEEN :from AND :to',
      names: sk,
      values: { ':from': from, ':to': to },
    };
  if (from !== undefined)
    return { condition: '#pk = :pk AND #sk >= :from', names: sk, values: { ':from': from } };
  if (to !== undefined) return { condition: '#pk = :pk AND #sk <= :to', names: sk, values: { ':to': to } };
  return none;
};

/**
 * The input of a strongly consistent query on one partition, built apart from sending it: every
 * query the client sends is built here (`queryPage`, `queryRange`, `queryBetween`, `countBetween`),
 * so a query's key condition, projection and filter are written once. No table name, no paging:
 * the client adds those. Pure.
 */
export const queryInput = (spec: QuerySpec): Omit<QueryCommandInput, 'TableName'> => {
  const key = keyCondition(spec.sk);
  const names: Record<string, string> = { '#pk': 'pk', ...spec.filter?.names, ...key.names };
  const projection = spec.projection?.map((name, i) => {
    names[`#p${i}`] = name;
    return `#p${i}`;
  });
  return {
    KeyConditionExpression: key.condition,
    ...(spec.filter ? { FilterExpression: spec.filter.expression } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':pk': spec.pk, ...spec.filter?.values, ...key.values },
    ...(projection ? { ProjectionExpression: projection.join(', ') } : {}),
    ...(spec.countOnly ? { Select: 'COUNT' as const } : {}),
    ScanIndexForward: !spec.newestFirst,
    ConsistentRead: true,
  };
};
