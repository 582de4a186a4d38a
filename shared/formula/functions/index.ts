/** Every function of the formula language, by upper-case name (computed.md section 2). */
import type { FunctionSpec } from '../types.ts';
import { ARRAY_FUNCTIONS } from './array.ts';
import { DATETIME_FUNCTIONS } from './datetime.ts';
import { LOGICAL_FUNCTIONS } from './logical.ts';
import { NUMERIC_FUNCTIONS } from './numeric.ts';
import { SYSTEM_FUNCTIONS } from './system.ts';
import { TEXT_FUNCTIONS } from './text.ts';

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
