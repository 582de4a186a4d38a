/**
 * The bench figures (`test/bench/README.md`) are generated (`BENCH_README=1 npm run bench`,
 * `test/bench/readme-figures.ts`): every section has its block, and every block says when it was
 * measured.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { figureBlocks, README_SECTIONS, withFigures } from '#test/bench/readme-figures.ts';

const readme = readFileSync(new URL('../bench/README.md', import.meta.url), 'utf8');

describe('README figures', () => {
  it('has a block for every bench section, each dated by the run that wrote it', () => {
    const blocks = figureBlocks(readme);
    expect([...blocks.keys()].sort()).toEqual([...README_SECTIONS].sort());
    for (const [section, { date, text }] of blocks) {
      expect(date, `${section}: no "_Measured <date> by \`npm run bench\`" line`).toMatch(
        /^\d{4}-\d{2}-\d{2}$/,
      );
      expect(Date.parse(date as string)).toBeLessThanOrEqual(Date.now());
      expect(text.split('\n').length, `${section}: no figures`).toBeGreaterThan(2);
    }
  });

  it('a run replaces a block whole, keeps the text around it, and dates it', () => {
    const before = 'intro\n<!-- bench:records -->\nold table\n<!-- /bench:records -->\noutro\n';
    const after = withFigures(
      before,
      'records',
      ['\n## Record writes\n', '| a | b |'],
      new Date('2026-11-25T10:00:00Z'),
      '2 cores',
    );
    expect(after).toBe(
      'intro\n<!-- bench:records -->\n_Measured 2026-11-25 by `npm run bench` on 2 cores._\n\n#### Record writes\n\n| a | b |\n<!-- /bench:records -->\noutro\n',
    );
    expect(figureBlocks(after).get('records')?.date).toBe('2026-11-25');
    expect(() => withFigures('no blocks', 'records', [], new Date(), 'x')).toThrow(
      /no <!-- bench:records -->/,
    );
  });
});
