/** The slots the test run's files lease (`support/workers.ts`): one DynamoDB Local per file running at once. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaseSlot } from '#test/support/workers.ts';

describe('leaseSlot', () => {
  it('gives files running at once different slots, frees a slot on release, and shares one only when all are held', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leases-'));
    const a = leaseSlot(dir, 2);
    const b = leaseSlot(dir, 2);
    expect([a.slot, b.slot].sort()).toEqual([0, 1]);
    expect(readFileSync(join(dir, `slot-${a.slot}`), 'utf8')).toBe(String(process.pid));

    const shared = leaseSlot(dir, 2);
    expect([0, 1]).toContain(shared.slot);

    a.release();
    expect(leaseSlot(dir, 2).slot).toBe(a.slot);
  });

  it("takes over a slot whose holder's process is gone", () => {
    const dir = mkdtempSync(join(tmpdir(), 'leases-'));
    // a process id that is not running (beyond Linux's default pid_max)
    writeFileSync(join(dir, 'slot-0'), '4999999');
    writeFileSync(join(dir, 'slot-1'), String(process.pid));
    const taken = leaseSlot(dir, 2);
    expect(taken.slot).toBe(0);
    expect(readFileSync(join(dir, 'slot-0'), 'utf8')).toBe(String(process.pid));
  });
});
