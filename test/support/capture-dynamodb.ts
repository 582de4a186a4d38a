import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The capture project's own DynamoDB Local (`support/own-table.ts` points its files at it). */
    captureDynamoDbEndpoint: string;
  }
}

/**
 * Global setup of the `capture` project: a DynamoDB Local of its own. DynamoDB Local answers every
 * request through one SQLite thread; once the shared one holds the run's data (~190,000 items and
 * their stream), each stream read took it seconds and two stream pollers starved it (a GetItem
 * took up to 1.6 s). Fresh and small, this one serves the files that read a stream; the endpoint
 * reaches them through `inject`, so the other projects' environment is left alone.
 */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal();
  project.provide('captureDynamoDbEndpoint', dynamo.endpoint);
  return async () => {
    await Promise.race([dynamo.stop(), new Promise((r) => setTimeout(r, 10_000).unref())]);
  };
}
