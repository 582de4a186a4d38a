import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How many test files run at once (one per core on this machine kind: test/README.md measures
 * it), and how a file takes one of a per-worker resource (a DynamoDB Local) that no other file
 * running at the same moment holds.
 */
export const TEST_WORKERS = 2;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Takes the first of `count` slots no running file holds: a lease file per slot in `dir`, made
 * atomically (`wx`), holding this process's id; one whose process is gone is taken over. Vitest's
 * own worker numbers (`VITEST_POOL_ID`) did not do: in a whole run the capture project's files all
 * came to one of its two DynamoDB Locals. Released after the file (`release`) or when its process
 * ends; should every slot be held (more files at once than slots), one is shared.
 */
export const leaseSlot = (dir: string, count: number): { slot: number; release: () => void } => {
  for (let pass = 0; pass < 2; pass++)
    for (let slot = 0; slot < count; slot++) {
      const file = join(dir, `slot-${slot}`);
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx' });
      } catch {
        const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
        if (pass === 0 || alive(holder)) continue;
        rmSync(file, { force: true });
        slot--;
        continue;
      }
      const release = () => rmSync(file, { force: true });
      process.once('exit', release);
      return { slot, release };
    }
  return { slot: process.pid % count, release: () => {} };
};
