import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A worker's queue with its dead-letter queue (kept 14 days), as the purge worker and the webhook
 * sender have them: a message in work stays hidden a minute longer than a run of the worker, so it
 * is not handed to a second one; after `maxReceives` failed receives it goes to the dead letters.
 * Made in `scope` as `DeadLetters` and `Queue`.
 */
export const workQueue = (
  scope: Construct,
  options: { workerTimeout: Duration; maxReceives: number },
): { queue: sqs.Queue; deadLetters: sqs.Queue } => {
  const deadLetters = new sqs.Queue(scope, 'DeadLetters', { retentionPeriod: Duration.days(14) });
  const queue = new sqs.Queue(scope, 'Queue', {
    visibilityTimeout: options.workerTimeout.plus(Duration.minutes(1)),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: options.maxReceives },
  });
  return { queue, deadLetters };
};

/** What a worker needs of its own queue: consume it, and send to it (work it hands itself again). */
export const consumeStatement = (sid: string, queue: sqs.IQueue): iam.PolicyStatement =>
  new iam.PolicyStatement({
    sid,
    actions: [
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueAttributes',
      'sqs:SendMessage',
    ],
    resources: [queue.queueArn],
  });
