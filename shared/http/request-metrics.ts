import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '#shared/config.ts';
import type { callSummary } from '#shared/db/metrics.ts';

/** The CloudWatch namespace of the API's own metrics (dimensions: service, stage, route). */
export const METRICS_NAMESPACE = 'WorkspaceApi';

/**
 * The request metrics of every route's Lambda, written as CloudWatch embedded metric format (EMF)
 * log lines, which CloudWatch turns into metrics without an API call: one line per request.
 */
export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: 'workspace-api',
  defaultDimensions: { stage: config.stage },
});

/** What one request did, as the request log line tells it. */
export interface RequestFacts {
  /** `<handler>`: the route's Lambda, one metric series per route. */
  route: string;
  status: number | undefined;
  durationMs: number | undefined;
  db: ReturnType<typeof callSummary>;
}

/** Adds one request's metrics to `into` (not yet written). */
export const addRequestMetrics = (into: Metrics, facts: RequestFacts): void => {
  const status = facts.status ?? 500;
  into.addDimension('route', facts.route);
  into.addMetric('Requests', MetricUnit.Count, 1);
  into.addMetric('ClientErrors', MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  into.addMetric('ServerErrors', MetricUnit.Count, status >= 500 ? 1 : 0);
  into.addMetric('DynamoDBCalls', MetricUnit.Count, facts.db.calls);
  into.addMetric('DynamoDBRoundTrips', MetricUnit.Count, facts.db.sequentialRoundTrips);
  into.addMetric('DynamoDBReadUnits', MetricUnit.Count, facts.db.readUnits);
  into.addMetric('DynamoDBWriteUnits', MetricUnit.Count, facts.db.writeUnits);
  if (facts.durationMs !== undefined) into.addMetric('Duration', MetricUnit.Milliseconds, facts.durationMs);
};

/**
 * Writes one request's metrics, in Lambda only (where CloudWatch reads the log): the local server
 * and the tests would only print them. A failure here is logged by Powertools, never answered.
 */
export const publishRequestMetrics = (facts: RequestFacts): void => {
  if (!process.env.AWS_LAMBDA_FUNCTION_NAME) return;
  try {
    addRequestMetrics(metrics, facts);
    metrics.publishStoredMetrics();
  } catch {
    metrics.clearMetrics();
    metrics.clearDimensions();
  }
};
