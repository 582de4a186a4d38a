import { Logger } from '@aws-lambda-powertools/logger';

/** The structured JSON logger every handler writes through (request id added per request). */
export const logger = new Logger({ serviceName: 'workspace-api' });
