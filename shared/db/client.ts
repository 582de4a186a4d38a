import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';
import {
  ConflictError,
  type HttpError,
  OutcomeUnknownError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  ValidationError,
} from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { EXISTS } from './conditions.ts';
import {
  dataVersionOp,
  deletionsBy,
  entryCountsBy,
  maintainedBy,
  tablesToBump,
  versionChanges,
  withSchemaDeletionNotes,
} from './data-versions.ts';
import type { Key } from './keys.ts';
import { type DbCall, recordCall } from './metrics.ts';
import type { Item, TransactOp, UpdateSpec } from './operations.ts';
import { type QueryFilter, queryInput } from './query-input.ts';
import { beforeAnswer, noteWriteSent, remainingMs, requestScope, writeStamps } from './request-scope.ts';
import { tracer } from './tracer.ts';

export type { Item, TransactOp, UpdateSpec } from './operations.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Where the SDK's HTTP handler writes: debug lines of ours, not warnings on stderr. */
export const SDK_LOGGER = {
  trace: () => undefined,
  debug: (message: unknown) => logger.debug(String(message)),
  info: (message: unknown) => logger.debug(String(message)),
  warn: (message: unknown) => logger.debug(String(message)),
  error: (message: unknown) => logger.warn(String(message)),
};

// Captured by the tracer: each call is an X-Ray subsegment in Lambda (unchanged elsewhere).
const raw = tracer.captureAWSv3Client(
  new DynamoDBClient({
    maxAttempts: 4,
    // The HTTP handler's warnings (a slow request, sockets at capacity under load) go to the log
    // at debug level: the request's own deadline answers for a slow call (README "Limits").
    requestHandler: { connectionTimeout: 1000, requestTimeout: 5000, logger: SDK_LOGGER },
    // Given only when set: an empty AWS_ENDPOINT_URL_DYNAMODB (the stack declares it empty) is no endpoint.
    ...(config.dynamoDbEndpoint ? { endpoint: config.dynamoDbEndpoint } : {}),
  }),
);

/**
 * The document client every module of `shared/db` sends through. Numbers beyond 2^53 (a number
 * cell of 1e20, a view's column width) are written as their shortest text and read back as
 * JavaScript numbers: by default the SDK refuses to write them and reads them as BigInt, which
 * JSON cannot answer. DynamoDB itself refuses magnitudes over 9.99e125 or under 1e-130: a 400
 * (`dynamoValidationError`). A map a user wrote may hold a key named `constructor`; without
 * `convertClassInstanceToMap` the SDK takes such an object for a class instance and refuses it
 * (a 500 before issue 27), so maps are written by their own keys whatever those are.
 */
export const documentClient = DynamoDBDocumentClient.from(raw, {
  marshallOptions: {
    removeUndefinedValues: true,
    allowImpreciseNumbers: true,
    convertClassInstanceToMap: true,
  },
  unmarshallOptions: { wrapNumbers: (text: string) => Number(text) },
});

export const TABLE = config.tableName;

const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** True for faults of the database or the network, which the caller may retry. */
export const isUnavailable = (error: unknown): boolean => {
  const e = error as { name?: string; code?: string; $retryable?: unknown };
  return (
    UNAVAILABLE.has(e?.name ?? '') || NETWORK_CODES.has(e?.code ?? '') || NETWORK_CODES.has(e?.name ?? '')
  );
};

// biome-ignore lint/suspicious/noExplicitAny: the document client's commands share no usable supertype
type Sendable = any;

const WRITES = new Set<DbCall['op']>([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);
/** Faults after which a write surely did not happen: refused before it reached the table. */
const NOT_APPLIED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * What a refusal of DynamoDB's input checks (a `ValidationException`, or a cancelled transaction's
 * `ValidationError` reason) means for the caller, or undefined when it is a fault of ours (a
 * malformed expression: logged and answered 500). The record path checks sizes first
 * (`shared/records/limits.ts`), so these are the last line: an item over 400 KB or a transaction
 * over 4 MB is a 413, a number out of DynamoDB's range or a key too long a 400. DynamoDB checks
 * before it applies anything, so the call wrote nothing. Pure.
 */
export const dynamoValidationError = (message: string): HttpError | undefined => {
  if (/item size|size has exceeded|payload size|cannot be larger|request size/i.test(message))
    return new PayloadTooLargeError(
      'The write is larger than the database accepts (an item over 400 KB, or over 4 MB in one transaction); nothing was written',
    );
  if (/number (overflow|underflow)|magnitude/i.test(message))
    return new ValidationError(
      'A number in the request is out of the range the database stores (magnitudes from 1e-130 to 9.99e125); nothing was written',
    );
  if (/key values must be under|primary key .* size|size of (hash|range)key/i.test(message))
    return new ValidationError(
      'A value used as a key is longer than the database allows (1 KB); nothing was written',
    );
  return undefined;
};

/** The least time a request must have left to send its first write (a write takes ms; a stall, seconds). */
export const MIN_WRITE_MS = 1000;

/**
 * Sends one command, records it for metrics and turns database faults into a 503. A write that
 * was sent and then timed out (or lost its connection) may have been made: that is an
 * `OutcomeUnknownError`, never "nothing was written". A request too close to its deadline to
 * write safely is refused before its first write, and one past its deadline reads no more.
 */
const send = async <T>(op: DbCall['op'], command: Sendable): Promise<T> => {
  const write = WRITES.has(op);
  // Past its deadline a request has answered (a 503 or 504): a read it still makes (a long listing
  // reading on) would only cost capacity, and in Lambda resume in a later invocation.
  if (!write && remainingMs() <= 0)
    throw new ServiceUnavailableError('The request ran out of time; nothing was written, retry', 1);
  if (write) {
    const scope = requestScope();
    if (scope && scope.writesSent === 0 && remainingMs() < MIN_WRITE_MS)
      throw new ServiceUnavailableError('Not enough time left to write; nothing was written, retry', 1);
    noteWriteSent();
  }
  const start = performance.now();
  let output: { ConsumedCapacity?: unknown } | undefined;
  try {
    output = (await documentClient.send(command as never)) as { ConsumedCapacity?: unknown };
    return output as T;
  } catch (error) {
    const e = error as { name?: string; message?: string };
    if (e?.name === 'ValidationException') throw dynamoValidationError(e.message ?? '') ?? error;
    if (isUnavailable(error)) {
      const e = error as { name?: string; code?: string };
      if (write && !NOT_APPLIED.has(e?.name ?? '') && !NOT_APPLIED.has(e?.code ?? ''))
        throw new OutcomeUnknownError();
      throw new ServiceUnavailableError();
    }
    throw error;
  } finally {
    recordCall(
      op,
      start,
      performance.now(),
      output?.ConsumedCapacity,
      countItems(output),
      countWrites(op, command),
      billedWriteUnits(op, command),
    );
  }
};

/** How many items a write call puts, updates or deletes (for metrics); 0 for reads. */
const countWrites = (op: string, command: unknown): number => {
  const input = (
    command as {
      input?: { TransactItems?: { ConditionCheck?: unknown }[]; RequestItems?: Record<string, unknown[]> };
    }
  ).input;
  if (op === 'TransactWriteItems')
    return (input?.TransactItems ?? []).filter((t) => !t.ConditionCheck).length;
  if (op === 'BatchWriteItem')
    return Object.values(input?.RequestItems ?? {}).reduce((n, list) => n + list.length, 0);
  return op === 'PutItem' || op === 'UpdateItem' || op === 'DeleteItem' ? 1 : 0;
};

/**
 * The write units DynamoDB bills a write call (for metrics; DynamoDB Local reports a transaction's
 * at about a fifth): each item put one per KB started of its size, twice inside a transaction; an
 * update, a delete or a condition check one (twice in a transaction), as for an item up to 1 KB
 * (their item's size is not in the request, so a larger item's are undercounted).
 */
const billedWriteUnits = (op: string, command: unknown): number => {
  const input = (
    command as {
      input?: {
        Item?: unknown;
        TransactItems?: { Put?: { Item?: unknown } }[];
        RequestItems?: Record<string, { PutRequest?: { Item?: unknown } }[]>;
      };
    }
  ).input;
  const units = (item: unknown) => Math.max(1, Math.ceil(itemBytes(item) / 1024));
  if (op === 'TransactWriteItems')
    return (input?.TransactItems ?? []).reduce((n, t) => n + 2 * (t.Put ? units(t.Put.Item) : 1), 0);
  if (op === 'BatchWriteItem')
    return Object.values(input?.RequestItems ?? {}).reduce(
      (n, list) => n + list.reduce((m, w) => m + (w.PutRequest ? units(w.PutRequest.Item) : 1), 0),
      0,
    );
  if (op === 'PutItem') return units(input?.Item);
  return op === 'UpdateItem' || op === 'DeleteItem' ? 1 : 0;
};

/** An item's size as DynamoDB counts it, near enough: names and values, numbers about half their digits. */
const itemBytes = (value: unknown): number => {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(value).length / 2) + 1;
  if (value === null || typeof value === 'boolean' || value === undefined) return 1;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + itemBytes(v), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + 1 + itemBytes(v), 3);
  return Object.entries(value as Record<string, unknown>).reduce(
    (n, [k, v]) => n + 1 + Buffer.byteLength(k) + itemBytes(v),
    3,
  );
};

/** How many items a read answered (for metrics). */
const countItems = (output: unknown): number => {
  const o = output as
    | {
        Items?: unknown[];
        ScannedCount?: number;
        Item?: unknown;
        Responses?: Record<string, unknown[]> | unknown[];
      }
    | undefined;
  if (!o) return 0;
  if (Array.isArray(o.Items)) return o.Items.length;
  // a query that answers only a count read its items all the same
  if (typeof o.ScannedCount === 'number') return o.ScannedCount;
  if (o.Item) return 1;
  if (Array.isArray(o.Responses)) return o.Responses.filter((r) => (r as { Item?: unknown })?.Item).length;
  if (o.Responses) return Object.values(o.Responses).reduce((n, list) => n + list.length, 0);
  return 0;
};

const CAPACITY = { ReturnConsumedCapacity: 'TOTAL' as const };

/** Reads one item with strong consistency, or undefined. */
export const getItem = async (key: Key): Promise<Item | undefined> => {
  const out = await send<{ Item?: Item }>(
    'GetItem',
    new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true, ...CAPACITY }),
  );
  return out.Item;
};

const keyOf = (k: Key) => `${k.pk}\u0000${k.sk}`;

/**
 * Reads many items in as few strongly consistent BatchGetItem calls as possible (100 keys a
 * call, all calls in parallel, unprocessed keys retried), optionally only some attributes.
 * Returns a lookup by key.
 */
export const getItems = async (
  keysToGet: readonly Key[],
  projection?: readonly string[],
): Promise<ItemLookup> => {
  const unique = [...new Map(keysToGet.map((k) => [keyOf(k), k])).values()];
  const found = new Map<string, Item>();
  const chunks: Key[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending: Key[] = chunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        if (attempt > 8) throw new ServiceUnavailableError();
        const out = await send<{
          Responses?: Record<string, Item[]>;
          UnprocessedKeys?: Record<string, { Keys?: Key[] }>;
        }>(
          'BatchGetItem',
          new BatchGetCommand({
            RequestItems: {
              [TABLE]: {
                Keys: pending,
                ConsistentRead: true,
                ...(projection
                  ? {
                      ProjectionExpression: ['pk', 'sk', ...projection].map((_, i) => `#p${i}`).join(', '),
                      ExpressionAttributeNames: Object.fromEntries(
                        ['pk', 'sk', ...projection].map((name, i) => [`#p${i}`, name]),
                      ),
                    }
                  : {}),
              },
            },
            ...CAPACITY,
          }),
        );
        for (const item of out.Responses?.[TABLE] ?? []) found.set(keyOf(item as unknown as Key), item);
        pending = (out.UnprocessedKeys?.[TABLE]?.Keys ?? []) as Key[];
      }
    }),
  );
  return lookupOf(found, unique);
};

/** Items read by key: `get` finds one, `requested` tells a key that was read (found or not). */
export interface ItemLookup {
  get(key: Key): Item | undefined;
  requested(key: Key): boolean;
  readonly size: number;
}

const lookupOf = (found: Map<string, Item>, asked: readonly Key[]): ItemLookup => {
  const askedKeys = new Set(asked.map(keyOf));
  return {
    get: (k: Key) => found.get(keyOf(k)),
    requested: (k: Key) => askedKeys.has(keyOf(k)),
    size: found.size,
  };
};

/** One lookup over several reads. */
export const combineLookups = (...lookups: ItemLookup[]): ItemLookup => ({
  get: (k: Key) => lookups.map((l) => l.get(k)).find((i) => i !== undefined),
  requested: (k: Key) => lookups.some((l) => l.requested(k)),
  size: lookups.reduce((n, l) => n + l.size, 0),
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads up to 100 items in one TransactGetItems. Unlike a batch read it never sees a transaction
 * half applied (an item moved by one is either at its old key or its new one); a read that keeps
 * colliding with a transaction is a 409.
 */
export const getItemsAtomically = async (keysToGet: readonly Key[]): Promise<ItemLookup> => {
  for (let attempt = 0; ; attempt++) {
    try {
      const out = await send<{ Responses?: ({ Item?: Item } | undefined)[] }>(
        'TransactGetItems',
        new TransactGetCommand({
          TransactItems: keysToGet.map((k) => ({ Get: { TableName: TABLE, Key: k } })),
          ...CAPACITY,
        }),
      );
      const found = new Map<string, Item>();
      for (const r of out.Responses ?? []) if (r?.Item) found.set(keyOf(r.Item as unknown as Key), r.Item);
      return lookupOf(found, keysToGet);
    } catch (error) {
      if ((error as { name?: string }).name !== 'TransactionCanceledException') throw error;
      if (attempt >= 3)
        throw new ConflictError('A concurrent change to the same items won; retry the request');
      await sleep(20 * 2 ** attempt + Math.random() * 20);
    }
  }
};

export interface QueryPage {
  items: Item[];
  lastKey?: Record<string, unknown>;
}

/**
 * The largest `Limit` one Query call is sent with: DynamoDB refuses 2^31 and above (a `skip` of
 * any size reaches here), and a page stops at 1 MB long before this anyway.
 */
export const MAX_QUERY_LIMIT = 100_000;

type QueryOutput = { Items?: Item[]; Count?: number; LastEvaluatedKey?: Record<string, unknown> };

/** Sends one page of a query built by `queryInput`. */
const sendQuery = (
  input: ReturnType<typeof queryInput>,
  page: { limit?: number; startKey?: Record<string, unknown> } = {},
): Promise<QueryOutput> =>
  send<QueryOutput>(
    'Query',
    new QueryCommand({
      TableName: TABLE,
      ...input,
      ...(page.limit !== undefined ? { Limit: page.limit } : {}),
      ...(page.startKey ? { ExclusiveStartKey: page.startKey } : {}),
      ...CAPACITY,
    }),
  );

/** One page of a strongly consistent query on a partition, optionally limited to a sort-key prefix. */
export const queryPage = async (input: {
  pk: string;
  skPrefix?: string;
  limit?: number;
  startKey?: Record<string, unknown>;
  newestFirst?: boolean;
  projection?: string[];
}): Promise<QueryPage> => {
  const query = queryInput({
    pk: input.pk,
    sk: input.skPrefix ? { prefix: input.skPrefix } : undefined,
    projection: input.projection,
    newestFirst: input.newestFirst,
  });
  const out = await sendQuery(query, {
    limit: input.limit === undefined ? undefined : Math.min(input.limit, MAX_QUERY_LIMIT),
    startKey: input.startKey,
  });
  return { items: out.Items ?? [], lastKey: out.LastEvaluatedKey };
};

/**
 * Items of a partition whose sort key is below or above a bound, nearest first, strongly
 * consistent, with an optional filter; reads pages until `limit` items passed the filter.
 */
export const queryRange = async (input: {
  pk: string;
  below?: string;
  above?: string;
  limit: number;
  filter?: QueryFilter;
  projection?: string[];
}): Promise<Item[]> => {
  const query = queryInput({
    pk: input.pk,
    sk:
      input.below !== undefined
        ? { below: input.below }
        : input.above !== undefined
          ? { above: input.above }
          : undefined,
    filter: input.filter,
    projection: input.projection,
    newestFirst: input.below !== undefined,
  });
  const limit = Math.min(1000, input.filter ? Math.max(input.limit * 2, 50) : input.limit);
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await sendQuery(query, { limit, startKey });
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey && items.length < input.limit);
  return items.slice(0, input.limit);
};

/**
 * Items of a partition whose sort key lies between `from` and `to` (both inclusive, either may be
 * absent), in sort-key order, strongly consistent, following pages until `limit` items passed the
 * optional filter (all items without a limit). `projection` names top-level attributes. Answers
 * the items and, when it stopped early, the key to continue from.
 */
export const queryBetween = async (input: {
  pk: string;
  from?: string;
  to?: string;
  limit?: number;
  startKey?: Record<string, unknown>;
  filter?: QueryFilter;
  projection?: readonly string[];
  /** Epoch ms after which no further page is asked for: the answer then has a `lastKey`. */
  until?: number;
}): Promise<QueryPage> => {
  const query = queryInput({
    pk: input.pk,
    sk: { from: input.from, to: input.to },
    filter: input.filter,
    projection: input.projection,
  });
  const items: Item[] = [];
  let startKey = input.startKey;
  do {
    const remaining = input.limit === undefined ? undefined : input.limit - items.length;
    const out = await sendQuery(query, {
      // The limit counts items read before the filter: with a filter, more pages follow if it dropped some.
      limit: remaining !== undefined ? Math.max(1, Math.min(remaining, MAX_QUERY_LIMIT)) : undefined,
      startKey,
    });
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (
    startKey &&
    (input.limit === undefined || items.length < input.limit) &&
    (input.until === undefined || Date.now() < input.until)
  );
  return { items, lastKey: startKey };
};

/**
 * How many items of a partition have a sort key from `from` to `to` (both inclusive; strongly
 * consistent; DynamoDB reads them all the same, 1 MB a page, but answers only the count).
 */
export const countBetween = async (input: { pk: string; from: string; to: string }): Promise<number> => {
  const query = queryInput({ pk: input.pk, sk: { from: input.from, to: input.to }, countOnly: true });
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await sendQuery(query, { startKey });
    total += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return total;
};

/** Every item of a partition (or of a sort-key prefix in it), following pages. */
export const queryAll = async (input: {
  pk: string;
  skPrefix?: string;
  projection?: string[];
}): Promise<Item[]> => {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({ ...input, startKey });
    items.push(...page.items);
    startKey = page.lastKey;
  } while (startKey);
  return items;
};

/** Writes one item unconditionally. */
export const putItem = async (item: Item): Promise<void> => {
  await send('PutItem', new PutCommand({ TableName: TABLE, Item: item, ...CAPACITY }));
};

/** Deletes one item; with `onMissing`, an item that is not there becomes that domain error. */
export const deleteItem = async (key: Key, onMissing?: () => HttpError): Promise<void> => {
  try {
    await send(
      'DeleteItem',
      new DeleteCommand({
        TableName: TABLE,
        Key: key,
        ...(onMissing ? { ConditionExpression: EXISTS } : {}),
        ...CAPACITY,
      }),
    );
  } catch (error) {
    if (onMissing && (error as { name?: string }).name === 'ConditionalCheckFailedException')
      throw onMissing();
    throw error;
  }
};

/**
 * Deletes many items with BatchWriteItem (25 a call, a few calls in parallel, unprocessed
 * items retried). Not atomic: callers make the owner invisible first and delete it last, so a
 * retry after a fault finishes the work.
 */
export const deleteItems = async (keysToDelete: readonly Key[], parallel = 4): Promise<void> =>
  writeItems(
    keysToDelete.map((k) => ({ delete: { pk: k.pk, sk: k.sk } })),
    parallel,
  );

/**
 * Puts and deletes many items with BatchWriteItem: 25 a call, `parallel` calls at a time,
 * unprocessed items retried, then a 503. Unconditional and not atomic (1× write capacity
 * instead of a transaction's 2×): callers journal what to undo.
 */
export const writeItems = async (
  writes: readonly ({ put: Item } | { delete: Key })[],
  parallel = 8,
): Promise<void> => {
  const chunks: (typeof writes)[] = [];
  for (let i = 0; i < writes.length; i += 25) chunks.push(writes.slice(i, i + 25));
  // Ours, not p-map: every worker sends its first request in this tick, as the journaled writes'
  // fault tests expect, and what is retried is the part DynamoDB left unprocessed, not a failed call.
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      let pending: unknown[] = chunk.map((w) =>
        'put' in w
          ? { PutRequest: { Item: w.put } }
          : { DeleteRequest: { Key: { pk: w.delete.pk, sk: w.delete.sk } } },
      );
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 8) throw new ServiceUnavailableError();
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const out = await send<{ UnprocessedItems?: Record<string, unknown[]> }>(
          'BatchWriteItem',
          new BatchWriteCommand({ RequestItems: { [TABLE]: pending as never }, ...CAPACITY }),
        );
        pending = out.UnprocessedItems?.[TABLE] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
};

/**
 * Applies an update and returns the new item (nothing with `NONE`). A failed condition becomes `onConditionFailed()`
 * (a domain error); DynamoDB's exception never leaves this module.
 */
export const updateItem = async (
  spec: UpdateSpec,
  onConditionFailed: () => HttpError,
  returnValues: 'ALL_NEW' | 'NONE' = 'ALL_NEW',
): Promise<Item> => {
  try {
    const out = await send<{ Attributes?: Item }>(
      'UpdateItem',
      new UpdateCommand({
        TableName: TABLE,
        Key: spec.key,
        UpdateExpression: spec.update,
        ConditionExpression: spec.condition,
        ExpressionAttributeNames: spec.names,
        ExpressionAttributeValues: spec.values,
        ReturnValues: returnValues,
        ...CAPACITY,
      }),
    );
    return out.Attributes ?? {};
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') throw onConditionFailed();
    throw error;
  }
};

/** Turns an operation into the document client's transact item. Pure. */
export const toTransactItem = (op: TransactOp): TransactItem => {
  if ('put' in op)
    return {
      Put: {
        TableName: TABLE,
        Item: op.put,
        ConditionExpression: op.condition,
        ExpressionAttributeNames: op.names,
        ExpressionAttributeValues: op.values,
      },
    };
  if ('update' in op)
    return {
      Update: {
        TableName: TABLE,
        Key: op.update.key,
        UpdateExpression: op.update.update,
        ConditionExpression: op.update.condition,
        ExpressionAttributeNames: op.update.names,
        ExpressionAttributeValues: op.update.values,
      },
    };
  if ('delete' in op)
    return {
      Delete: {
        TableName: TABLE,
        Key: op.delete,
        ConditionExpression: op.condition,
        ExpressionAttributeNames: op.names,
        ExpressionAttributeValues: op.values,
      },
    };
  return {
    ConditionCheck: {
      TableName: TABLE,
      Key: op.check,
      ConditionExpression: op.condition,
      ExpressionAttributeNames: op.names,
      ExpressionAttributeValues: op.values,
    },
  };
};

/**
 * Applies one operation as a single-item call (no transaction: concurrent writes to the same
 * item never conflict, DynamoDB applies them one after the other) and answers the item after an
 * update (ALL_NEW). A failed condition becomes `onConditionFailed()`.
 */
export const applyOne = async (
  op: TransactOp,
  onConditionFailed: () => HttpError,
): Promise<Item | undefined> => {
  const item = toTransactItem(op);
  let written: Item | undefined;
  try {
    if (item.Put) await send('PutItem', new PutCommand({ ...item.Put, ...CAPACITY }));
    else if (item.Update)
      written = (
        await send<{ Attributes?: Item }>(
          'UpdateItem',
          new UpdateCommand({ ...item.Update, ReturnValues: 'ALL_NEW', ...CAPACITY }),
        )
      ).Attributes;
    else if (item.Delete) await send('DeleteItem', new DeleteCommand({ ...item.Delete, ...CAPACITY }));
    else await transact([op], onConditionFailed);
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') throw onConditionFailed();
    throw error;
  }
  // A record written alone moves its table's data version right after, while the request renders
  // its answer (one round trip saved against a transaction, which answers no item), and before
  // it answers (`beforeAnswer`).
  const changes = versionChanges([op]);
  if (changes.size) await beforeAnswer(moveVersionsAfter(changes, indexMovesOf([op])));
  return written;
};

/**
 * Moves data versions after a write that could not carry them: retried on any fault; should it
 * still fail, the write stands (it was made) and the failure is logged at ERROR: kept listing
 * orders of the table may then miss that write until the next one or their expiry (an hour).
 */
const moveVersionsAfter = async (
  changes: ReadonlyMap<string, ReadonlySet<string>>,
  indexes: IndexMoves,
): Promise<void> => {
  for (let attempt = 0; ; attempt++) {
    try {
      await applyVersionOps(
        [...changes].map(([tableId, counters]) => versionOpOf(tableId, counters, indexes)),
      );
      return;
    } catch (error) {
      if (attempt >= 3) {
        logger.error('moving a data version after a write failed', {
          tableIds: [...changes.keys()],
          error: String(error),
        });
        return;
      }
      await sleep(25 * 2 ** attempt);
    }
  }
};

/**
 * Moves the data version of tables after a write that was not one transaction (a journaled
 * write's undo, a rename rewriting cells one by one): called after its last record write.
 */
export const bumpDataVersions = (tableIds: Iterable<string>): Promise<void> =>
  applyVersionOps([...new Set(tableIds)].map((tableId) => dataVersionOp(tableId)));

/** Applies version increments as single-item updates (unconditional, in parallel). */
const applyVersionOps = async (ops: readonly TransactOp[]): Promise<void> => {
  await Promise.all(
    ops.map((op) =>
      'update' in op ? updateItem(op.update, () => new ConflictError('unconditional'), 'NONE') : undefined,
    ),
  );
};

/**
 * What operations do that a data-version increment carries, per table: the view indexes they keep,
 * their entry counts' moves, and the records they delete (the deletion note).
 */
interface IndexMoves {
  maintained: Map<string, string[]>;
  counts: Map<string, Map<string, number>>;
  deleted: Map<string, string[]>;
}

/** The moves of some operations (`data-versions.ts` `maintainedBy`, `entryCountsBy`, `deletionsBy`). */
export const indexMovesOf = (ops: readonly TransactOp[]): IndexMoves => ({
  maintained: maintainedBy(ops),
  counts: entryCountsBy(ops),
  deleted: deletionsBy(ops),
});

/**
 * The stamps of a deletion note: the request's, and the time of the write also outside a request
 * (a note is new with every write, so its time is never an earlier write's).
 */
const noteStamps = (): { tx?: string; by?: string; at: string } => ({
  at: new Date().toISOString(),
  ...writeStamps(),
});

/** A table's version increment for some counters, with the view-index moves and deletions of its writes. */
export const versionOpOf = (
  tableId: string,
  counters: Iterable<string> | undefined,
  indexes: IndexMoves,
): TransactOp => {
  const deleted = indexes.deleted.get(tableId);
  return dataVersionOp(
    tableId,
    counters,
    undefined,
    indexes.maintained.get(tableId),
    indexes.counts.get(tableId),
    deleted?.length ? { recordIds: deleted, ...noteStamps() } : undefined,
  );
};

/** Largest number of operations DynamoDB accepts in one transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * Writes up to 100 operations atomically. When a condition fails, `onConditionFailed(index)`
 * names the domain error for the first failed operation; a conflict with another transaction
 * is retried a few times and then answered 409.
 */
export const transact = async (
  ops: readonly TransactOp[],
  onConditionFailed: (index: number) => HttpError,
): Promise<void> => {
  if (ops.length === 0) return;
  if (ops.length > MAX_TRANSACTION_ITEMS) throw new Error(`transaction of ${ops.length} operations`);
  // The data version of every table whose records change, in the same transaction; should there
  // be no room (a transaction of 100 operations), right after it.
  const tables = [...tablesToBump(ops)];
  const indexes = indexMovesOf(ops);
  const inside = tables.slice(0, MAX_TRANSACTION_ITEMS - ops.length);
  const items = [
    ...withSchemaDeletionNotes(ops, noteStamps()),
    ...inside.map(([tableId, counters]) => versionOpOf(tableId, counters, indexes)),
  ].map(toTransactItem);
  for (let attempt = 0; ; attempt++) {
    try {
      await send('TransactWriteItems', new TransactWriteCommand({ TransactItems: items, ...CAPACITY }));
    } catch (error) {
      const e = error as { name?: string; CancellationReasons?: { Code?: string; Message?: string }[] };
      if (e.name !== 'TransactionCanceledException') throw error;
      const reasons = e.CancellationReasons ?? [];
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw onConditionFailed(failed);
      // An operation DynamoDB refused as invalid (an update making an item over 400 KB): not a race.
      const invalid = reasons.find((r) => r.Code === 'ValidationError');
      if (invalid) throw dynamoValidationError(invalid.Message ?? '') ?? error;
      const busy = reasons.some(
        (r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded',
      );
      if (busy) throw new ServiceUnavailableError();
      if (reasons.some((r) => r.Code === 'TransactionConflict') && attempt < 3) {
        await sleep(20 * 2 ** attempt + Math.random() * 20);
        continue;
      }
      throw new ConflictError('A concurrent change to the same items won; retry the request');
    }
    // Written: the versions that found no room move now, while the request goes on, before it
    // answers (never failing the written transaction), as after a single-record write.
    if (tables.length > inside.length)
      await beforeAnswer(moveVersionsAfter(new Map(tables.slice(inside.length)), indexes));
    return;
  }
};
