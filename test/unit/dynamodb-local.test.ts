import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertJava, integrityMatches, JavaMissingError } from '#infra/local/dynamodb-local.ts';

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
