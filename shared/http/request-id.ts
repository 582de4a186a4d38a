import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** The header that carries a request's id, both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's id worth echoing: short, and nothing a log line or a header could be broken with. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's `X-Request-Id` when it is sane (≤ 128 of `[A-Za-z0-9._-]`), else undefined. */
export const callerRequestId = (
  headers: Record<string, string | string[] | undefined> | undefined,
): string | undefined => {
  const name = Object.keys(headers ?? {}).find((key) => key.toLowerCase() === REQUEST_ID_HEADER);
  const value = name === undefined ? undefined : headers?.[name];
  return typeof value === 'string' && SANE_REQUEST_ID.test(value) ? value : undefined;
};

/**
 * The id of one request: the caller's sane `X-Request-Id`, else API Gateway's request id, else
 * the Lambda invocation's. Pure, so every part of the chain derives the same one.
 */
export const requestIdOf = (
  event: Pick<APIGatewayProxyEventV2, 'headers'> & { requestContext?: { requestId?: string } },
  context: Pick<Context, 'awsRequestId'>,
): string => callerRequestId(event.headers) ?? event.requestContext?.requestId ?? context.awsRequestId;
