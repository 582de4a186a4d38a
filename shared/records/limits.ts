import { PayloadTooLargeError } from '#shared/http/errors.ts';

/** Records one call may write (endpoints.md: 1..1000; auth-errors.md: more is a 413). */
export const MAX_RECORDS_PER_CALL = 1000;

/** More than 1000 records in one call is a 413. */
export const assertBatchSize = (count: number): void => {
  if (count > MAX_RECORDS_PER_CALL)
    throw new PayloadTooLargeError(`At most ${MAX_RECORDS_PER_CALL} records per call`);
};
