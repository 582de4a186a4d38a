import { keys } from '#shared/db/keys.ts';

/**
 * The partitions IAM conditions name (`dynamodb:LeadingKeys` in the stack's roles), as patterns
 * of the entities stored there: the stack learns the key formats from the data layer, not by
 * writing them.
 */
export const PARTITION_PATTERNS = {
  /** A user's partition: the user, their tokens and membership mirrors. */
  userPartition: keys.userPartitionPattern,
  /** The kept orders of listing queries (`entities/query-orders.ts`). */
  queryOrders: keys.queryOrderPartitionPattern,
  /** The asks for a listing order to be computed by the worker (`entities/query-computations.ts`). */
  queryComputationWants: keys.queryComputationWantPartitionPattern,
  /** The asks for a view's index to be built (`entities/view-indexes.ts`). */
  viewIndexWants: keys.viewIndexWantPartitionPattern,
  /** The export files handed to the worker (`entities/export-files.ts`). */
  exportFiles: keys.exportFilePartitionPattern,
  /** A user's password and sessions (`entities/passwords.ts`, `entities/sessions.ts`). */
  logins: keys.loginPartitionPattern,
  /** Failed sign-ins per email and address (`entities/sign-in-attempts.ts`). */
  signInAttempts: keys.signInAttemptsPartitionPattern,
  /** The purge and background jobs (`entities/jobs.ts`). */
  purgeJobs: keys.purgeJobPartition,
} as const;

/** The item attributes a session's touch writes: what every route may update in a login partition. */
export const SESSION_TOUCH_ATTRIBUTES = ['lastUsedTime', 'expiresAt', 'ttl'] as const;
