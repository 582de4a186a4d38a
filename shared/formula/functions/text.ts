import type { FunctionSpec } from '../types.ts';

/** The text functions of computed.md section 2. */
export const TEXT_FUNCTIONS: readonly FunctionSpec[] = [];
