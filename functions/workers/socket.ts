import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { HttpError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { managementPoster } from '#shared/live/cloud.ts';
import { onSocketConnect, onSocketDisconnect, onSocketMessage } from '#shared/live/sharedb/socket-cloud.ts';

/**
 * The realtime socket's WebSocket API routes (`/socket`, not an HTTP route): `$connect` keeps the
 * session cookie's (or bearer token's) credential, `$disconnect` forgets the connection,
 * `$default` runs ShareDB's protocol (`shared/live/sharedb/socket-cloud.ts`).
 */
export const handler = async (
  event: APIGatewayProxyWebsocketEventV2 & { headers?: Record<string, string | undefined> },
): Promise<APIGatewayProxyResultV2> => {
  const { routeKey, connectionId, domainName, stage } = event.requestContext;
  try {
    if (routeKey === '$connect') {
      await onSocketConnect(connectionId, event.headers ?? {});
      return { statusCode: 200 };
    }
    if (routeKey === '$disconnect') {
      await onSocketDisconnect(connectionId);
      return { statusCode: 200 };
    }
    const sender = managementPoster(config.socketCallbackUrl ?? `https://${domainName}/${stage}`);
    await onSocketMessage(connectionId, event.body ?? '', sender);
    return { statusCode: 200 };
  } catch (error) {
    if (error instanceof HttpError) return { statusCode: error.status, body: JSON.stringify(error.toBody()) };
    logger.error('socket failed', { routeKey, error: error as Error });
    return { statusCode: 500 };
  }
};
