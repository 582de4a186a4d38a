import { afterAll } from 'vitest';
import { leaseSlot } from './workers.ts';

/**
 * Setup file of the database projects: the file talks to a DynamoDB Local no other file running
 * at the same moment uses (`dynamodb-global-setup.ts` starts one per worker, the table in each).
 * Runs before the file's modules load, so everything it starts (handlers, servers, programs)
 * takes this endpoint.
 */
const endpoints = (process.env.TEST_DYNAMODB_ENDPOINTS ?? '').split(',').filter(Boolean);
const leases = process.env.TEST_DYNAMODB_LEASES;
if (endpoints.length && leases) {
  const { slot, release } = leaseSlot(leases, endpoints.length);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints[slot];
  afterAll(release);
}
