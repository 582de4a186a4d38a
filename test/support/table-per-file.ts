/**
 * First setup file of the integration, compat and e2e projects: each test file gets a table of
 * its own on the run's DynamoDB Local, created from the shared definition before any module of
 * `shared/` reads its configuration. Files then never see each other's items, and the leak checks
 * that scan a table (`scan.ts`) scan only what their own file wrote, however long the run.
 */
import { randomBytes } from 'node:crypto';
import { ensureTable } from '#infra/local/table.ts';

const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
if (endpoint) {
  const tableName = `test-${Date.now()}-${randomBytes(4).toString('hex')}`;
  await ensureTable(tableName, endpoint);
  process.env.TABLE_NAME = tableName;
}
