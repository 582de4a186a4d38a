/**
 * From an expression to a checked, typed and runnable formula (computed.md 1–3): the checks of
 * 2.1 (syntax, field references, functions and their argument counts), type inference (3.1),
 * and evaluation with the operator rules of 1.2 and the field operands of 1.3. Evaluation
 * compiles the tree once into closures, so a backfill of many records pays parsing once. Pure.
 */

import { convertValue, itemsOf, plainText, scalarOf, truthy } from './convert.ts';
import {
  type ArgSpec,
  charge,
  type EvalContext,
  FormulaEvalError,
  type FunctionSpec,
  MAX_EVAL_STEPS,
  type Meter,
  type Typed,
  type Value,
} from './formula-types.ts';
import { FUNCTIONS } from './functions/index.ts';
import {
  type BinaryOp,
  FormulaSyntaxError,
  fieldRefsOf,
  type Node,
  nodeCount,
  parseFormula,
} from './parse.ts';
import { unsupportedPattern } from './patterns.ts';

/** A check failure of 2.1: the message is the 400's. */
export class FormulaError extends Error {
  override readonly name = 'FormulaError';
}

/** What a formula sees of the fields of its table. */
export interface FieldTypes {
  /** The type of a referenced field, or undefined when the table has no such field. */
  typeOf(fieldId: string): Typed | undefined;
}

/** One record's field values as the formula sees them (1.3), and date-field text. */
export interface FormulaRow {
  /**
   * The value of a field: numbers, booleans, texts; a dateTime field's ISO UTC text; a link,
   * user or attachment field's item texts; a list when the field holds several.
   */
  value(fieldId: string): Value;
  /** A dateTime field's text rendering of `iso` under its formatting (1.3, "other operators"). */
  dateText(fieldId: string, iso: string): string;
}

/** A formula ready to run: its result type and the fields it reads. */
export interface CompiledFormula {
  type: Typed;
  refs: string[];
  /** The value to store (1.6): empty (undefined) for errors, false, NaN, ±Infinity and `""`. */
  run(row: FormulaRow, ctx: EvalContext): StoredValue | undefined;
}

/** A stored formula value: a scalar, or a list of scalars for a multiple result. */
export type StoredValue = string | number | boolean | (string | number | boolean)[];

type Run = (row: FormulaRow, ctx: EvalContext) => Value;
interface Compiled {
  t: Typed;
  run: Run;
  /** The field id when the node is a plain field reference (1.3 treats those specially). */
  field?: string;
}

const plural = (n: number) => `${n} param${n === 1 ? '' : 's'}`;

const checkCount = (spec: FunctionSpec, count: number): void => {
  if (spec.exact ? count === spec.minArgs : count >= spec.minArgs) return;
  if (spec.countMessage) throw new FormulaError(spec.countMessage);
  if (!spec.exact) throw new FormulaError(`${spec.name} needs at least ${plural(spec.minArgs)}`);
  if (count < spec.minArgs) throw new FormulaError(`${spec.name} needs ${plural(spec.minArgs)}`);
  throw new FormulaError(`${spec.name} only allow ${plural(spec.minArgs)}`);
};

const argSpec = (spec: FunctionSpec, i: number): ArgSpec =>
  spec.args[Math.min(i, spec.args.length - 1)] ?? { accepts: 'any' };

/** The type an argument has once prepared per its spec. */
const preparedType = (t: Typed, arg: ArgSpec): Typed => {
  const type = arg.accepts === 'any' || arg.accepts.includes(t.type) ? t.type : (arg.accepts[0] ?? t.type);
  const multiple = arg.arrays === 'items' ? t.multiple : false;
  return { type, multiple, ...(t.blank ? { blank: true } : {}) };
};

/** Prepares one evaluated argument (1.4): scalar/list handling, then conversion. */
const prepare = (value: Value, t: Typed, arg: ArgSpec, ctx: EvalContext, meter: Meter): Value => {
  if (Array.isArray(value)) charge(meter, value.length);
  let v = value;
  if (arg.arrays === 'join') v = Array.isArray(v) ? itemsOf(v).map(plainText).join(', ') : v;
  else if (arg.arrays !== 'items') v = scalarOf(v);
  const target = preparedType(t, arg).type;
  if (arg.arrays === 'join' && Array.isArray(value)) return convertValue(v, 'string', target, ctx.timeZone);
  return convertValue(v, t.type, target, ctx.timeZone);
};

/** A number operand: a list of 0 items is empty, of 1 its item, more an error; converted (1.4). */
const numberOperand = (value: Value, t: Typed, ctx: EvalContext): number | null => {
  const v = convertValue(scalarOf(value), t.type, 'number', ctx.timeZone);
  return typeof v === 'number' ? v : null;
};

/** An operand's text under `&` and text `+` (1.2, 1.3). */
const textOperand = (c: Compiled, value: Value, row: FormulaRow): string => {
  if (Array.isArray(value)) return itemsOf(value).map(plainText).join(',');
  if (value === null) return '';
  if (c.t.type === 'dateTime' && c.field !== undefined && typeof value === 'string')
    return row.dateText(c.field, value);
  return plainText(value);
};

const compare = (a: number | string, b: number | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The ordering of two operands (1.2 level 4): numbers, instants or texts. */
const order = (l: Compiled, r: Compiled, lv: Value, rv: Value, row: FormulaRow, ctx: EvalContext): number => {
  const numeric = [l.t.type, r.t.type].some((t) => t === 'number' || t === 'boolean');
  if (numeric) return compare(numberOperand(lv, l.t, ctx) ?? 0, numberOperand(rv, r.t, ctx) ?? 0);
  if (l.t.type === 'dateTime' && r.t.type === 'dateTime') {
    const a = scalarOf(lv);
    const b = scalarOf(rv);
    return compare(
      a === null ? -Infinity : Date.parse(String(a)),
      b === null ? -Infinity : Date.parse(String(b)),
    );
  }
  // a date against a text literal compares as ISO text
  const text = (c: Compiled, v: Value) =>
    c.t.type === 'dateTime' ? plainText(scalarOf(v)) : textOperand(c, v, row);
  return compare(text(l, lv), text(r, rv));
};

/** Loose equality (1.2 level 5). */
const looseEqual = (l: Compiled, r: Compiled, lv: Value, rv: Value, row: FormulaRow): boolean => {
  const a = Array.isArray(lv) ? scalarOrJoined(lv) : lv;
  const b = Array.isArray(rv) ? scalarOrJoined(rv) : rv;
  if (a === null || b === null) return a === null && b === null;
  if (l.t.type === 'dateTime' && r.t.type === 'dateTime')
    return Date.parse(String(a)) === Date.parse(String(b));
  if (typeof a === 'string' && typeof b === 'string') {
    const ta = l.t.type === 'dateTime' ? a : textOperand(l, a, row);
    const tb = r.t.type === 'dateTime' ? b : textOperand(r, b, row);
    return ta === tb;
  }
  const num = (v: Value) =>
    typeof v === 'number'
      ? v
      : typeof v === 'boolean'
        ? Number(v)
        : typeof v === 'string' && v.trim() !== ''
          ? Number(v)
          : Number.NaN;
  return num(a) === num(b);
};

const scalarOrJoined = (list: readonly Value[]): Value => {
  const items = itemsOf(list);
  if (items.length === 0) return null;
  if (items.length === 1) return items[0] ?? null;
  return items.map(plainText).join(',');
};

const binaryType = (op: BinaryOp, l: Typed, r: Typed): Typed => {
  if (op === '*' || op === '/' || op === '%' || op === '-') return { type: 'number', multiple: false };
  if (op === '+')
    return { type: l.type === 'number' && r.type === 'number' ? 'number' : 'string', multiple: false };
  if (op === '&') return { type: 'string', multiple: false };
  return { type: 'boolean', multiple: false };
};

const binaryRun = (op: BinaryOp, l: Compiled, r: Compiled, t: Typed): Run => {
  const num = (row: FormulaRow, ctx: EvalContext) =>
    [numberOperand(l.run(row, ctx), l.t, ctx), numberOperand(r.run(row, ctx), r.t, ctx)] as const;
  switch (op) {
    case '*':
      return (row, ctx) => {
        const [a, b] = num(row, ctx);
        return (a ?? 0) * (b ?? 0);
      };
    case '/':
    case '%':
      return (row, ctx) => {
        const [a, b] = num(row, ctx);
        if (!b) return null;
        return op === '/' ? (a ?? 0) / b : (a ?? 0) % b;
      };
    case '-':
      return (row, ctx) => {
        const [a, b] = num(row, ctx);
        return (a ?? 0) - (b ?? 0);
      };
    case '+':
      if (t.type === 'number')
        return (row, ctx) => {
          const [a, b] = num(row, ctx);
          return (a ?? 0) + (b ?? 0);
        };
      return (row, ctx) => textOperand(l, l.run(row, ctx), row) + textOperand(r, r.run(row, ctx), row);
    case '&':
      return (row, ctx) => textOperand(l, l.run(row, ctx), row) + textOperand(r, r.run(row, ctx), row);
    case '&&':
      return (row, ctx) => truthy(l.run(row, ctx)) && truthy(r.run(row, ctx));
    case '||':
      return (row, ctx) => truthy(l.run(row, ctx)) || truthy(r.run(row, ctx));
    case '=':
    case '!=':
      return (row, ctx) => looseEqual(l, r, l.run(row, ctx), r.run(row, ctx), row) === (op === '=');
    default: {
      const test: Record<string, (c: number) => boolean> = {
        '>': (c) => c > 0,
        '<': (c) => c < 0,
        '>=': (c) => c >= 0,
        '<=': (c) => c <= 0,
      };
      const holds = test[op] as (c: number) => boolean;
      return (row, ctx) => holds(order(l, r, l.run(row, ctx), r.run(row, ctx), row, ctx));
    }
  }
};

const callRun = (spec: FunctionSpec, args: Compiled[], types: Typed[], meter: Meter): Run => {
  const specs = args.map((_, i) => argSpec(spec, i));
  if (spec.lazy) {
    const lazy = spec.lazy;
    return (row, ctx) =>
      lazy(
        args.map((a, i) => () => prepare(a.run(row, ctx), a.t, specs[i] as ArgSpec, ctx, meter)),
        ctx,
        types,
      );
  }
  const evaluate = spec.evaluate;
  if (!evaluate) throw new Error(`function ${spec.name} has neither evaluate nor lazy`);
  return (row, ctx) =>
    evaluate(
      args.map((a, i) => prepare(a.run(row, ctx), a.t, specs[i] as ArgSpec, ctx, meter)),
      ctx,
      types,
    );
};

/**
 * Checks and compiles a tree against the table's fields; collects unknown field references. List
 * items handed to functions take steps from `meter`, the record's budget.
 */
const compileNode = (node: Node, fields: FieldTypes, missing: Set<string>, meter: Meter): Compiled => {
  switch (node.kind) {
    case 'text':
      return { t: { type: 'string', multiple: false }, run: () => node.value };
    case 'number':
      return { t: { type: 'number', multiple: false }, run: () => node.value };
    case 'boolean':
      return { t: { type: 'boolean', multiple: false }, run: () => node.value };
    case 'field': {
      const t = fields.typeOf(node.id);
      if (!t) missing.add(node.id);
      const id = node.id;
      return { t: t ?? { type: 'string', multiple: false }, run: (row) => row.value(id), field: id };
    }
    case 'negate': {
      const arg = compileNode(node.arg, fields, missing, meter);
      const t: Typed = { type: 'number', multiple: false };
      if (arg.t.type !== 'number') return { t, run: () => null };
      return {
        t,
        run: (row, ctx) => {
          const v = numberOperand(arg.run(row, ctx), arg.t, ctx);
          return v === null ? null : v === 0 ? 0 : -v;
        },
      };
    }
    case 'binary': {
      const l = compileNode(node.left, fields, missing, meter);
      const r = compileNode(node.right, fields, missing, meter);
      const t = binaryType(node.op, l.t, r.t);
      return { t, run: binaryRun(node.op, l, r, t) };
    }
    case 'call': {
      const spec = FUNCTIONS.get(node.name);
      if (!spec) throw new FormulaError(`Unknown function ${node.name}`);
      checkCount(spec, node.args.length);
      checkLiteralPatterns(spec, node);
      const args = node.args.map((a) => compileNode(a, fields, missing, meter));
      const types = args.map((a, i) => preparedType(a.t, argSpec(spec, i)));
      const result = spec.lazy ? spec.result(args.map((a) => a.t)) : spec.result(types);
      const run = callRun(spec, args, types, meter);
      // IF and SWITCH answer a branch's value in the type they infer: IF(c, 1, "a") is text "1"
      if (spec.lazy && result.type === 'string' && !result.multiple)
        return {
          t: result,
          run: (row, ctx) => {
            const v = run(row, ctx);
            return typeof v === 'number' || typeof v === 'boolean' ? plainText(v) : v;
          },
        };
      return { t: result, run };
    }
  }
};

/** A pattern given as a literal that the linear-time engine does not run is a 400 (patterns.ts). */
const checkLiteralPatterns = (spec: FunctionSpec, node: Extract<Node, { kind: 'call' }>): void => {
  if (spec.patternArg === undefined) return;
  const pattern = node.args[spec.patternArg];
  if (pattern?.kind !== 'text') return;
  const why = unsupportedPattern(pattern.value);
  if (why !== undefined) throw new FormulaError(`${spec.name}: the regular expression ${why}`);
};

/** A stored scalar of the result type (1.6): `IF(c, 1, "a")` stores `"1"`. */
const storedScalar = (value: Value, t: Typed): string | number | boolean | undefined => {
  if (value === null || Array.isArray(value)) return undefined;
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  if (value === false || value === '') return undefined;
  if (t.type === 'string') return plainText(value);
  if (t.type === 'number')
    return typeof value === 'number' ? value : typeof value === 'boolean' ? 1 : undefined;
  if (t.type === 'boolean') return truthy(value) ? true : undefined;
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : undefined;
};

/** The value to store for a result of type `t` (1.6). */
export const storedValue = (value: Value, t: Typed): StoredValue | undefined => {
  if (t.multiple) {
    const items = itemsOf(value)
      .map((v) => storedScalar(v, { type: t.type, multiple: false }))
      .filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (Array.isArray(value)) {
    if (t.type === 'string') {
      const items = itemsOf(value).filter((v) => v !== null);
      return storedScalar(items.map(plainText).join(', '), t);
    }
    return storedScalar(scalarOf(value), t);
  }
  return storedScalar(value, t);
};

/**
 * Parses, checks and compiles an expression for a table. A bad expression is a `FormulaError`
 * (syntax errors included) with the message of 2.1.
 */
export const compileFormula = (expression: string, fields: FieldTypes): CompiledFormula => {
  let tree: Node;
  try {
    tree = parseFormula(expression);
  } catch (e) {
    if (e instanceof FormulaSyntaxError) throw new FormulaError(e.message);
    throw e;
  }
  const missing = new Set<string>();
  const meter: Meter = { left: 0 };
  const compiled = compileNode(tree, fields, missing, meter);
  // each node runs at most once a record: its steps are known before the run
  const nodeSteps = nodeCount(tree);
  if (missing.size) throw new FormulaError(`formula field reference ${[...missing].join(', ')} not found`);
  const type: Typed = { type: compiled.t.type, multiple: compiled.t.multiple };
  return {
    type,
    refs: fieldRefsOf(tree),
    run(row, ctx) {
      try {
        meter.left = MAX_EVAL_STEPS - nodeSteps;
        return storedValue(compiled.run(row, ctx), type);
      } catch (e) {
        // an evaluation error empties the cell (1.6); so does any other failure of one
        // function on one value (a bad regex, an out-of-range date): the write still succeeds
        if (e instanceof FormulaEvalError || e instanceof Error) return undefined;
        throw e;
      }
    },
  };
};
