import { forThisWorker } from './workers.ts';

/**
 * Setup file of the database projects: the file talks to its worker's DynamoDB Local
 * (`dynamodb-global-setup.ts` starts one per worker, the table in each). Runs before the file's
 * modules load, so everything it starts (handlers, servers, programs) takes this endpoint.
 */
const endpoints = (process.env.TEST_DYNAMODB_ENDPOINTS ?? '').split(',').filter(Boolean);
if (endpoints.length) process.env.AWS_ENDPOINT_URL_DYNAMODB = forThisWorker(endpoints);
