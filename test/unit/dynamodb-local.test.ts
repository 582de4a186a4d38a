import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  assertJava,
  formatProgress,
  integrityMatches,
  JavaMissingError,
  progressDue,
  tarballUrl,
} from '#infra/local/dynamodb-local.ts';

describe('DynamoDB Local management', () => {
  it('says how to install Java when there is none on PATH', () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(() => assertJava()).toThrow(JavaMissingError);
      expect(() => assertJava()).toThrow(/apt-get install -y openjdk-17-jre-headless/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('accepts only bytes with the pinned sha512 integrity', () => {
    const bytes = Buffer.from('not the emulator');
    expect(integrityMatches(bytes)).toBe(false);
    const own = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
    expect(integrityMatches(bytes, own)).toBe(true);
  });
});

describe('DynamoDB Local download progress', () => {
  const MB = 1024 * 1024;

  it('formats bytes received as MB of the total with a percentage, or MB alone with no size', () => {
    expect(formatProgress(0, 54 * MB)).toBe('  0.0 of 54.0 MB (0%)');
    expect(formatProgress(12.34 * MB, 54 * MB)).toBe('  12.3 of 54.0 MB (22%)');
    expect(formatProgress(54 * MB, 54 * MB)).toBe('  54.0 of 54.0 MB (100%)');
    expect(formatProgress(7.5 * MB)).toBe('  7.5 MB');
  });

  it('is due at each new tenth, at most once a second, leaving the final line to the caller', () => {
    const due = progressDue(100);

    expect(due(5, 0)).toBe(false);
    expect(due(10, 100)).toBe(true);
    expect(due(25, 200)).toBe(false); // a new tenth, but within a second of the last line
    expect(due(29, 1100)).toBe(true);
    expect(due(95, 1900)).toBe(false); // within a second again
    expect(due(95, 5000)).toBe(true);
    expect(due(99, 8000)).toBe(false); // no new tenth: slow seconds print nothing
    expect(due(100, 9000)).toBe(false); // the end: the caller prints it
  });

  it('prints at most ten progress lines (before the final one) however the chunks fall', () => {
    const due = progressDue(54 * MB);
    let lines = 0;
    for (let received = 0, now = 0; received < 54 * MB; received += 16 * 1024, now += 5)
      if (due(received, now)) lines++;

    expect(lines).toBeLessThanOrEqual(10);
    expect(lines).toBeGreaterThan(0);
  });

  it('is due each 5 MB when the size is unknown', () => {
    const due = progressDue(undefined);

    expect(due(4 * MB, 0)).toBe(false);
    expect(due(5 * MB, 100)).toBe(true);
    expect(due(9 * MB, 5000)).toBe(false);
    expect(due(10 * MB, 5100)).toBe(true);
  });

  it('downloads from the configured registry with the standard tarball path', () => {
    expect(tarballUrl('https://registry.npmjs.org/')).toBe(
      'https://registry.npmjs.org/amplify-dynamodb-simulator/-/amplify-dynamodb-simulator-2.9.30.tgz',
    );
    expect(tarballUrl('https://npm.example.com/repo')).toBe(
      'https://npm.example.com/repo/amplify-dynamodb-simulator/-/amplify-dynamodb-simulator-2.9.30.tgz',
    );
  });
});
