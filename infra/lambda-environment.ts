import { BUNDLE_ENVIRONMENT } from './bundling.ts';

/**
 * Every environment variable a Lambda of the stack may read: the code's own (each
 * `process.env.NAME` in shared/ and functions/; test/unit/sam-local.test.ts fails on one missing
 * here) and what the libraries and the runtime read.
 *
 * Every function declares all of them, empty where it needs no value: `sam local` hands a function
 * only the variables its template declares, so a variable left out could not be set with
 * `--env-vars`. The code reads an empty variable as unset (shared/config.ts).
 */
export const LAMBDA_ENV_VARS = [
  'TABLE_NAME',
  'STAGE',
  'SIGNING_KEYS_SECRET_ARN',
  'SIGNING_KEYS_FILE',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'MAIL_FROM',
  'LOCAL_OUTBOX_DIR',
  'PURGE_QUEUE_URL',
  'PURGE_DELAY_SECONDS',
  'WEBHOOK_QUEUE_URL',
  'REPAIR_WORKER_FUNCTION',
  'LIVE_CALLBACK_URL',
  'SOCKET_CALLBACK_URL',
  'CHANGE_LOG_DAYS',
  'IMPORT_PACING',
  'ATTACHMENTS_BUCKET',
  'ATTACHMENT_MAX_BYTES',
  'COOKIE_SECURE',
  'WEB_ORIGIN',
  'SIGNUP',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_S3',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_LOG_LEVEL',
  'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
  'NODE_OPTIONS',
] as const;

export type LambdaEnvVar = (typeof LAMBDA_ENV_VARS)[number];

/**
 * Variables the Lambda runtime sets itself (its reserved names: a function may not declare them,
 * and `sam local` sets them too). Code may read them without a place in `LAMBDA_ENV_VARS`.
 */
export const LAMBDA_RUNTIME_ENV_VARS = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
] as const;

/**
 * Variables only a local run sets (`npm start`, the tests, `sam local`): empty on every function
 * of the stack. Set, they point the code at DynamoDB Local, a keys file and an outbox folder.
 */
export const LOCAL_ONLY_ENV_VARS = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_S3',
  'SIGNING_KEYS_FILE',
  'LOCAL_OUTBOX_DIR',
] as const satisfies readonly LambdaEnvVar[];

type LocalOnly = (typeof LOCAL_ONLY_ENV_VARS)[number];

/** The same on every function: the Powertools service name, the SDK notice off, source maps. */
const FIXED = {
  POWERTOOLS_SERVICE_NAME: 'workspace-api',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  ...BUNDLE_ENVIRONMENT,
} as const satisfies Partial<Record<LambdaEnvVar, string>>;

/** What a function sets itself: neither a local-only variable nor a fixed one. */
export type FunctionEnvironment = Partial<
  Record<Exclude<LambdaEnvVar, LocalOnly | keyof typeof FIXED>, string>
>;

/** The `environment` of a function: every variable of `LAMBDA_ENV_VARS`, `values` where given, else empty. */
export const lambdaEnvironment = (values: FunctionEnvironment): Record<LambdaEnvVar, string> => {
  const given: Partial<Record<LambdaEnvVar, string>> = { ...FIXED, ...values };
  return Object.fromEntries(LAMBDA_ENV_VARS.map((name) => [name, given[name] ?? ''])) as Record<
    LambdaEnvVar,
    string
  >;
};
