import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files run in, across every project (they share the two workers):
 *
 * 1. the files that scan the shared table (`scan.ts`: leak and orphan checks), while their
 *    worker's table holds little: a scan reads every item, so late in a run one scan took ~30 s
 *    instead of ~1 s;
 * 2. the files that take longest (`LONGEST`, measured: test/README.md), longest first, so that no
 *    worker is left running one of them alone at the end (a clean clone has no timings cached);
 * 3. the rest in vitest's own order.
 */
const scans = (path: string): boolean => {
  try {
    return /\b(scanTable|itemsMentioning)\(/.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
};

/** The files over ~20 s in a clean-clone run (test/README.md), longest first. */
export const LONGEST = [
  'integration/socket-property.test.ts',
  'integration/role-matrix.test.ts',
  'compat/conversion-matrix.test.ts',
  'integration/view-indexes.test.ts',
  'integration/route-matrix.test.ts',
  'integration/ad-hoc-orders.test.ts',
  'e2e/start.test.ts',
  'integration/sessions.test.ts',
  'integration/interrupted-writes.test.ts',
  'e2e/database-down.test.ts',
  'integration/export.test.ts',
  'integration/record-order.test.ts',
];

const rankOf = (path: string): number => {
  const i = LONGEST.findIndex((name) => path.endsWith(`/test/${name}`));
  return i < 0 ? LONGEST.length : i;
};

export class ScansFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const scanning = sorted.filter((f) => scans(f.moduleId));
    const rest = sorted.filter((f) => !scans(f.moduleId));
    // a stable sort: files not listed keep vitest's order after the listed ones
    return [...scanning, ...[...rest].sort((a, b) => rankOf(a.moduleId) - rankOf(b.moduleId))];
  }
}
