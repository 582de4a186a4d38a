import type { FunctionSpec } from '../types.ts';

/** The array functions of computed.md section 2. */
export const ARRAY_FUNCTIONS: readonly FunctionSpec[] = [];
