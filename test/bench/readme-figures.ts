/**
 * The figures of `test/bench/README.md` are what `npm run bench` printed: with `BENCH_README=1`
 * each section's output replaces the block between `<!-- bench:<section> -->` and `<!-- /bench:<section> -->`,
 * under a line saying when and where it was measured. `test/unit/readme-figures.test.ts` checks
 * that every block is there and dated. Pure, but for `writeReadmeFigures`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The bench sections whose figures the README shows. */
export const README_SECTIONS = [
  'bundles',
  'requests',
  'organizations',
  'records',
  'nodes',
  'context-menu',
  'purge',
  'listing',
  'million',
  'adhoc',
  'adhoc-million',
  'computed',
  'changes',
  'attachments',
  'bulk',
  'import-capture',
  'webhooks',
  'cost',
] as const;

export const MEASURED_LINE = /^_Measured (\d{4}-\d{2}-\d{2}) by `npm run bench`/;

const markers = (section: string) => [`<!-- bench:${section} -->`, `<!-- /bench:${section} -->`] as const;

/** The README with one section's block replaced by what the bench printed; unknown blocks are an error. */
export const withFigures = (
  readme: string,
  section: string,
  lines: readonly string[],
  when: Date,
  machine: string,
): string => {
  const [start, end] = markers(section);
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README has no ${start} … ${end} block`);
  const body = [
    `_Measured ${when.toISOString().slice(0, 10)} by \`npm run bench\` on ${machine}._`,
    ...lines.flatMap((l) => l.split('\n')).map((l) => l.replace(/^## /, '#### ')),
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return `${readme.slice(0, from + start.length)}\n${body}\n${readme.slice(to)}`;
};

/** The blocks of the README, by section: its measured date and its text. */
export const figureBlocks = (readme: string): Map<string, { date: string | undefined; text: string }> => {
  const out = new Map<string, { date: string | undefined; text: string }>();
  for (const m of readme.matchAll(/<!-- bench:([\w-]+) -->\n([\s\S]*?)<!-- \/bench:\1 -->/g)) {
    const text = m[2] ?? '';
    out.set(m[1] as string, { date: MEASURED_LINE.exec(text.split('\n')[0] ?? '')?.[1], text });
  }
  return out;
};

/** Writes what each README section printed into the README (`BENCH_README=1`). */
export const writeReadmeFigures = (printed: ReadonlyMap<string, readonly string[]>, readmePath: string) => {
  const machine = `${cpus().length} cores, Node ${process.versions.node}, DynamoDB Local`;
  let readme = readFileSync(readmePath, 'utf8');
  const now = new Date();
  for (const [section, lines] of printed)
    if ((README_SECTIONS as readonly string[]).includes(section))
      readme = withFigures(readme, section, lines, now, machine);
  writeFileSync(readmePath, readme);
};
