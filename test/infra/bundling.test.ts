import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundlingFor,
  esbuildOptionsFor,
  LAMBDA_BUNDLING,
  routeDefine,
  WORKER_BUNDLING,
} from '#infra/bundling.ts';
import { routeOf } from '#shared/routes.ts';

const root = join(import.meta.dirname, '..', '..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundle-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Bundles a handler as the stack does and answers the output's text and its path. */
const bundle = async (handler: string) => {
  const outfile = join(dir, handler, 'index.mjs');
  await build(esbuildOptionsFor(join(root, 'functions', `${handler}.ts`), outfile, handler));
  return { outfile, text: await readFile(outfile, 'utf8') };
};

describe('Lambda bundling', () => {
  it("serves the docs page's assets from files copied beside the bundle, as the Lambda reads them", async () => {
    const { outfile } = await bundle('get-docs-asset');
    const hooks = bundlingFor('get-docs-asset').commandHooks;
    const commands = hooks?.afterBundling(root, join(dir, 'get-docs-asset')) ?? [];
    expect(commands).toHaveLength(2);
    const { execSync } = await import('node:child_process');
    for (const command of commands) execSync(command);
    process.env.TABLE_NAME ??= 'bundle-test';
    const { handler } = (await import(pathToFileURL(outfile).href)) as {
      handler: (
        e: unknown,
        c: unknown,
      ) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;
    };
    const context = { getRemainingTimeInMillis: () => 10_000, awsRequestId: 'r1', functionName: 'f' };
    const event = (asset: string) => ({
      rawPath: `/api/docs/${asset}`,
      headers: {},
      pathParameters: { asset },
      requestContext: { http: { method: 'GET', path: `/api/docs/${asset}` }, requestId: 'a1' },
    });
    const css = await handler(event('swagger-ui.css'), context);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('.swagger-ui');
    expect(bundlingFor('get-space').commandHooks).toBeUndefined();
  });

  it('leaves the formula compiler out of routes that only read records, and in those that write', async () => {
    const sources = async (handler: string) => {
      const outfile = join(dir, `${handler}-meta`, 'index.mjs');
      const result = await build({
        ...esbuildOptionsFor(join(root, 'functions', `${handler}.ts`), outfile, handler),
        metafile: true,
        write: false,
      });
      return Object.keys(result.metafile.inputs);
    };
    const compiler = (files: string[]) => files.filter((f) => f.startsWith('shared/formula/compile'));
    expect(compiler(await sources('get-record'))).toEqual([]);
    expect(compiler(await sources('list-records'))).toEqual([]);
    expect(compiler(await sources('update-record'))).toEqual(['shared/formula/compile.ts']);
  });

  it('puts the route of the handler in its bundle, and no other route', async () => {
    const { text } = await bundle('get-space');
    expect(text).toContain('"handler":"get-space"');
    expect(text).not.toContain('/space/{spaceId}/collaborators');
    expect(text).not.toContain('delete-trash-item');
  }, 60_000);

  it('loads: the handler finds its route from the bundled text', async () => {
    const { outfile } = await bundle('get-current-user');
    const mod = (await import(pathToFileURL(outfile).href)) as { handler?: unknown };
    expect(typeof mod.handler).toBe('function');
  }, 60_000);

  it('gives the stack the same define, and workers none', () => {
    expect(bundlingFor('get-space')).toMatchObject({ ...LAMBDA_BUNDLING, define: routeDefine('get-space') });
    expect(JSON.parse(JSON.parse(String(routeDefine('get-space').BUNDLED_ROUTE)))).toEqual(
      routeOf('get-space'),
    );
    expect(bundlingFor().define).toEqual({});
  });

  it("ships the purge worker's sharp as an installed package for Linux on arm64 (the function's platform), not bundled", () => {
    expect(WORKER_BUNDLING).toMatchObject({ ...LAMBDA_BUNDLING, nodeModules: ['sharp'] });
    expect(WORKER_BUNDLING.environment).toEqual({
      npm_config_os: 'linux',
      npm_config_cpu: 'arm64',
      npm_config_libc: 'glibc',
    });
  });
});
