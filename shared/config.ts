/**
 * Configuration read once from the environment; a missing required value fails at load.
 *
 * An empty variable counts as unset: the stack declares every variable on every function, empty
 * where the cloud needs no value (infra/lambda-environment.ts), so `sam local --env-vars` can set it.
 */
const optional = (value: string | undefined): string | undefined => value || undefined;

const required = (name: string, value: string | undefined): string => {
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
};

export const config = {
  tableName: required('TABLE_NAME', process.env.TABLE_NAME),
  stage: process.env.STAGE || 'local',
  /** Secrets Manager secret holding the JWT signing keys (cloud). */
  signingKeysSecretArn: optional(process.env.SIGNING_KEYS_SECRET_ARN),
  /** JSON file holding the JWT signing keys (local server, tests); read before the secret. */
  signingKeysFile: optional(process.env.SIGNING_KEYS_FILE),
  /** Issuer and audience of temporary tokens. */
  jwtIssuer: process.env.JWT_ISSUER || 'workspace-api',
  jwtAudience: process.env.JWT_AUDIENCE || 'workspace-api',
  /** SQS queue of the purge worker (cloud); unset, permanent deletes are purged in process. */
  purgeQueueUrl: optional(process.env.PURGE_QUEUE_URL),
  /** The management URL of the live WebSocket API's stage (cloud); unset, live runs in the local server. */
  liveCallbackUrl: optional(process.env.LIVE_CALLBACK_URL),
  /** The realtime socket's WebSocket API stage, where the stream processor posts ops (`https://…/socket`). */
  socketCallbackUrl: optional(process.env.SOCKET_CALLBACK_URL),
  /** The repair worker's Lambda (cloud), woken when a request hands it work; unset, wakes run in process. */
  repairWorkerFunction: optional(process.env.REPAIR_WORKER_FUNCTION),
  /** SQS queue of the webhook sender (cloud); unset, webhooks are delivered in process. */
  webhookQueueUrl: optional(process.env.WEBHOOK_QUEUE_URL),
  /** Delay before a purge starts, so writes that passed the permission check just before finish. */
  purgeDelaySeconds: Number(process.env.PURGE_DELAY_SECONDS || 0),
  /**
   * How an import tells how far the change capture is behind its writes where no local poller
   * reports it: `log` (a deployed stage's worker: by the base's change log, `shared/bulk/pacing.ts`);
   * unset, it does not wait (tests, scripts: no capture runs).
   */
  importPacesByLog: process.env.IMPORT_PACING === 'log',
  /** Days the change log keeps an entry (a per-stage setting, 1..365; 30 by default). */
  changeLogDays: Math.min(365, Math.max(1, Number(process.env.CHANGE_LOG_DAYS || 30) || 30)),
  /**
   * DynamoDB Local's endpoint (local server, tests, `sam local`); unset in the cloud. The SDK's own
   * name for it, so tools that set it for the SDK (`aws dynamodb`, the tests) set it here too.
   */
  dynamoDbEndpoint: optional(process.env.AWS_ENDPOINT_URL_DYNAMODB),
  /** The stage's attachments bucket; unset, attachment routes answer that files are not configured. */
  attachmentsBucket: optional(process.env.ATTACHMENTS_BUCKET),
  /** The local S3-compatible server's endpoint (local server, tests); unset in the cloud. The SDK's own name. */
  s3Endpoint: optional(process.env.AWS_ENDPOINT_URL_S3),
  /** Largest file an upload may be, in bytes (data-flow.md 6: 100 MB by default). */
  attachmentMaxBytes: Math.max(
    1,
    Number(process.env.ATTACHMENT_MAX_BYTES || 100 * 1024 * 1024) || 100 * 1024 * 1024,
  ),
  /** Session cookies carry `Secure` (every deployed stage: the stack sets it). */
  secureCookies: process.env.COOKIE_SECURE === 'true',
  /**
   * The web app's origins besides the request's own (a stage's `webOrigin`): a cookie-carried
   * write from anywhere else is refused. Comma-separated.
   */
  webOrigins: (process.env.WEB_ORIGIN ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean),
  /** Who may sign up with `POST /auth/signup`: anyone (`open`, `npm start`) or no one (`closed`, the default). */
  signup: process.env.SIGNUP === 'open' ? 'open' : 'closed',
} as const;
