/**
 * A journaled write opens with its head and its plain units' journals in one round and ends with
 * one transaction that completes and cleans it. Should the
 * head fail, the write stops there: no unit is applied, the error is answered, and the journals
 * that landed are left headless (undone harmlessly once stale). A fault DynamoDB Local cannot stage.
 */
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { commitSteps, type Step } from '#shared/db/commit.ts';
import { requestScope, withRequestScope } from '#shared/db/request-scope.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
afterEach(() => ddbMock.reset());
const healthy = () => {
  ddbMock.on(PutCommand).resolves({});
  ddbMock.on(BatchWriteCommand).resolves({});
  ddbMock.on(TransactWriteCommand).resolves({});
  ddbMock.on(UpdateCommand).resolves({});
  ddbMock.on(QueryCommand).resolves({ Items: [] });
};

/** 150 plain puts: over one transaction, so the write is journaled. */
const steps: Step[] = Array.from({ length: 150 }, (_, i) => ({
  op: { put: { pk: 'REC#tblT', sk: `rec${i}`, id: `rec${i}` } },
  undo: { delete: { pk: 'REC#tblT', sk: `rec${i}` } },
}));

const written = (input: unknown) =>
  Object.values(
    (input as { RequestItems: Record<string, { PutRequest?: { Item: { pk: string } } }[]> }).RequestItems,
  )
    .flat()
    .map((r) => r.PutRequest?.Item.pk ?? 'delete');

describe('opening a journaled write', () => {
  it('writes the head and the journals in one round, then the units', async () => {
    healthy();
    // while the head is on its way, the journals are sent too (one round, not two)
    let journalsDuringHead = -1;
    ddbMock.on(PutCommand).callsFake(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      journalsDuringHead = ddbMock.commandCalls(BatchWriteCommand).length;
      return {};
    });
    await commitSteps('tblT', steps, () => new Error('condition') as never, true);
    expect(journalsDuringHead).toBe(1);
    const batches = ddbMock.commandCalls(BatchWriteCommand).map((c) => written(c.args[0].input));
    // the journals first, then the records (two units of 100 and 50)
    expect(batches[0]?.every((pk) => pk.startsWith('TXN'))).toBe(true);
    expect(batches.flat().filter((pk) => pk === 'REC#tblT')).toHaveLength(150);
    // complete and cleaned in one transaction: the head (deleted while the lease holds) and the
    // journals go together, and nothing is written after it
    const [completion, ...more] = ddbMock.commandCalls(TransactWriteCommand);
    expect(more).toEqual([]);
    const items = completion?.args[0].input.TransactItems ?? [];
    expect(items[0]?.Delete?.Key).toMatchObject({ pk: 'TXNHEAD' });
    expect(items[0]?.Delete?.ConditionExpression).toContain('leaseUntil > :now');
    const deleted = items.slice(1).map((i) => i.Delete?.Key?.pk);
    expect(deleted.length).toBe(batches[0]?.length);
    expect(deleted.every((pk) => pk === 'TXN#tblT')).toBe(true);
    expect(batches.flat().filter((pk) => pk === 'delete')).toEqual([]);
    expect(ddbMock.commandCalls(UpdateCommand)).toEqual([]);
  });

  it("marks the request's Idempotency-Key claim applied in the completing transaction", async () => {
    healthy();
    const claim = { pk: 'IDEM#usr1', sk: 'create-records#k1' };
    await withRequestScope(60_000, async () => {
      const scope = requestScope();
      if (scope) scope.idempotencyKey = claim;
      await commitSteps('tblT', steps, () => new Error('condition') as never, true);
    });
    const [completion, ...more] = ddbMock.commandCalls(TransactWriteCommand);
    expect(more).toEqual([]);
    const items = completion?.args[0].input.TransactItems ?? [];
    const marked = items.find((i) => i.Update?.Key?.pk === claim.pk);
    expect(marked?.Update?.UpdateExpression).toBe('SET #s = :applied, expiresAt = :day');
    expect(marked?.Update?.ExpressionAttributeValues?.[':applied']).toBe('applied');
    expect(items.filter((i) => i.Delete?.Key?.pk === 'TXNHEAD')).toHaveLength(1);
  });

  it('stops when the head fails: the error is answered and no unit is applied', async () => {
    const down = Object.assign(new Error('head refused'), { name: 'InternalFailure' });
    healthy();
    ddbMock.on(PutCommand).rejects(down);
    await expect(
      commitSteps('tblT', steps, () => new Error('condition') as never, true),
    ).rejects.toBeDefined();
    const batches = ddbMock.commandCalls(BatchWriteCommand).map((c) => written(c.args[0].input));
    expect(batches.flat().filter((pk) => pk === 'REC#tblT')).toEqual([]);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
