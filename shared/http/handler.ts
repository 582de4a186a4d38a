import { gzipSync } from 'node:zlib';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { output } from 'zod/v4/core';
import {
  type Credential,
  credentialKeys,
  credentialToTouch,
  principalFrom,
  readCredential,
} from '#shared/auth/authenticate.ts';
import { checkNodeDelete, nodeKeys } from '#shared/auth/node-access.ts';
import { checkAccess, checkScopes, type Principal } from '#shared/auth/permission.ts';
import { type Located, locate, type ResourceRef, resourceKeys } from '#shared/auth/resources.ts';
import { checkSameOrigin, ownHostOf } from '#shared/auth/same-origin.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import { ADMIN_SCOPE } from '#shared/auth/scopes.ts';
import { sessionCookieIn } from '#shared/auth/session-cookie.ts';
import { type LocatedTrashItem, locateTrashItem, trashItemKeys } from '#shared/auth/trash-access.ts';
import { config } from '#shared/config.ts';
import {
  ForbiddenError,
  HttpError,
  InternalServerError,
  NotFoundError,
  OutcomeUnknownError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  WriteInterruptedError,
} from '#shared/core/errors.ts';
import { logger, withLogContext } from '#shared/core/logger.ts';
import { checkJsonBody, parseInput, type Schema } from '#shared/core/validation.ts';
import { REPAIR_WITHIN_SECONDS } from '#shared/db/commit.ts';
import { callSummary, resetCalls } from '#shared/db/metrics.ts';
import {
  noteActor,
  type RequestScope,
  requestScope,
  requestWrites,
  withRequestScope,
} from '#shared/db/request-scope.ts';
import { tracer } from '#shared/db/tracer.ts';
import {
  type ItemKey,
  keepForRequest,
  type Loaded,
  type Lookup,
  readBatch,
  readMore,
} from '#shared/entities/batch-read.ts';
import type { Organization } from '#shared/entities/organizations.ts';
import { pushUndo } from '#shared/entities/undo-stacks.ts';
import { checkOrganization, organizationKeys } from '#shared/organizations/organizations.ts';
import {
  type HandlerName,
  type ResourceDecl,
  type ResourceKindOf,
  type RouteDef,
  type RouteNamed,
  resourceOf,
  routeOf,
} from '#shared/routes.ts';
import { foreignTableKeys, loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { touchAccessToken } from '#shared/users/access-tokens.ts';
import { renewSession } from '#shared/users/sessions.ts';
import { withIdempotency } from './idempotency.ts';
import { parseQueryString } from './query-string.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { publishRequestMetrics } from './request-metrics.ts';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

/** Lambda's synchronous payload limit; a larger body is a 413. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

/**
 * A success answer with a status or headers other than the route's defaults; `raw`: the body is
 * text answered as it is (its `content-type` among the headers), not JSON.
 */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly init: {
      status?: number;
      headers?: Record<string, string>;
      raw?: boolean;
      cookies?: string[];
    } = {},
  ) {}
}

type Out<S> = S extends Schema ? output<S> : undefined;

export interface Input<P, Q, B> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
}

/** The resource reference a route's declaration names in a validated input. */
export const resourceRefOf = (
  decl: ResourceDecl,
  input: Input<unknown, unknown, unknown>,
): { id: string } => {
  const id = resourceIdIn(decl, input);
  if (id === undefined)
    throw new Error(`resource ${decl.param} missing from validated ${decl.in ?? 'params'}`);
  return { id };
};

/** The declared resource's id in the validated input, if it names one (an `optional` one may be left out). */
const resourceIdIn = (decl: ResourceDecl, input: Input<unknown, unknown, unknown>): string | undefined => {
  const id = (input[decl.in ?? 'params'] as Record<string, unknown> | undefined)?.[decl.param];
  return typeof id === 'string' ? id : undefined;
};

export interface HandlerSpec<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
> {
  params?: P;
  query?: Q;
  body?: B;
  /** Further items to read in the same call as authentication (saves a round trip). */
  preload?: (userId: string, input: Input<P, Q, B>) => (Lookup<unknown> | ItemKey)[];
  /** Honour `Idempotency-Key`: a repeat with the same body answers the first answer (24 h). */
  idempotent?: boolean;
}

type Kind<N extends HandlerName> = ResourceKindOf<RouteNamed<N>>;

/** What a handler's function receives. */
export interface Request<P, Q, B, N extends HandlerName> extends Input<P, Q, B> {
  principal: Principal;
  /**
   * The route's resource (`resourceOf` in the route table), found and checked: a space, base or
   * table located in its space, or the organization; undefined for routes on none.
   */
  resource: Kind<N> extends 'organization'
    ? Organization
    : Kind<N> extends 'trashItem'
      ? LocatedTrashItem
      : Kind<N> extends undefined
        ? undefined
        : Located;
  /** The table's schema, for routes that declare `schema: true`. */
  schema: RouteNamed<N> extends { schema: true } ? TableSchema : undefined;
  /** Items read with authentication (`spec.preload`); entity modules read their values from it. */
  loaded: Loaded;
  headers: Record<string, string | undefined>;
  /** The request's body as bytes (a route with no body schema that takes a file). */
  rawBody: () => Buffer;
  requestId: string;
  route: RouteDef;
}

/** The items to read with authentication for a route's resource. */
const declaredKeys = (
  decl: ResourceDecl,
  input: Input<unknown, unknown, unknown>,
  userId: string,
): (Lookup<unknown> | ItemKey)[] => {
  const { id } = resourceRefOf(decl, input);
  if (decl.kind === 'organization') return organizationKeys(id);
  if (decl.kind === 'trashItem') return trashItemKeys(id);
  const ref = locatedRefOf(decl, input);
  return [...resourceKeys(ref, userId), ...(decl.kind === 'node' ? nodeKeys(ref.id, id) : [])];
};

/**
 * The space, base or table a route's resource is located as: itself, or for a node route the
 * base of its path (the chain then checks the node's delete right, `checkNodeDelete`).
 */
const locatedRefOf = (decl: ResourceDecl, input: Input<unknown, unknown, unknown>): ResourceRef => {
  if (decl.kind === 'node')
    return { kind: 'base', ...resourceRefOf({ kind: 'base', param: 'baseId' }, input) };
  if (decl.kind === 'organization' || decl.kind === 'trashItem')
    throw new Error(`a ${decl.kind} is not located as a space, base or table`);
  return { kind: decl.kind, ...resourceRefOf(decl, input), includeTrashed: decl.includeTrashed };
};

const decodeBody = (event: Event): string | undefined => {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
};

const bodyBytes = (event: Event): number =>
  event.body
    ? event.isBase64Encoded
      ? Math.floor((event.body.length * 3) / 4)
      : Buffer.byteLength(event.body)
    : 0;

/** Reads and validates path, query and body; every failure is a 400, 413 or 415. */
export const readInput = <
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
>(
  event: Event,
  spec: Pick<HandlerSpec<P, Q, B>, 'params' | 'query' | 'body'>,
): Input<P, Q, B> => {
  if (bodyBytes(event) > MAX_BODY_BYTES)
    throw new PayloadTooLargeError('The request body is larger than 6 MB');
  const params = spec.params ? parseInput(spec.params, event.pathParameters ?? {}, 'path') : undefined;
  const query = spec.query
    ? parseInput(spec.query, parseQueryString(event.rawQueryString), 'query')
    : undefined;
  let body: unknown;
  if (spec.body) {
    const text = decodeBody(event);
    if (text === undefined || text.trim() === '') body = {};
    else {
      const type = event.headers?.['content-type'] ?? '';
      if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) throw new UnsupportedMediaTypeError();
      try {
        body = JSON.parse(text);
      } catch {
        throw new ValidationError('The body is not valid JSON');
      }
      checkJsonBody(body);
    }
    body = parseInput(spec.body, body, 'body');
  }
  return { params, query, body } as Input<P, Q, B>;
};

/** A JSON answer; one with no body says no content type (the API description promises no content). */
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Result =>
  body === undefined
    ? { statusCode: status, headers: { ...headers }, body: '' }
    : {
        statusCode: status,
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
        body: JSON.stringify(body),
      };

/** Bodies above this size are gzipped when the caller accepts it (smaller ones gain little). */
export const GZIP_THRESHOLD_BYTES = 8 * 1024;
/**
 * Largest body a Lambda behind API Gateway may answer: the 6 MB invocation payload limit less
 * room for the status and headers of the payload's JSON envelope.
 */
export const MAX_RESPONSE_BYTES = 6 * 1024 * 1024 - 16 * 1024;

const acceptsGzip = (header: string | undefined): boolean =>
  !!header &&
  header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });

// Ours, not @middy/http-content-encoding: the size check after compression (a 413 rather than a
// failed invocation over 6 MB) is the point, and gzip is the one encoding clients here ask for.
/**
 * Makes a success response fit Lambda's limits: gzipped (base64, `Content-Encoding: gzip`) when the
 * caller accepts it and the body is above the threshold; a body still over the limit becomes a 413
 * telling the caller to ask for less (never a truncated or failed response).
 */
export const fitResponse = (
  result: Result,
  acceptEncoding: string | undefined,
  requestId?: string,
): Result => {
  const body = result.body ?? '';
  let out = result;
  if (acceptsGzip(acceptEncoding) && Buffer.byteLength(body) > GZIP_THRESHOLD_BYTES) {
    out = {
      ...result,
      headers: { ...result.headers, 'content-encoding': 'gzip', vary: 'accept-encoding' },
      body: gzipSync(body).toString('base64'),
      isBase64Encoded: true,
    };
  }
  const size = out.isBase64Encoded ? (out.body ?? '').length : Buffer.byteLength(out.body ?? '');
  if (size > MAX_RESPONSE_BYTES)
    return errorResponse(
      new PayloadTooLargeError(
        `The answer is larger than the 6 MB a response may carry${out.isBase64Encoded ? ' even compressed' : ''}; lower \`take\` (or ask for fewer fields with \`projection\`${out.isBase64Encoded ? '' : ', or send Accept-Encoding: gzip'})`,
      ),
      requestId,
    );
  return out;
};

// Ours, not @middy/http-error-handler: the contract's body (code, requestId, details) and the
// 503/504 deadline answers, which that handler does not know.
/**
 * Turns any error into the contract's error response, with the request's id in the body and the
 * `X-Request-Id` header when given; unexpected errors are logged in full.
 */
export const errorResponse = (error: unknown, requestId?: string): Result => {
  const idHeader: Record<string, string> = requestId === undefined ? {} : { [REQUEST_ID_HEADER]: requestId };
  // a known refusal or service error is told on the request's one log line (`logRequest`)
  if (error instanceof HttpError)
    return json(error.status, error.toBody(requestId), { ...error.headers, ...idHeader });
  logger.error('unexpected error', error as Error);
  return json(500, new InternalServerError().toBody(requestId), idHeader);
};

/**
 * Builds a route's Lambda handler: the one middy chain (context logging, header normalisation,
 * authentication, input validation, the permission check, response building, errors) around a
 * function of `shared/`. The route's actions and success status come from the route table.
 */
export const defineHandler = <
  N extends HandlerName,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(
  name: N,
  spec: HandlerSpec<P, Q, B>,
  run: (request: Request<P, Q, B, N>) => Promise<unknown>,
) => {
  const route = routeOf(name);
  if (route.auth === 'none') throw new Error(`${name} is a public route: define it with definePublicHandler`);
  if (route.auth === 'password')
    throw new Error(`${name} is a sign-in route: define it with definePasswordHandler`);
  const routeDecl = resourceOf(route);

  const core = async (event: Event, context: Context): Promise<Result> => {
    const credential: Credential = await readCredential(event.headers?.authorization, event.cookies);
    let input: Input<P, Q, B> | undefined;
    let inputError: unknown;
    try {
      input = readInput(event, spec);
    } catch (error) {
      inputError = error;
    }
    // an optional resource the request does not name: the route acts on the caller's own things
    const decl =
      routeDecl?.optional && input && resourceIdIn(routeDecl, input) === undefined ? undefined : routeDecl;
    // One strongly consistent batch: the token, its user, the resource and the route's extras, and
    // the tables a cached schema links to (a record route then reads no foreign schema).
    const userId = credential.userId;
    const foreignKeys =
      input && decl?.kind === 'table' && route.schema ? foreignTableKeys(resourceRefOf(decl, input).id) : [];
    let loaded = await readBatch([
      ...credentialKeys(credential),
      ...(input && decl ? declaredKeys(decl, input, userId) : []),
      ...foreignKeys,
      ...(input && spec.preload ? spec.preload(userId, input) : []),
    ]);
    keepForRequest(loaded, foreignKeys);
    const principal = principalFrom(credential, loaded);
    noteActor(principal.userId);
    // a cookie rides along on any request the browser makes: a write must come from our own pages
    if (credential.kind === 'session')
      checkSameOrigin(
        event.requestContext?.http?.method ?? route.method,
        event.headers ?? {},
        ownHostOf(event.headers ?? {}, event.requestContext?.domainName),
        config.webOrigins,
      );
    // After principalFrom: a temporary token whose parent is gone is a 401 here too, not a 403.
    if (route.auth === 'personal' && credential.kind === 'temporary')
      throw new ForbiddenError(
        'a temporary token cannot be used for this route; use a personal access token',
      );
    // An admin route needs the user's flag (read now) as well as the `instance|admin` scope (below).
    if (route.actions.includes(ADMIN_SCOPE) && !principal.isAdmin)
      throw new ForbiddenError('only an instance admin may do this');
    if (inputError || !input) throw inputError;
    let resource: Located | Organization | LocatedTrashItem | undefined;
    let schema: TableSchema | undefined;
    if (decl?.kind === 'organization') {
      checkScopes(principal, route.actions);
      resource = checkOrganization(principal, loaded, resourceRefOf(decl, input).id, route.actions);
    } else if (decl?.kind === 'trashItem') {
      checkScopes(principal, route.actions);
      resource = await locateTrashItem(principal, loaded, resourceRefOf(decl, input).id);
    } else if (decl) {
      const ref = locatedRefOf(decl, input);
      const found = await locateReading(ref, userId, loaded);
      loaded = found.loaded;
      resource = found.located;
      checkAccess({ principal, resource: found.located, role: found.located.role, actions: route.actions });
      if (decl.kind === 'node')
        checkNodeDelete(principal, found.located, loaded, resourceRefOf(decl, input).id);
      if (route.schema) schema = await loadSchema(ref.id, found.located.table);
    } else checkScopes(principal, route.actions);

    const request = {
      ...input,
      principal,
      resource: resource as Request<P, Q, B, N>['resource'],
      schema: schema as Request<P, Q, B, N>['schema'],
      loaded,
      headers: event.headers ?? {},
      rawBody: () =>
        event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0),
      requestId: requestIdOf(event, context),
      route,
    };
    const answer = async (): Promise<{
      status: number;
      body: unknown;
      headers?: Record<string, string>;
      raw?: boolean;
      cookies?: string[];
    }> => {
      const startedAt = new Date().toISOString();
      const result = await run(request);
      if (route.undoable && decl?.kind === 'table')
        await rememberForUndo(
          principal.userId,
          (resource as Located).id,
          event.headers?.['x-window-id'],
          startedAt,
        );
      return result instanceof Reply
        ? {
            status: result.init.status ?? route.status ?? 200,
            body: result.body,
            headers: result.init.headers,
            ...(result.init.raw ? { raw: true } : {}),
            ...(result.init.cookies ? { cookies: result.init.cookies } : {}),
          }
        : { status: route.status ?? 200, body: result };
    };
    const idempotencyKey = spec.idempotent ? event.headers?.['idempotency-key'] : undefined;
    const [out, renewed] = await Promise.all([
      idempotencyKey !== undefined
        ? withIdempotency(
            principal.userId,
            route.handler,
            idempotencyKey,
            input.body,
            answer,
            decl?.kind === 'table' ? (resource as Located).id : undefined,
          )
        : answer(),
      touchCredential(credential, principal, loaded, event.cookies),
    ]);
    const headers = 'headers' in out ? (out.headers as Record<string, string> | undefined) : undefined;
    const fitted = fitResponse(
      'raw' in out && out.raw
        ? { statusCode: out.status, headers: { ...headers }, body: String(out.body ?? '') }
        : json(out.status, out.body, headers),
      event.headers?.['accept-encoding'],
      request.requestId,
    );
    // the route's own cookies (sign-out, a password change) win over a renewal of the old session
    const cookies = ('cookies' in out ? (out.cookies as string[] | undefined) : undefined) ?? renewed;
    return cookies?.length ? { ...fitted, cookies } : fitted;
  };

  // the input schemas, for the API description (`infra/openapi.ts`)
  return Object.assign(chainOf(route, core), { spec: spec as HandlerSpec<Schema, Schema, Schema> });
};

/** A window id as Teable's web app makes them: letters, digits, `-` and `_`, 100 at most. */
const WINDOW_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * After a write of an undoable route made with `X-Window-Id` that wrote something: the request
 * onto the caller's undo stack for the table and window. A failure here never fails the write
 * (the write stands; it is only not on the stack).
 */
const rememberForUndo = async (userId: string, tableId: string, windowId: string | undefined, at: string) => {
  const { tx, sent } = requestWrites();
  if (!windowId || !WINDOW_ID.test(windowId) || !tx || sent === 0) return;
  // the stack alone (entities/undo-stacks.ts): the undo itself is not in every route's bundle
  await pushUndo(userId, tableId, windowId, { tx, at }).catch((error: unknown) =>
    logger.warn('write not put on the undo stack', { error: error as Error }),
  );
};

/**
 * Records a token's use, or slides a session's expiry forward and answers its renewed cookie (at
 * most hourly: `credentialToTouch`). A failure here never fails the request.
 */
const touchCredential = async (
  credential: Credential,
  principal: Principal,
  loaded: Loaded,
  cookies: readonly string[] | undefined,
): Promise<string[] | undefined> => {
  if (!credentialToTouch(credential, loaded)) return undefined;
  if (credential.kind === 'session') {
    const value = sessionCookieIn(cookies);
    return value === undefined ? undefined : renewSession(principal, value).catch(() => undefined);
  }
  await touchAccessToken(credential.userId, credential.tokenId).catch(() => undefined);
  return undefined;
};

/**
 * Builds the Lambda handler of a public route (`auth: 'none'` in the route table): the same chain
 * (logging, request id, errors) with no token, no input and no database read.
 */
export const definePublicHandler = <N extends HandlerName>(
  name: RouteNamed<N> extends { auth: 'none' } ? N : never,
  run: (params: Readonly<Record<string, string | undefined>>) => unknown,
) => {
  const route = routeOf(name);
  if (route.auth !== 'none') throw new Error(`${name} needs a token: define it with defineHandler`);
  const core = async (event: Event): Promise<Result> => {
    const out = await run(event.pathParameters ?? {});
    const result =
      out instanceof TextReply
        ? {
            statusCode: route.status ?? 200,
            headers: {
              'content-type': out.contentType,
              'cache-control': `public, max-age=${out.maxAgeSeconds}`,
            },
            body: out.body,
          }
        : json(route.status ?? 200, out);
    return fitResponse(result, event.headers?.['accept-encoding']);
  };
  return chainOf(route, core);
};

/**
 * Builds the Lambda handler of a sign-in route (`auth: 'password'`): no credential, a validated
 * body, the client's address (guesses are counted by it) and the same chain. A browser's foreign
 * `Origin` is refused (a cross-site form must not sign anyone in); scripts send none.
 */
export const definePasswordHandler = <N extends HandlerName, B extends Schema>(
  name: RouteNamed<N> extends { auth: 'password' } ? N : never,
  spec: { body: B },
  run: (request: { body: Out<B>; address: string; requestId: string }) => Promise<Reply>,
) => {
  const route = routeOf(name);
  if (route.auth !== 'password') throw new Error(`${name} is not a sign-in route`);
  const core = async (event: Event, context: Context): Promise<Result> => {
    const { body } = readInput(event, spec);
    if (event.headers?.origin)
      checkSameOrigin(
        route.method,
        event.headers,
        ownHostOf(event.headers, event.requestContext?.domainName),
        config.webOrigins,
      );
    const requestId = requestIdOf(event, context);
    const out = await run({ body, address: event.requestContext?.http?.sourceIp ?? 'unknown', requestId });
    const result = json(out.init.status ?? route.status ?? 200, out.body, out.init.headers);
    return { ...result, ...(out.init.cookies?.length ? { cookies: out.init.cookies } : {}) };
  };
  return Object.assign(chainOf(route, core), {
    spec: spec as unknown as HandlerSpec<Schema, Schema, Schema>,
  });
};

/** A public route's answer that is not JSON (the docs page and its assets): text of a type, cacheable. */
export class TextReply {
  constructor(
    readonly body: string,
    readonly contentType: string,
    readonly maxAgeSeconds = 0,
  ) {}
}

/**
 * The middy chain around a route's core: context logging, header normalisation, the request id
 * (logged, and on every answer as `X-Request-Id`), the request log line, errors, the deadline.
 */
const chainOf = (route: RouteDef, core: (event: Event, context: Context) => Promise<Result>) => {
  // A request about to pass the Lambda's time limit is answered with the truth, never a bare 500.
  const chain = middy<Event, Result, Error, Context>({
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
    timeoutEarlyResponse: () => {
      throw deadlineError(requestScope());
    },
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    // answers are not copied into the trace: they can be large and hold users' data
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(httpHeaderNormalizer())
    .use({
      before: (request) => {
        resetCalls();
        (request.internal as Record<string, number>).started = performance.now();
      },
      after: (request) => {
        if (request.response)
          request.response.headers = {
            ...request.response.headers,
            [REQUEST_ID_HEADER]: requestIdOf(request.event, request.context),
          };
        logRequest(route, request.response?.statusCode, request.internal);
      },
      onError: (request) => {
        request.response = errorResponse(request.error, requestIdOf(request.event, request.context));
        logRequest(route, request.response.statusCode, request.internal, request.error);
      },
    })
    .handler(core);
  // Every invocation runs in its own request scope: the data layer reads its deadline and notes its writes.
  // Its log keys live in the async context, so requests served at once (locally) keep their own.
  return (event: Event, context: Context): Promise<Result> =>
    withLogContext(
      {
        route: `${route.method} ${route.path}`,
        method: event.requestContext?.http?.method ?? route.method,
        path: event.rawPath,
        requestId: requestIdOf(event, context),
        apiRequestId: event.requestContext?.requestId,
      },
      () =>
        withRequestScope(
          context.getRemainingTimeInMillis() - TIMEOUT_EARLY_MS,
          () => chain(event, context),
          requestIdOf(event, context),
        ),
    );
};

/** How long before the Lambda's own time limit the chain answers. */
const TIMEOUT_EARLY_MS = 250;

/**
 * The answer at the deadline, by what the request had sent: nothing written yet is a 503 (retry
 * is safe; the message says why the request ran long when it noted a reason); a journaled write
 * under way is a 504 `write_interrupted` (the repair worker finishes or undoes it); any other
 * write sent is a 504 `outcome_unknown`.
 */
export const deadlineError = (
  scope: Pick<RequestScope, 'writesSent' | 'openWrites' | 'slowBecause'> | undefined,
): HttpError => {
  if (scope && scope.openWrites > 0) return new WriteInterruptedError(REPAIR_WITHIN_SECONDS);
  if (scope && scope.writesSent > 0)
    return new OutcomeUnknownError(
      'The request ran out of time after it started writing: the change may or may not have been made. Read the resource before retrying',
    );
  return new ServiceUnavailableError(
    `The request did not finish within the time limit; nothing was written. ${scope?.slowBecause ?? 'Retry, or ask for less (a narrower filter, a lower take)'}`,
  );
};

/** What the request's log line says of a known error: its code and message, and a 401's reason. */
const errorNote = (error: unknown): Record<string, unknown> => {
  if (!(error instanceof HttpError)) return {};
  const note = { error: { code: error.code, message: error.message } };
  return error.status === 401 ? { ...note, reason: (error as { reason?: string }).reason } : note;
};

/**
 * The request's one log line (INFO; WARN for a service error) and its metrics
 * (`request-metrics.ts`): status, duration, DynamoDB calls. Only an unexpected error adds a line,
 * with its stack.
 */
const logRequest = (
  route: RouteDef,
  status: number | undefined,
  internal: Record<string, unknown>,
  error?: unknown,
) => {
  const started = internal.started as number | undefined;
  const durationMs = started ? Math.round((performance.now() - started) * 10) / 10 : undefined;
  const db = callSummary();
  const note = errorNote(error);
  if (status !== undefined && status >= 500) logger.warn('request', { status, durationMs, db, ...note });
  else logger.info('request', { status, durationMs, db, ...note });
  publishRequestMetrics({ route: route.handler, status, durationMs, db });
};

/**
 * Locates a resource among loaded items; a cold Lambda learns where a base or table lives first,
 * then reads its space and membership (one read more). Answers it and all that was read.
 */
const locateReading = async (
  ref: ResourceRef,
  userId: string,
  loaded: Loaded,
): Promise<{ located: Located; loaded: Loaded }> => {
  let found = locate(ref, userId, loaded);
  if ('need' in found) {
    loaded = await readMore(loaded, found.need);
    found = locate(ref, userId, loaded);
  }
  if ('need' in found) throw new Error(`could not locate ${ref.kind} ${ref.id}`);
  return { located: found.located, loaded };
};

/** A resource located for the caller as the chain locates a route's (at most two reads). */
const locateFor = async (principal: Principal, ref: ResourceRef): Promise<Located> =>
  (await locateReading(ref, principal.userId, await readBatch(resourceKeys(ref, principal.userId)))).located;

/**
 * What lets a caller link to a table of another base (`schema/link-fields.ts` `LinkAccess`): it
 * must be able to create fields there, as the link's other side is created there (a 403 for a
 * member who may not; a base it has no part in answers as not found).
 */
export const linkAccessOf =
  (principal: Principal) =>
  async (baseId: string): Promise<void> => {
    const located = await locateFor(principal, { kind: 'base', id: baseId });
    // a base the caller has no part in is not there for it (the table answers as not found)
    if (!located.role) throw new NotFoundError(`Base ${baseId} not found`);
    checkAccess({ principal, resource: located, role: located.role, actions: ['field|create'] });
  };

/**
 * The permission check of a route, for a resource a handler learns only from data (an attachment's
 * base): located as the chain locates a route's resource (at most two reads), then checked.
 */
export const checkAccessTo = async (
  principal: Principal,
  ref: ResourceRef,
  actions: readonly Scope[],
): Promise<Located> => {
  const located = await locateFor(principal, ref);
  checkAccess({ principal, resource: located, role: located.role, actions });
  return located;
};
