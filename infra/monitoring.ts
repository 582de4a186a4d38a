import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { StageConfig } from './stage-config.ts';

export interface MonitoringProps {
  config: StageConfig;
  api: HttpApi;
  stage: HttpStage;
  table: ITable;
  /** The stream processor: its iterator age is how far the change capture is behind. */
  processor: IFunction;
}

/** The fields of an access log line (API Gateway's `$context` variables), one JSON object per request. */
export const ACCESS_LOG_FORMAT = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  time: '$context.requestTime',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  userAgent: '$context.identity.userAgent',
} as const;

const FIVE_MINUTES = Duration.minutes(5);

/**
 * What an operator watches, per stage: the stage's access log (one JSON line per request, in a
 * log group of its own), three alarms (5xx rate, p99 latency, DynamoDB throttling) with the
 * stage's thresholds, and a dashboard of traffic, errors, latency, DynamoDB capacity and the
 * alarms. The alarms have no action: subscribe them to your paging system.
 */
export class Monitoring extends Construct {
  readonly accessLogs: logs.LogGroup;
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { config, api, stage, table, processor } = props;

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy as RemovalPolicy,
    });
    const cfnStage = stage.node.defaultChild as apigwv2.CfnStage;
    cfnStage.accessLogSettings = {
      destinationArn: this.accessLogs.logGroupArn,
      format: JSON.stringify(ACCESS_LOG_FORMAT),
    };

    const requests = api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
    const serverErrors = api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' });
    const clientErrors = api.metricClientError({ period: FIVE_MINUTES, statistic: 'Sum' });
    const p99 = api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' });
    const p50 = api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50' });
    const serverErrorRate = new cloudwatch.MathExpression({
      expression: '100 * errors / MAX([requests, 1])',
      usingMetrics: { errors: serverErrors, requests },
      label: '5xx rate (%)',
      period: FIVE_MINUTES,
    });
    // the operations the service calls (an alarm's math may hold at most 10 metrics)
    const throttles = table.metricThrottledRequestsForOperations({
      period: FIVE_MINUTES,
      operations: [
        Operation.GET_ITEM,
        Operation.PUT_ITEM,
        Operation.UPDATE_ITEM,
        Operation.DELETE_ITEM,
        Operation.QUERY,
        Operation.BATCH_GET_ITEM,
        Operation.BATCH_WRITE_ITEM,
        Operation.TRANSACT_WRITE_ITEMS,
        Operation.TRANSACT_GET_ITEMS,
      ],
    });

    // how old the newest stream record a processor batch held was when it was handed over: webhooks,
    // live and the socket are that far behind the writes
    const captureLag = processor.metric('IteratorAge', { period: FIVE_MINUTES, statistic: 'Maximum' });

    const alarm = (name: string, metric: cloudwatch.IMetric, threshold: number, description: string) =>
      new cloudwatch.Alarm(this, name, {
        alarmDescription: `Workspace API ${config.stage}: ${description}`,
        metric,
        threshold,
        evaluationPeriods: config.alarms.evaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    this.alarms = [
      alarm(
        'ServerErrorRate',
        serverErrorRate,
        config.alarms.serverErrorPercent,
        `more than ${config.alarms.serverErrorPercent}% of requests answered 5xx`,
      ),
      alarm(
        'LatencyP99',
        p99,
        config.alarms.p99LatencyMs,
        `p99 latency above ${config.alarms.p99LatencyMs} ms`,
      ),
      alarm('DynamoDbThrottles', throttles, 0, 'DynamoDB throttled requests'),
      alarm(
        'CaptureLag',
        captureLag,
        config.alarms.captureLagMs,
        `the change capture more than ${config.alarms.captureLagMs / 1000} s behind the writes (the stream's iterator age)`,
      ),
    ];

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `workspace-api-${config.stage}`,
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'Requests', left: [requests] }),
          new cloudwatch.GraphWidget({
            title: 'Errors',
            left: [serverErrors, clientErrors],
            right: [serverErrorRate],
          }),
          new cloudwatch.GraphWidget({ title: 'Latency (ms)', left: [p50, p99] }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'DynamoDB capacity',
            left: [
              table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES }),
              table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES }),
            ],
          }),
          new cloudwatch.GraphWidget({ title: 'DynamoDB throttled requests', left: [throttles] }),
          new cloudwatch.GraphWidget({ title: 'Change capture lag (ms)', left: [captureLag] }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms }),
        ],
      ],
    });
  }
}
