import * as z from 'zod/mini';
import { PASSWORD_MAX_LENGTH, PASSWORD_RULE, PASSWORD_RULE_MESSAGE } from './passwords.ts';

/** A password as sign-in takes it: at least 8 characters (Teable's `passwordSchema`), at most 256. */
export const anyPassword = z.string().check(z.minLength(8), z.maxLength(PASSWORD_MAX_LENGTH));

/** A new password: Teable's rule too (a letter and a digit). */
export const newPassword = anyPassword.check(z.regex(PASSWORD_RULE, PASSWORD_RULE_MESSAGE));
