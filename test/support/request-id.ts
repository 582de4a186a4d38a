/**
 * Checks what every answer must carry, an `X-Request-Id` header and, in an error body, the same
 * id as `requestId`; answers the body without `requestId`, so tests compare the rest with the
 * contract's body. Every test that goes through `call` or the test server checks the id this way.
 */
// biome-ignore lint/suspicious/noExplicitAny: answers of every shape pass through
export const checkedRequestId = (status: number, requestId: string | null | undefined, body: any): any => {
  if (!requestId) throw new Error(`a ${status} answer without an X-Request-Id header`);
  if (status < 400 || typeof body !== 'object' || body === null || !('code' in body)) return body;
  const { requestId: inBody, ...rest } = body as { requestId?: unknown };
  if (inBody !== requestId)
    throw new Error(`a ${status} error body with requestId ${String(inBody)}, its header says ${requestId}`);
  return rest;
};
