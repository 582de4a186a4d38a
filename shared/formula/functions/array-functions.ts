/**
 * The array functions of computed.md section 2: counting, joining and reshaping lists. Lists
 * arrive whole (nested one level deep at most); a single value counts as a list of itself.
 */
import { itemsOf, plainText } from '../convert.ts';
import { ANY_ITEMS, type FunctionSpec, single, TEXT, type Typed, type Value } from '../formula-types.ts';

const number = (): Typed => single('number');

/** The items of every argument, flattened one level. */
const allItems = (args: readonly Value[]): Value[] => args.flatMap((a) => itemsOf(a));

/** ARRAY_UNIQUE, FLATTEN, COMPACT: multiple, of the arguments' common type, else text. */
const listType = (types: readonly Typed[]): Typed => {
  const first = types[0]?.type ?? 'string';
  return { type: types.every((t) => t.type === first) ? first : 'string', multiple: true };
};

/** A list function: all items flattened, empties dropped, then `shape`; nothing left → empty. */
const reshaping = (name: string, shape: (items: Value[]) => Value[]): FunctionSpec => ({
  name,
  minArgs: 1,
  args: [ANY_ITEMS],
  result: listType,
  evaluate: (args, _ctx, types) => {
    let items = allItems(args).filter((v) => v !== null);
    // mixed types give a text list: compare and keep the items as their texts
    if (listType(types).type === 'string') items = items.map(plainText);
    const out = shape(items);
    return out.length ? out : null;
  },
});

export const ARRAY_FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'COUNTALL',
    minArgs: 1,
    exact: true,
    countMessage: 'COUNTALL needs 1 param',
    args: [ANY_ITEMS],
    result: number,
    evaluate: (args) => {
      const v = args[0] ?? null;
      if (v === null) return 0;
      return Array.isArray(v) ? itemsOf(v).length : 1;
    },
  },
  {
    name: 'COUNTA',
    minArgs: 1,
    args: [ANY_ITEMS],
    result: number,
    evaluate: (args) => allItems(args).filter((v) => v !== null && v !== '').length,
  },
  {
    name: 'COUNT',
    minArgs: 1,
    args: [ANY_ITEMS],
    result: number,
    // numbers only: texts (numeric ones too), dates (ISO texts) and booleans are not counted
    evaluate: (args) => allItems(args).filter((v) => typeof v === 'number' && !Number.isNaN(v)).length,
  },
  {
    name: 'ARRAY_JOIN',
    minArgs: 1,
    args: [{ accepts: ['string'], arrays: 'items' }, TEXT],
    result: () => single('string'),
    evaluate: (args) => {
      const v = args[0] ?? null;
      if (v === null) return null;
      const separator = typeof args[1] === 'string' ? args[1] : ', ';
      const items = itemsOf(v).filter((item) => item !== null);
      return items.length ? items.map(plainText).join(separator) : null;
    },
  },
  reshaping('ARRAY_UNIQUE', (items) => [...new Set(items)]), // a Set keeps first occurrences in order
  reshaping('ARRAY_FLATTEN', (items) => items),
  reshaping('ARRAY_COMPACT', (items) => items.filter((v) => v !== '')),
];
