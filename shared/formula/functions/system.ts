import type { FunctionSpec } from '../types.ts';

/** The system functions of computed.md section 2. */
export const SYSTEM_FUNCTIONS: readonly FunctionSpec[] = [];
