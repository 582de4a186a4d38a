/** One issue of a validation error, `{path, message}` as the contract's `details`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** The contract's error body. */
export interface ErrorBody {
  message: string;
  status: number;
  code: string;
  /** The request's id, as in its `X-Request-Id` header: what to quote when reporting a fault. */
  requestId?: string;
  details?: ErrorDetail[];
}

/** Base of every error the API answers on purpose; it serialises itself to the contract's body. */
export class HttpError extends Error {
  readonly headers: Record<string, string> = {};

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }

  toBody(requestId?: string): ErrorBody {
    return {
      message: this.message,
      status: this.status,
      code: this.code,
      ...(requestId === undefined ? {} : { requestId }),
      ...(this.details?.length ? { details: this.details } : {}),
    };
  }
}

export class ValidationError extends HttpError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'validation_error', message, details);
  }
}

export class UnauthorizedError extends HttpError {
  /** `reason` goes to the log only; the caller always sees the same body. */
  constructor(readonly reason: string) {
    super(401, 'unauthorized', 'Sign in, or send a valid bearer token');
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'not allowed to operate on this resource') {
    super(403, 'restricted_resource', message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class MethodNotAllowedError extends HttpError {
  /** `allowed`: the methods the path takes, answered in `Allow`. */
  constructor(method: string, path: string, allowed: readonly string[]) {
    super(405, 'method_not_allowed', `${path} does not take ${method}; it takes ${allowed.join(', ')}`);
    this.headers.allow = allowed.join(', ');
  }
}

export class ConflictError extends HttpError {
  /** `code`: `conflict`, or a more precise one (`limit_exceeded`: a limit on how many there may be). */
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

/** A request well formed that the data makes impossible to apply (an upsert key matching two records). */
export class UnprocessableError extends HttpError {
  constructor(code: string, message: string, details?: ErrorDetail[]) {
    super(422, code, message, details);
  }
}

/** Something that was there is gone for good (a change-feed cursor older than the retention). */
export class GoneError extends HttpError {
  constructor(code: string, message: string) {
    super(410, code, message);
  }
}

export class PreconditionFailedError extends HttpError {
  constructor(message = 'The resource changed since the given ETag') {
    super(412, 'precondition_failed', message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

/** The request line alone is over API Gateway's limit (the local server plays the gateway). */
export class UriTooLongError extends HttpError {
  constructor(message: string) {
    super(414, 'uri_too_long', message);
  }
}

/** The request line and headers together are over API Gateway's limit. */
export class RequestHeaderFieldsTooLargeError extends HttpError {
  constructor(message: string) {
    super(431, 'request_header_fields_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message = 'The body must be JSON (Content-Type: application/json)') {
    super(415, 'unsupported_media_type', message);
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'too_many_requests', message);
    this.headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(
    message = 'The database is busy or unreachable; nothing was written, retry later',
    retryAfterSeconds = 1,
  ) {
    super(503, 'service_unavailable', message);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

/**
 * A write was sent but not confirmed (a timeout or a broken connection after sending, or the
 * request's deadline while a write was under way): it may or may not have been made. Never
 * "nothing was written".
 */
export class OutcomeUnknownError extends HttpError {
  constructor(
    message = 'The database did not confirm the write in time: it may or may not have been made. Read the resource before retrying',
    retryAfterSeconds = 1,
  ) {
    super(504, 'outcome_unknown', message);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

/**
 * A write larger than one transaction ran out of time part-way: what it wrote is undone by the
 * repair worker (`shared/db/commit.ts`) within `retryAfterSeconds`, after which a retry is safe.
 */
export class WriteInterruptedError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(
      504,
      'write_interrupted',
      `The request ran out of time while writing: what it wrote so far is being undone (within ${retryAfterSeconds} s); retry after that (with the same Idempotency-Key if you sent one)`,
    );
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

export class InternalServerError extends HttpError {
  constructor() {
    super(500, 'internal_server_error', 'Internal server error');
  }
}
