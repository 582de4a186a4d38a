import { describe, expect, it } from 'vitest';
import { and, EXISTS, LIVE, NOT_EXISTS, or } from '#shared/db/conditions.ts';

describe('condition fragments', () => {
  it('joins fragments, keeping an OR inside an AND together', () => {
    expect(and(LIVE, 'baseId = :base')).toBe(
      'attribute_exists(pk) AND attribute_not_exists(deletedTime) AND baseId = :base',
    );
    expect(and(EXISTS, or('a = :a', 'b = :b'))).toBe('attribute_exists(pk) AND (a = :a OR b = :b)');
    expect(or(NOT_EXISTS, 'recordId = :r')).toBe('attribute_not_exists(pk) OR recordId = :r');
  });
});
