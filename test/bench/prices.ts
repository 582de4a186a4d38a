/**
 * What AWS charges for what a request uses (issue 49): on-demand list prices, us-east-1, without
 * free tiers, as AWS's pricing pages gave them when this was written (the date below; DynamoDB's
 * on-demand prices as cut in November 2024). Pure: the bench measures the usage, this prices it.
 */

export const PRICES = {
  region: 'us-east-1',
  asOf: '2026-11',
  /** DynamoDB on-demand, per request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** DynamoDB standard table class, per GB-month stored. */
  dynamoGbMonth: 0.25,
  /** Lambda on Arm (every function of the stack is arm64), per GB-second and per invocation. */
  lambdaGbSecond: 0.0000133334,
  lambdaInvocation: 0.2 / 1e6,
  /** API Gateway HTTP API, per request (each 512 KB a request). */
  httpRequest: 1 / 1e6,
  /** API Gateway WebSocket API, per message (each 32 KB a message), in or out, and per connection-minute. */
  webSocketMessage: 1 / 1e6,
  webSocketMinute: 0.25 / 1e6,
  /** SQS standard queue, per request (each 64 KB a request). */
  sqsRequest: 0.4 / 1e6,
  /** S3 Standard, per PUT and per GET. */
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  /** Data transfer out to the internet, per GB (past the first 100 GB a month). */
  transferOutGb: 0.09,
} as const;

/** One Lambda invocation's share: its billed time (rounded up to the millisecond) at its memory. */
export interface LambdaUse {
  ms: number;
  memoryMb: number;
  invocations?: number;
}

/** What one request (of a kind) uses, as the bench measured it. */
export interface Usage {
  httpRequests?: number;
  lambda?: readonly LambdaUse[];
  readUnits?: number;
  writeUnits?: number;
  webSocketMessages?: number;
  sqsRequests?: number;
  s3Puts?: number;
  s3Gets?: number;
  bytesOut?: number;
}

export interface Cost {
  dynamo: number;
  lambda: number;
  gateway: number;
  other: number;
  total: number;
}

const GB = 1024 ** 3;

/** The dollars one use costs, by service. */
export const costOf = (u: Usage): Cost => {
  const dynamo = (u.readUnits ?? 0) * PRICES.dynamoReadUnit + (u.writeUnits ?? 0) * PRICES.dynamoWriteUnit;
  const lambda = (u.lambda ?? []).reduce(
    (sum, l) =>
      sum +
      (Math.ceil(l.ms) / 1000) * (l.memoryMb / 1024) * PRICES.lambdaGbSecond +
      (l.invocations ?? 1) * PRICES.lambdaInvocation,
    0,
  );
  const gateway =
    (u.httpRequests ?? 0) * PRICES.httpRequest + (u.webSocketMessages ?? 0) * PRICES.webSocketMessage;
  const other =
    (u.sqsRequests ?? 0) * PRICES.sqsRequest +
    (u.s3Puts ?? 0) * PRICES.s3Put +
    (u.s3Gets ?? 0) * PRICES.s3Get +
    ((u.bytesOut ?? 0) / GB) * PRICES.transferOutGb;
  return { dynamo, lambda, gateway, other, total: dynamo + lambda + gateway + other };
};

/** Two uses as one (a request and the capture of what it wrote). */
export const plus = (a: Usage, b: Usage): Usage => ({
  httpRequests: (a.httpRequests ?? 0) + (b.httpRequests ?? 0),
  lambda: [...(a.lambda ?? []), ...(b.lambda ?? [])],
  readUnits: (a.readUnits ?? 0) + (b.readUnits ?? 0),
  writeUnits: (a.writeUnits ?? 0) + (b.writeUnits ?? 0),
  webSocketMessages: (a.webSocketMessages ?? 0) + (b.webSocketMessages ?? 0),
  sqsRequests: (a.sqsRequests ?? 0) + (b.sqsRequests ?? 0),
  s3Puts: (a.s3Puts ?? 0) + (b.s3Puts ?? 0),
  s3Gets: (a.s3Gets ?? 0) + (b.s3Gets ?? 0),
  bytesOut: (a.bytesOut ?? 0) + (b.bytesOut ?? 0),
});

/** A use `n` times over (a per-entry capture for a request that wrote `n` entries). */
export const times = (u: Usage, n: number): Usage => ({
  httpRequests: (u.httpRequests ?? 0) * n,
  lambda: (u.lambda ?? []).map((l) => ({ ...l, ms: l.ms * n, invocations: (l.invocations ?? 1) * n })),
  readUnits: (u.readUnits ?? 0) * n,
  writeUnits: (u.writeUnits ?? 0) * n,
  webSocketMessages: (u.webSocketMessages ?? 0) * n,
  sqsRequests: (u.sqsRequests ?? 0) * n,
  s3Puts: (u.s3Puts ?? 0) * n,
  s3Gets: (u.s3Gets ?? 0) * n,
  bytesOut: (u.bytesOut ?? 0) * n,
});

/** Dollars as the tables show them: cents from a dollar up, else three significant digits, never in exponent form. */
export const dollars = (x: number): string =>
  x === 0 ? '$0' : `$${x.toFixed(Math.min(12, Math.max(2, 2 - Math.floor(Math.log10(Math.abs(x))))))}`;
