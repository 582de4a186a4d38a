/** Plain-data fixtures for the field-layer unit tests. */
import { expect } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import { defineField } from '#shared/fields/define.ts';
import type { Field, ReadContext, UserRef, WriteContext } from '#shared/fields/field-types.ts';

export const alice: UserRef = { id: 'usrAliceAAAAAAAAAAA', title: 'Alice', email: 'alice@example.com' };
export const bob: UserRef = { id: 'usrBobBBBBBBBBBBBBB', title: 'Bob', email: 'bob@example.com' };
// two collaborators with one name: a typecast by that name matches nobody
export const samA: UserRef = { id: 'usrSamAAAAAAAAAAAAA', title: 'Sam', email: 'sam.a@example.com' };
export const samB: UserRef = { id: 'usrSamBBBBBBBBBBBBB', title: 'Sam', email: 'sam.b@example.com' };
export const stranger: UserRef = { id: 'usrStrangerXXXXXXXX', title: 'Stranger', email: 'x@example.com' };

export const NOW = new Date('2026-03-01T12:00:00.000Z');

/** Choice ids `cho0000000000000001`, `…02`… in call order. */
export const choiceIds = (): (() => string) => {
  let n = 0;
  return () => `cho${String(++n).padStart(16, '0')}`;
};

/** A write context with fixed time, caller Alice and four collaborators. */
export const writeCtx = (overrides: Partial<WriteContext> = {}): WriteContext => ({
  now: NOW,
  user: alice,
  collaborators: [alice, bob, samA, samB],
  newChoiceId: choiceIds(),
  ...overrides,
});

export const REC_1 = 'recAAAAAAAAAAAAAAA1';
export const REC_2 = 'recAAAAAAAAAAAAAAA2';
export const REC_DELETED = 'recAAAAAAAAAAAAAAA3';
export const TABLE_ID = 'tblForeignAAAAAAAAA';

const TITLES: Record<string, string> = { [REC_1]: 'Alpha', [REC_2]: 'Beta' };

/** Link titles of two foreign records; REC_DELETED has none. */
export const readCtx: ReadContext = { linkTitle: (_fieldId, recordId) => TITLES[recordId] };

/** A field of the type as `defineField` builds it, named `name` (default `Name`) in an empty table. */
export const makeField = (type: string, options?: unknown, name = 'Name'): Field =>
  defineField({ type, name, options, isPrimary: false }, { existing: [], newChoiceId: choiceIds() });

/** Runs `act` and returns the ValidationError it throws (failing the test on anything else). */
export const validationError = (act: () => unknown): ValidationError => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
};
