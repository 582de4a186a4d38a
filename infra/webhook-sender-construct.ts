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
import { LAMBDA_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stage-config.ts';
import { consumeStatement, workQueue } from './work-queue.ts';

export interface WebhookSenderProps {
  config: StageConfig;
  table: ITable;
  functions: ApiFunctions;
}

/** The sender's timeout: a run stops starting attempts 30 s before it and wakes the base again. */
export const WEBHOOK_SENDER_TIMEOUT = Duration.minutes(5);
/** Receives before a failing wake-up goes to the dead-letter queue (the changes stay in the log). */
export const WEBHOOK_MAX_RECEIVES = 5;

/**
 * Outbound webhooks (data-flow.md 4): a queue of wake-ups (`{baseId}`, with a dead-letter queue),
 * the sender Lambda that consumes it (`functions/workers/webhook-sender.ts`, not a route), and a
 * schedule that makes it sweep due retries every minute. Why this design: the change log already
 * orders every base's changes and keeps them 30 days, so the queue carries no events, only
 * "this base has something to deliver"; each webhook's progress is its cursor in the log, so a
 * lost or repeated message loses or repeats nothing, and one webhook's retries never hold up
 * another's deliveries (each runs apart, within its own claim). The stream processor and the
 * routes that redeliver or enable a webhook get `sqs:SendMessage` on the queue.
 */
export class WebhookSender extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;
  readonly sender: NodejsFunction;

  constructor(scope: Construct, id: string, props: WebhookSenderProps) {
    super(scope, id);
    const { config, table, functions } = props;
    ({ queue: this.queue, deadLetters: this.deadLetters } = workQueue(this, {
      workerTimeout: WEBHOOK_SENDER_TIMEOUT,
      maxReceives: WEBHOOK_MAX_RECEIVES,
    }));
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${config.stage}: the webhook sender`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...functions.tableStatements('write').filter((s) => s.sid !== 'SigningKeys'),
            consumeStatement('ConsumeWebhooks', this.queue),
          ],
        }),
      },
    });
    this.sender = functions.lambda(this, 'Sender', {
      entry: 'workers/webhook-sender.ts',
      description: 'Webhook sender: delivers the change log to webhooks, signed, with retries',
      timeout: WEBHOOK_SENDER_TIMEOUT,
      role,
      bundling: LAMBDA_BUNDLING,
      environment: { TABLE_NAME: table.tableName, WEBHOOK_QUEUE_URL: this.queue.queueUrl },
    });
    new lambda.EventSourceMapping(this, 'FromQueue', {
      target: this.sender,
      eventSourceArn: this.queue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
    });
    new events.Rule(this, 'Retries', {
      description: 'Every minute: deliver the webhook retries that are due',
      schedule: events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(this.sender)],
    });
    functions.webhookQueue = this.queue;
  }
}
