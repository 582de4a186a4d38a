import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withRouteTable } from '#infra/local/route-docs.ts';

describe('README route list', () => {
  it('is the one generated from the route table (run `npm run docs` after changing routes)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withRouteTable(readme));
  });
});
