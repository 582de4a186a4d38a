/** Every function of the formula language, by upper-case name (computed.md section 2). */
import type { FunctionSpec } from '../formula-types.ts';
import { ARRAY_FUNCTIONS } from './array-functions.ts';
import { DATETIME_FUNCTIONS } from './datetime-functions.ts';
import { LOGICAL_FUNCTIONS } from './logical-functions.ts';
import { NUMERIC_FUNCTIONS } from './numeric-functions.ts';
import { SYSTEM_FUNCTIONS } from './system-functions.ts';
import { TEXT_FUNCTIONS } from './text-functions.ts';

export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map(
  [
    ...NUMERIC_FUNCTIONS,
    ...TEXT_FUNCTIONS,
    ...LOGICAL_FUNCTIONS,
    ...DATETIME_FUNCTIONS,
    ...ARRAY_FUNCTIONS,
    ...SYSTEM_FUNCTIONS,
  ].map((f) => [f.name, f]),
);
