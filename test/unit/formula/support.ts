/** Shared by the formula function tests: a fixed evaluation context and a spec finder. */
import type { EvalContext, FunctionSpec, Typed, Value } from '#shared/formula/formula-types.ts';

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

/** The type a plain value has as a formula argument (a list: its first non-empty item's, multiple). */
export const typeOfValue = (v: Value): Typed => {
  if (Array.isArray(v))
    return { type: typeOfValue(v.flat().find((i: Value) => i !== null) ?? null).type, multiple: true };
  if (typeof v === 'number') return { type: 'number', multiple: false };
  if (typeof v === 'boolean') return { type: 'boolean', multiple: false };
  return { type: 'string', multiple: false };
};

/** Evaluates a function on values with the given argument types; a spec without `evaluate` fails the test. */
export const evaluateWith = (
  f: FunctionSpec,
  args: Value[],
  types: Typed[],
  ctx: EvalContext = EVAL_CTX,
): Value => {
  if (!f.evaluate) throw new Error(`${f.name} has no evaluate`);
  return f.evaluate(args, ctx, types);
};

/**
 * `call(name, args, types?)` over a list of specs in `EVAL_CTX`: the arguments are typed by
 * `typeArgs` unless the types are given.
 */
export const callerIn =
  (specs: readonly FunctionSpec[], typeArgs: (args: Value[]) => Typed[]) =>
  (name: string, args: Value[], types?: Typed[]): Value =>
    evaluateWith(specIn(specs)(name), args, types ?? typeArgs(args));
