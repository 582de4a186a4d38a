import type { FunctionSpec } from '../types.ts';

/** The datetime functions of computed.md section 2. */
export const DATETIME_FUNCTIONS: readonly FunctionSpec[] = [];
