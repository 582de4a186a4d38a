import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ApiFunctions } from './api-construct.ts';
import { WORKER_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stage-config.ts';
import { consumeStatement, workQueue } from './work-queue.ts';

export interface PurgeWorkerProps {
  config: StageConfig;
  table: ITable;
  functions: ApiFunctions;
}

/** The worker's timeout: Lambda's maximum; it stops a minute before and sends the rest again. */
export const PURGE_WORKER_TIMEOUT = Duration.minutes(15);
/** Receives before a failing job goes to the dead-letter queue (its job item stays for the sweep). */
export const PURGE_MAX_RECEIVES = 5;

/**
 * The background half of a permanent delete: a queue (with a dead-letter queue), the worker
 * Lambda that consumes it one job at a time (`functions/workers/purge-worker.ts`, not a route),
 * and an hourly schedule that makes the worker sweep unfinished jobs whose message was lost. The
 * routes that purge get `sqs:SendMessage` on the queue (ApiFunctions.purgeRole).
 */
export class PurgeWorker extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;
  readonly worker: NodejsFunction;

  constructor(scope: Construct, id: string, props: PurgeWorkerProps) {
    super(scope, id);
    const { config, table, functions } = props;
    ({ queue: this.queue, deadLetters: this.deadLetters } = workQueue(this, {
      workerTimeout: PURGE_WORKER_TIMEOUT,
      maxReceives: PURGE_MAX_RECEIVES,
    }));
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${config.stage}: the purge worker`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...functions.tableStatements('write').filter((s) => s.sid !== 'SigningKeys'),
            consumeStatement('ConsumePurges', this.queue),
            // thumbnails of uploaded images are written beside them; released files are deleted
            new iam.PolicyStatement({
              sid: 'WriteFiles',
              actions: ['s3:PutObject', 's3:DeleteObject'],
              resources: [functions.fileObjectsArn()],
            }),
          ],
        }),
      },
    });
    this.worker = functions.lambda(this, 'Worker', {
      entry: 'workers/purge-worker.ts',
      description: 'Purge worker: empties what permanent deletes left, makes thumbnails, releases files',
      timeout: PURGE_WORKER_TIMEOUT,
      role,
      bundling: WORKER_BUNDLING,
      // decoding a large image takes memory: sharp keeps the decoded pixels of one image
      memorySize: 2048,
      // No signing keys, no mail: those variables are declared empty (lambdaEnvironment).
      environment: {
        TABLE_NAME: table.tableName,
        PURGE_QUEUE_URL: this.queue.queueUrl,
        PURGE_DELAY_SECONDS: '0',
        // an import waits while the stream processor is behind its writes, told by the change log
        IMPORT_PACING: 'log',
      },
    });
    // A plain mapping: the role above already holds the consume grant (no extra policy resource).
    new lambda.EventSourceMapping(this, 'FromQueue', {
      target: this.worker,
      eventSourceArn: this.queue.queueArn,
      batchSize: 1,
      reportBatchItemFailures: true,
    });
    new events.Rule(this, 'Sweep', {
      description: 'Hourly: send unfinished purge jobs again',
      schedule: events.Schedule.rate(Duration.hours(1)),
      targets: [new targets.LambdaFunction(this.worker)],
    });
    functions.purgeQueue = this.queue;
  }
}
