import { describe, expect, it } from 'vitest';
import { ConflictError } from '#shared/core/errors.ts';
import { putItem, transact, writeItems } from '#shared/db/client.ts';
import { billedWriteUnits, callSummary, resetCalls } from '#shared/db/metrics.ts';

/**
 * The write units DynamoDB would bill (`billedWriteUnits`, what the bench prices), counted from
 * the requests: DynamoDB Local reports a transaction's consumed capacity at a fraction of it.
 */
describe('billed write units', () => {
  const small = (sk: string) => ({ pk: `BILLED#${Date.now()}`, sk, note: 'small' });

  it('counts each item of a transaction twice, a put by the KB started, a batch once an item', async () => {
    resetCalls();
    const large = { ...small('large'), text: 'x'.repeat(2500) }; // 3 KB started
    await transact(
      [...Array.from({ length: 10 }, (_, i) => ({ put: small(`t${i}`) })), { put: large }],
      () => new ConflictError('unexpected'),
    );
    expect(billedWriteUnits()).toBe(2 * 10 + 2 * 3);
    // what DynamoDB Local itself reported is less (why the count is made from the requests)
    expect(callSummary().writeUnits).toBeLessThan(26);

    resetCalls();
    await writeItems([
      ...Array.from({ length: 5 }, (_, i) => ({ put: small(`b${i}`) })),
      { delete: { pk: 'BILLED#none', sk: 'x' } },
    ]);
    await putItem({ ...small('p'), text: 'y'.repeat(1500) });
    expect(billedWriteUnits()).toBe(5 + 1 + 2);
  });
});
