import { type HttpError, RequestHeaderFieldsTooLargeError, UriTooLongError } from '#shared/core/errors.ts';

/**
 * API Gateway HTTP APIs refuse a request whose request line and header values together exceed
 * 10,240 bytes (the quota "Total combined size of request line and header values", not
 * adjustable: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
 * The local server refuses the same, so a call that works locally also passes the gateway.
 */
export const GATEWAY_MAX_REQUEST_LINE_AND_HEADERS = 10_240;

/**
 * How much Node itself reads of a request line and headers before giving up (its default is
 * 16 KB, answered with an empty 431). Well above the gateway's figure, so the size check below
 * sees most oversized requests whole and can say which part is too large; anything larger still
 * gets the JSON body, from the server's `clientError` handler.
 */
export const NODE_MAX_HEADER_BYTES = 256 * 1024;

/**
 * The bytes counted against the gateway's limit: the request line (`METHOD target HTTP/1.1`) and
 * every header's name and value. The gateway counts values; counting names too errs on the safe
 * side, so what passes here passes there. Pure.
 */
export const requestHeadBytes = (
  requestLine: string,
  rawHeaders: readonly string[],
): { requestLine: number; total: number } => {
  const line = Buffer.byteLength(requestLine);
  let total = line;
  for (const part of rawHeaders) total += Buffer.byteLength(part);
  return { requestLine: line, total };
};

/**
 * The error for a request over the gateway's limit, or undefined: 414 when the request line alone
 * is over it (the URL is what must shrink), 431 when the headers push it over. Pure.
 */
export const requestHeadError = (
  requestLine: string,
  rawHeaders: readonly string[],
  limit = GATEWAY_MAX_REQUEST_LINE_AND_HEADERS,
): HttpError | undefined => {
  const size = requestHeadBytes(requestLine, rawHeaders);
  if (size.requestLine > limit)
    return new UriTooLongError(
      `The request line is ${size.requestLine} bytes; API Gateway takes at most ${limit} bytes of request line and headers together. Send long lists in the JSON body (batch delete: DELETE /table/{tableId}/record with {"recordIds": [...]})`,
    );
  if (size.total > limit)
    return new RequestHeaderFieldsTooLargeError(
      `The request line and headers are ${size.total} bytes; API Gateway takes at most ${limit} bytes of them together`,
    );
  return undefined;
};
