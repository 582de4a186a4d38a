import type { FunctionSpec } from '../types.ts';

/** The numeric functions of computed.md section 2. */
export const NUMERIC_FUNCTIONS: readonly FunctionSpec[] = [];
