import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withRouteTable } from '#infra/local/route-docs.ts';

describe('route list (functions/README.md)', () => {
  it('is the one generated from the route table (run `npm run docs` after changing routes)', () => {
    const readme = readFileSync(new URL('../../functions/README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withRouteTable(readme));
  });
});

describe('route summaries', () => {
  it('describe every route of the table and nothing else', async () => {
    const { ROUTE_SUMMARIES } = await import('#infra/local/route-docs.ts');
    const { ROUTES } = await import('#shared/routes.ts');
    expect(Object.keys(ROUTE_SUMMARIES).sort()).toEqual(ROUTES.map((r) => r.handler).sort());
    for (const summary of Object.values(ROUTE_SUMMARIES)) expect(summary.length).toBeGreaterThan(5);
  });
});
