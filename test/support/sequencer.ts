import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files run in: the longest files first (`LONGEST`), then vitest's own (projects
 * one after another, then what its cache says), except that within a project the files that scan
 * the shared table (`scan.ts`: leak and orphan checks) run first. A scan reads every item of the table, so late in a run, after the
 * listing and bulk files have written their large tables, one scan took ~30 s instead of ~1 s.
 * Run first, their time no longer depends on what the rest of the run writes.
 */
const scans = (path: string): boolean => {
  try {
    return /\b(scanTable|itemsMentioning)\(/.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * The longest files that write little (test/README.md, "the ten slowest"): started first, on both
 * workers, so the end of the run is short files filling in rather than one long file alone. Not
 * `view-indexes`: it writes tables of thousands of records, which the scanning files would read.
 */
const LONGEST = [
  'integration/role-matrix.test.ts',
  'integration/route-matrix.test.ts',
  'compat/conversion-matrix.test.ts',
];
const isLongest = (path: string) => LONGEST.some((l) => path.endsWith(l));

export class ScansFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = new Map(sorted.map((f) => [f, scans(f.moduleId)]));
    // a stable partition inside each project, projects kept in vitest's order
    const projects = [...new Set(sorted.map((f) => f.project.name))];
    const ordered = projects.flatMap((name) => {
      const own = sorted.filter((f) => f.project.name === name);
      return [...own.filter((f) => first.get(f)), ...own.filter((f) => !first.get(f))];
    });
    return [
      ...ordered.filter((f) => isLongest(f.moduleId)),
      ...ordered.filter((f) => !isLongest(f.moduleId)),
    ];
  }
}
