import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { unmatchedAnswer } from '#shared/http/unmatched.ts';
import { ROUTES } from '#shared/routes.ts';

/**
 * The HTTP API's `$default` route (not in the route table): a request no route takes gets the
 * contract's error body, a 405 with `Allow` when its path takes other methods, else a 404.
 */
export const handler = async (
  event: APIGatewayProxyEventV2,
  context: Context,
): Promise<APIGatewayProxyStructuredResultV2> => unmatchedAnswer(ROUTES, event, context);
