import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { HttpError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { managementSender, onConnect, onDisconnect, onMessage } from '#shared/live/cloud.ts';

/**
 * The live WebSocket API's routes (not an HTTP route): `$connect` checks a token given in the URL
 * (`?token=`: a bad one refuses the connection with a 401), `$disconnect` forgets the connection,
 * `$default` handles the protocol's messages (`shared/live/cloud.ts`).
 */
export const handler = async (
  event: APIGatewayProxyWebsocketEventV2 & { queryStringParameters?: Record<string, string | undefined> },
): Promise<APIGatewayProxyResultV2> => {
  const { routeKey, connectionId, domainName, stage } = event.requestContext;
  try {
    if (routeKey === '$connect') {
      await onConnect(connectionId, event.queryStringParameters?.token);
      return { statusCode: 200 };
    }
    if (routeKey === '$disconnect') {
      await onDisconnect(connectionId);
      return { statusCode: 200 };
    }
    const sender = managementSender(config.liveCallbackUrl ?? `https://${domainName}/${stage}`);
    await onMessage(connectionId, event.body ?? '', sender);
    return { statusCode: 200 };
  } catch (error) {
    if (error instanceof HttpError) return { statusCode: error.status, body: JSON.stringify(error.toBody()) };
    logger.error('live socket failed', { routeKey, error: error as Error });
    return { statusCode: 500 };
  }
};
