import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withRequestScope } from '#shared/db/request-scope.ts';
import { INVOKE_TIMEOUT_MS } from '#shared/jobs/lambda-invoke.ts';
import { runWakesInProcess, wakeRepairWorker, wakesSettled } from '#shared/jobs/worker-wake.ts';

afterEach(() => {
  runWakesInProcess(undefined);
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('waking the repair worker in process (npm start, tests)', () => {
  it('runs the pass handed in after the waking request, outside its scope', async () => {
    const seen: (string | undefined)[] = [];
    runWakesInProcess(async () => {
      const { requestScope } = await import('#shared/db/request-scope.ts');
      seen.push(requestScope()?.txId ?? 'no scope');
    });
    await withRequestScope(1_000, () => wakeRepairWorker('listing order'), 'tx-of-the-request');
    expect(seen).toEqual([]); // not during the request
    await wakesSettled();
    expect(seen).toEqual(['no scope']);
  });

  it('a wake during a pass runs it once more after, however many came', async () => {
    let runs = 0;
    let release: () => void = () => {};
    runWakesInProcess(async () => {
      runs++;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    await wakeRepairWorker('a');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(1);
    await wakeRepairWorker('b');
    await wakeRepairWorker('c');
    release();
    await wakesSettled();
    expect(runs).toBe(2);
  });

  it('a failing pass is logged, never thrown at the waking request; with no pass a wake does nothing', async () => {
    runWakesInProcess(async () => {
      throw new Error('pass failed');
    });
    await expect(wakeRepairWorker('x')).resolves.toBeUndefined();
    await expect(wakesSettled()).resolves.toBeUndefined();
    runWakesInProcess(undefined);
    await expect(wakeRepairWorker('y')).resolves.toBeUndefined();
    await wakesSettled();
  });
});

// No Lambda runs locally: the invoke is checked against the SDK's mock, its failure included.
describe('waking the repair worker in the cloud (REPAIR_WORKER_FUNCTION set)', () => {
  const lambda = mockClient(LambdaClient);
  afterEach(() => lambda.reset());

  const cloudWake = async () => {
    vi.stubEnv('REPAIR_WORKER_FUNCTION', 'workspace-api-dev-repair-worker');
    vi.resetModules();
    return import('#shared/jobs/worker-wake.ts');
  };

  it('invokes the worker asynchronously (an Event invoke), naming why', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const cloud = await cloudWake();
    const ran: string[] = [];
    cloud.runWakesInProcess(async () => void ran.push('in process'));
    await cloud.wakeRepairWorker('listing order');
    await cloud.wakesSettled();
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input?.FunctionName).toBe('workspace-api-dev-repair-worker');
    expect(input?.InvocationType).toBe('Event');
    expect(JSON.parse(new TextDecoder().decode(input?.Payload as Uint8Array))).toEqual({
      wake: 'listing order',
    });
    expect(ran).toEqual([]); // the cloud's worker computes, not this process
    cloud.runWakesInProcess(undefined);
  });

  it('an invoke that does not answer is given up after a second, so the request still answers', async () => {
    // the invoke never answers: the wake can only return by giving up (else the test times out)
    lambda.on(InvokeCommand).callsFake(() => new Promise(() => {}));
    await expect((await cloudWake()).wakeRepairWorker('listing order')).resolves.toBeUndefined();
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
    expect(INVOKE_TIMEOUT_MS).toBeLessThan(5_000); // well inside the test's own timeout
  });

  it('a refused invoke is logged, not answered: the schedule runs the worker', async () => {
    lambda
      .on(InvokeCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
    await expect((await cloudWake()).wakeRepairWorker('listing order')).resolves.toBeUndefined();
    expect(lambda.commandCalls(InvokeCommand).length).toBeGreaterThanOrEqual(1);
  });
});
