import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files run in: vitest's own (projects one after another, then what its cache
 * says), except that within a project the files that scan the shared table (`scan.ts`: leak and
 * orphan checks) run first. A scan reads every item of the table, so late in a run, after the
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

export class ScansFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = new Map(sorted.map((f) => [f, scans(f.moduleId)]));
    // a stable partition inside each project, projects kept in vitest's order
    const projects = [...new Set(sorted.map((f) => f.project.name))];
    return projects.flatMap((name) => {
      const own = sorted.filter((f) => f.project.name === name);
      return [...own.filter((f) => first.get(f)), ...own.filter((f) => !first.get(f))];
    });
  }
}
