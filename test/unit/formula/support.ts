/** Shared by the formula function tests: a fixed evaluation context and a spec finder. */
import type { EvalContext, FunctionSpec } from '#shared/formula/types.ts';

/** A context with a fixed `now` and record, in UTC. */
export const EVAL_CTX: EvalContext = {
  timeZone: 'UTC',
  now: new Date('2024-05-01T12:00:00.000Z'),
  record: { id: 'recAAAAAAAAAAAAAAAA', autoNumber: 7, createdTime: '', lastModifiedTime: '' },
};

/** A finder of specs by name in a list; an unknown name fails the test. */
export const specIn =
  (specs: readonly FunctionSpec[]) =>
  (name: string): FunctionSpec => {
    const found = specs.find((f) => f.name === name);
    if (!found) throw new Error(`no spec ${name}`);
    return found;
  };
