import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';

const client = new LambdaClient({ maxAttempts: 3 });

/**
 * Invokes a Lambda asynchronously (`Event`): Lambda queues the event and answers at once, without
 * waiting for the function. Loaded only when a wake is sent (`worker-wake.ts`), so routes that
 * never wake the worker never load the Lambda client.
 */
export const invokeAsync = async (functionName: string, payload: unknown): Promise<void> => {
  await client.send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );
};
