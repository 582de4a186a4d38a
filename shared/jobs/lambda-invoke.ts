import type { LambdaClient } from '@aws-sdk/client-lambda';

let client: Promise<{ client: LambdaClient; sdk: typeof import('@aws-sdk/client-lambda') }> | undefined;

/** How long an invoke may take before the caller goes on without it (it answers a request). */
export const INVOKE_TIMEOUT_MS = 1_000;

/**
 * Invokes a Lambda asynchronously (`Event`): Lambda queues the event and answers at once, without
 * waiting for the function. Gives up (throws) after `INVOKE_TIMEOUT_MS`, aborting the call. The
 * Lambda client is imported on the first invoke, not when a route's bundle loads (a static import
 * of it would be hoisted into every bundle that can wake the worker).
 */
export const invokeAsync = async (functionName: string, payload: unknown): Promise<void> => {
  client ??= import('@aws-sdk/client-lambda').then((sdk) => ({
    client: new sdk.LambdaClient({ maxAttempts: 2 }),
    sdk,
  }));
  const { client: lambda, sdk } = await client;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error(`the invoke of ${functionName} took over ${INVOKE_TIMEOUT_MS} ms`));
    }, INVOKE_TIMEOUT_MS);
  });
  try {
    await Promise.race([
      lambda.send(
        new sdk.InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(payload)),
        }),
        { abortSignal: abort.signal },
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
};
