/** Configuration read once from the environment; a missing required value fails at load. */
const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
};

export const config = {
  tableName: required('TABLE_NAME'),
  stage: process.env.STAGE ?? 'local',
  /** Secrets Manager secret holding the JWT signing keys (cloud). */
  signingKeysSecretArn: process.env.SIGNING_KEYS_SECRET_ARN,
  /** JSON file holding the JWT signing keys (local server, tests). */
  signingKeysFile: process.env.SIGNING_KEYS_FILE,
  /** Issuer and audience of temporary tokens. */
  jwtIssuer: process.env.JWT_ISSUER ?? 'workspace-api',
  jwtAudience: process.env.JWT_AUDIENCE ?? 'workspace-api',
  /** SQS queue of the purge worker (cloud); unset, permanent deletes are purged in process. */
  purgeQueueUrl: process.env.PURGE_QUEUE_URL,
  /** Delay before a purge starts, so writes that passed the permission check just before finish. */
  purgeDelaySeconds: Number(process.env.PURGE_DELAY_SECONDS ?? 0),
} as const;
