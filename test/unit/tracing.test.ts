/**
 * X-Ray tracing (`shared/db/tracer.ts`): in a Lambda execution environment every DynamoDB call of
 * the shared client is traced; elsewhere (tests, `npm start`, `sam local`) the client is untouched.
 * Each case loads the client in a fresh Node process with that environment.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const middlewareIn = (env: Record<string, string>): string[] => {
  const script =
    "const { documentClient } = await import('#shared/db/client.ts');" +
    'console.log(JSON.stringify(documentClient.middlewareStack.identify()));';
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, TABLE_NAME: 'tracing-test', AWS_REGION: 'eu-west-1', ...env },
    cwd: new URL('../../', import.meta.url).pathname,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as string[];
};

const traced = (names: string[]) => names.some((n) => /xray/i.test(n));

describe('tracing the DynamoDB client', () => {
  it('adds the X-Ray middleware in a Lambda execution environment', () => {
    const names = middlewareIn({
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_LAMBDA_FUNCTION_NAME: 'workspace-api-dev-get-space',
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    });
    expect(traced(names), names.join(', ')).toBe(true);
  }, 30_000);

  it('leaves the client alone outside Lambda, under sam local, and when turned off', () => {
    expect(traced(middlewareIn({}))).toBe(false);
    expect(traced(middlewareIn({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_SAM_LOCAL: 'true' }))).toBe(
      false,
    );
    expect(
      traced(middlewareIn({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_TRACE_ENABLED: 'false' })),
    ).toBe(false);
  }, 60_000);
});
