import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlingFor, esbuildOptionsFor, LAMBDA_BUNDLING, routeDefine } from '#infra/bundling.ts';
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
});
