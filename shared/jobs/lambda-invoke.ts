import type { LambdaClient } from '@aws-sdk/client-lambda';

let client: Promise<{ client: LambdaClient; sdk: typeof import('@aws-sdk/client-lambda') }> | undefined;

/**
 * Invokes a Lambda asynchronously (`Event`): Lambda queues the event and answers at once, without
 * waiting for the function. The Lambda client is imported on the first invoke, not when a route's
 * bundle loads (a static import of it would be hoisted into every bundle that can wake the worker).
 */
export const invokeAsync = async (functionName: string, payload: unknown): Promise<void> => {
  client ??= import('@aws-sdk/client-lambda').then((sdk) => ({
    client: new sdk.LambdaClient({ maxAttempts: 3 }),
    sdk,
  }));
  const { client: lambda, sdk } = await client;
  await lambda.send(
    new sdk.InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );
};
