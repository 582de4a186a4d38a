/**
 * Request metrics (`shared/http/request-metrics.ts`): one EMF line per request in Lambda, with the
 * route as a dimension and the request's status class, duration and DynamoDB calls and capacity.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addRequestMetrics, METRICS_NAMESPACE, publishRequestMetrics } from '#shared/http/request-metrics.ts';
import { call } from '#test/support/invoke.ts';

const db = { calls: 3, sequentialRoundTrips: 2, readUnits: 1.5, writeUnits: 4, ops: [] };

type Emf = {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
} & Record<string, unknown>;

/** The EMF lines a block wrote to stdout. */
const emfLines = async (block: () => unknown): Promise<Emf[]> => {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await block();
  } finally {
    spy.mockRestore();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Emf);
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('request metrics', () => {
  it('are one EMF document per request, per route, with status class and DynamoDB figures', () => {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'workspace-api' });
    addRequestMetrics(metrics, { route: 'get-record', status: 404, durationMs: 12.5, db });
    const emf = metrics.serializeMetrics() as unknown as Emf;
    const [directive] = emf._aws.CloudWatchMetrics;
    expect(directive?.Namespace).toBe('WorkspaceApi');
    expect(directive?.Dimensions[0]).toEqual(expect.arrayContaining(['service', 'route']));
    expect(emf).toMatchObject({
      route: 'get-record',
      Requests: 1,
      ClientErrors: 1,
      ServerErrors: 0,
      DynamoDBCalls: 3,
      DynamoDBRoundTrips: 2,
      DynamoDBReadUnits: 1.5,
      DynamoDBWriteUnits: 4,
      Duration: 12.5,
    });
    expect(directive?.Metrics.find((m) => m.Name === 'Duration')?.Unit).toBe('Milliseconds');
  });

  it('count an answer without a status as a server error', () => {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'workspace-api' });
    addRequestMetrics(metrics, { route: 'get-record', status: undefined, durationMs: undefined, db });
    expect(metrics.serializeMetrics()).toMatchObject({ ServerErrors: 1, ClientErrors: 0 });
  });

  it('are written only in Lambda (the local server and tests would only print them)', async () => {
    const facts = { route: 'get-space', status: 200, durationMs: 3, db };
    expect(await emfLines(() => publishRequestMetrics(facts))).toEqual([]);
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'workspace-api-dev-get-space');
    const [line, ...more] = await emfLines(() => publishRequestMetrics(facts));
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      route: 'get-space',
      Requests: 1,
      ServerErrors: 0,
      stage: expect.any(String),
    });
  });

  it('are written by every route handler, refusals included', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'workspace-api-dev-get-space');
    let status = 0;
    const lines = await emfLines(async () => {
      status = (await call('get-space', { params: { spaceId: 'spc0000000000000000' } })).status;
    });
    expect(status).toBe(401);
    expect(lines).toEqual([expect.objectContaining({ route: 'get-space', Requests: 1, ClientErrors: 1 })]);
  });
});
