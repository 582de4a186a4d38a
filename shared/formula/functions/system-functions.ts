/**
 * The system functions of computed.md section 2: the record's id and auto number, and TEXT_ALL
 * (its argument as text, item by item when it is a list).
 */
import { type FunctionSpec, single } from '../formula-types.ts';

export const SYSTEM_FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'RECORD_ID',
    minArgs: 0,
    exact: true,
    args: [],
    result: () => single('string'),
    evaluate: (_args, ctx) => ctx.record.id,
  },
  {
    name: 'AUTO_NUMBER',
    minArgs: 0,
    exact: true,
    args: [],
    result: () => single('number'),
    evaluate: (_args, ctx) => ctx.record.autoNumber,
  },
  {
    name: 'TEXT_ALL',
    minArgs: 1,
    exact: true,
    // items converted to text by the evaluator (numbers plain, booleans true/false, dates ISO)
    args: [{ accepts: ['string'], arrays: 'items' }],
    result: (types) => ({ type: 'string', multiple: types[0]?.multiple ?? false }),
    evaluate: (args) => {
      const v = args[0] ?? null;
      return v === '' ? null : v;
    },
  },
];
