import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ApiFunctions } from './api-construct.ts';
import { LAMBDA_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stage-config.ts';

export interface StreamProcessorProps {
  config: StageConfig;
  table: ITable;
  functions: ApiFunctions;
}

/** The knobs of the stream's event source mapping (data-flow.md 1), checked by the stack test. */
export const STREAM_MAPPING = {
  batchSize: 500,
  maxBatchingWindow: Duration.seconds(1),
  retryAttempts: 10,
  maxRecordAge: Duration.hours(24),
  bisectBatchOnError: true,
  reportBatchItemFailures: true,
  parallelizationFactor: 1,
} as const;

/**
 * The change log's writer: the table's stream → a Lambda (`functions/workers/stream-processor.ts`)
 * that captures each batch into the log, with partial-batch failure reporting, bisect on error,
 * bounded retries and an on-failure queue that keeps what could not be captured for 14 days.
 * One batch per shard at a time (parallelization 1): a shard's records reach the log in order.
 */
export class StreamProcessor extends Construct {
  readonly processor: NodejsFunction;
  readonly failures: sqs.Queue;

  constructor(scope: Construct, id: string, props: StreamProcessorProps) {
    super(scope, id);
    const { config, table, functions } = props;
    if (!Number.isInteger(config.changeLogDays) || config.changeLogDays < 1 || config.changeLogDays > 365)
      throw new Error(`changeLogDays of stage ${config.stage} must be 1..365 days`);
    const streamArn = table.tableStreamArn;
    if (!streamArn) throw new Error('the table has no stream');
    this.failures = new sqs.Queue(this, 'Failures', { retentionPeriod: Duration.days(14) });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${config.stage}: the stream processor`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...functions.tableStatements('write').filter((s) => s.sid !== 'SigningKeys'),
            new iam.PolicyStatement({
              sid: 'ReadStream',
              actions: [
                'dynamodb:DescribeStream',
                'dynamodb:GetRecords',
                'dynamodb:GetShardIterator',
                'dynamodb:ListStreams',
              ],
              resources: [streamArn],
            }),
            // the objects of uploads signed and never confirmed go when their item expires
            new iam.PolicyStatement({
              sid: 'ReleaseAbandonedUploads',
              actions: ['s3:DeleteObject'],
              resources: [functions.fileObjectsArn()],
            }),
            // live subscribers and realtime sockets get what was just written
            ...functions.websocketApis.map((w) => w.manage),
            // a base's webhooks are woken to deliver what was just written
            new iam.PolicyStatement({
              sid: 'WakeWebhooks',
              actions: ['sqs:SendMessage'],
              resources: [functions.requireWebhookQueue().queueArn],
            }),
            new iam.PolicyStatement({
              sid: 'KeepFailures',
              actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes'],
              resources: [this.failures.queueArn],
            }),
          ],
        }),
      },
    });
    this.processor = functions.lambda(this, 'Processor', {
      entry: 'workers/stream-processor.ts',
      description: 'Stream processor: writes the change log from the table stream',
      timeout: Duration.minutes(1),
      role,
      bundling: LAMBDA_BUNDLING,
      environment: {
        TABLE_NAME: table.tableName,
        CHANGE_LOG_DAYS: String(config.changeLogDays),
        WEBHOOK_QUEUE_URL: functions.requireWebhookQueue().queueUrl,
        ...Object.fromEntries(functions.websocketApis.map((w) => [w.callbackVariable, w.callbackUrl])),
      },
    });
    new lambda.EventSourceMapping(this, 'FromStream', {
      target: this.processor,
      eventSourceArn: streamArn,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      onFailure: new SqsOnFailure(this.failures),
      ...STREAM_MAPPING,
    });
  }
}

/** The on-failure destination of the mapping: the queue (the role above holds the grant). */
class SqsOnFailure implements lambda.IEventSourceDlq {
  constructor(private readonly queue: sqs.IQueue) {}
  bind(): lambda.DlqDestinationConfig {
    return { destination: this.queue.queueArn };
  }
}
