import type { FunctionSpec } from '../types.ts';

/** The logical functions of computed.md section 2. */
export const LOGICAL_FUNCTIONS: readonly FunctionSpec[] = [];
