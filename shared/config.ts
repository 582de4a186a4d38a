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
} as const;
