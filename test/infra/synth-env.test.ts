/**
 * `cdk synth` runs in a plain shell: loading the CDK app must not need the Lambdas' environment
 * (TABLE_NAME and the rest are set in the functions, not where the stack is built).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the CDK app', () => {
  it('loads without TABLE_NAME in the environment', () => {
    const root = new URL('../../', import.meta.url).pathname;
    const script = join(tmpdir(), `import-app-${process.pid}.mts`);
    writeFileSync(
      script,
      `await import(${JSON.stringify(join(root, 'infra/create-app.ts'))}); console.log('loaded');\n`,
    );
    const env = { ...process.env };
    delete env.TABLE_NAME;
    const out = execFileSync(join(root, 'node_modules/.bin/tsx'), [script], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('loaded');
  });
});
