import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * The X-Ray tracer of every Lambda (Powertools Tracer): a segment per invocation, with the cold
 * start annotated, and a subsegment per DynamoDB call (the document client is captured in
 * `client.ts`). Off outside Lambda (tests, `npm start`): Powertools enables it only in a Lambda
 * execution environment, and `POWERTOOLS_TRACE_ENABLED=false` turns it off there.
 */
export const tracer = new Tracer({ serviceName: 'workspace-api' });
