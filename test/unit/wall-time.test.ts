import { describe, expect, it } from 'vitest';
import { wallTimeText } from '#test/support/wall-time-reporter.ts';

describe('the suite wall time printed at the end of npm test', () => {
  it('rounds to whole seconds once, so 59.6 s past a minute reads as the next minute', () => {
    expect(wallTimeText(659.6)).toBe('11 min 0 s');
    expect(wallTimeText(673.2)).toBe('11 min 13 s');
    expect(wallTimeText(59.4)).toBe('0 min 59 s');
    expect(wallTimeText(0)).toBe('0 min 0 s');
  });
});
