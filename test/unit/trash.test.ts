import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '#shared/db/keys.ts';
import { newTrashEntry, putTrashOps, removeTrashOps } from '#shared/entities/trash-items.ts';
import { isId } from '#shared/ids.ts';
import { isPurgeJob, purgeJobOf } from '#shared/jobs/purge-queue.ts';
import { sqsPurgeQueue } from '#shared/jobs/sqs-purge-queue.ts';

const sqs = mockClient(SQSClient);
afterEach(() => sqs.reset());

describe('trash entries', () => {
  const now = new Date('2026-11-22T08:15:00.000Z');

  it('gives a time-ordered trs id, the deletion time and the deleter', () => {
    const earlier = newTrashEntry(
      'space',
      'spcA',
      { spaceId: 'spcA' },
      'usrA',
      new Date(now.getTime() - 1000),
    );
    const entry = newTrashEntry('space', 'spcA', { spaceId: 'spcA' }, 'usrA', now);
    expect(isId('trash', entry.id)).toBe(true);
    expect(earlier.id < entry.id).toBe(true);
    expect(entry).toMatchObject({
      resourceType: 'space',
      deletedTime: '2026-11-22T08:15:00.000Z',
      deletedBy: 'usrA',
    });
  });

  it.each([
    ['space', { spaceId: 'spc1' }, undefined],
    ['base', { spaceId: 'spc1' }, (id: string) => keys.spaceTrash('spc1', id)],
    ['table', { spaceId: 'spc1', baseId: 'bse1' }, (id: string) => keys.baseTrash('bse1', id)],
  ] as const)('writes a %s item by id and its listing copy in the parent', (type, parents, copyKey) => {
    const entry = newTrashEntry(type, 'res1', parents, 'usr1', now);
    const puts = putTrashOps(entry);
    const put = (i: number) => (puts[i] as { put: Record<string, unknown> }).put;
    expect(put(0)).toMatchObject({ ...keys.trashItem(entry.id), type: 'trash', resourceId: 'res1' });
    expect((puts[0] as { condition?: string }).condition).toBe('attribute_not_exists(pk)');
    expect(puts).toHaveLength(copyKey ? 2 : 1);
    if (copyKey) expect(put(1)).toMatchObject({ ...copyKey(entry.id), type: 'trashRef', resourceId: 'res1' });
    expect(removeTrashOps(entry)).toEqual([
      { delete: keys.trashItem(entry.id) },
      ...(copyKey ? [{ delete: copyKey(entry.id) }] : []),
    ]);
  });
});

describe('purge jobs on SQS', () => {
  it.each([
    [{ kind: 'table', resourceId: 'tbl1' }, true],
    [{ kind: 'space', resourceId: 'spc1' }, true],
    [{ kind: 'record', resourceId: 'rec1' }, false],
    [{ kind: 'base' }, false],
    [null, false],
    ['text', false],
  ])('isPurgeJob(%j) is %s', (value, expected) => {
    expect(isPurgeJob(value)).toBe(expected);
  });

  it('sends the job as JSON with the delay, clamped to what SQS allows', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    const queue = sqsPurgeQueue('https://sqs.test/queue');
    await queue.send({ kind: 'base', resourceId: 'bse1' }, { delaySeconds: 30 });
    await queue.send({ kind: 'base', resourceId: 'bse2' }, { delaySeconds: 5000 });
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, {
      QueueUrl: 'https://sqs.test/queue',
      MessageBody: JSON.stringify({ kind: 'base', resourceId: 'bse1' }),
      DelaySeconds: 30,
    });
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, { DelaySeconds: 900 });
  });

  it('does not fail the delete when SQS refuses: the durable job item waits for the sweep', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('unreachable'));
    const queue = sqsPurgeQueue('https://sqs.test/queue');
    await expect(queue.send({ kind: 'table', resourceId: 'tbl1' })).resolves.toBeUndefined();
  });
});

describe('stored purge jobs', () => {
  it('reads a job item, with when it last ran or was created; anything else is not a job', () => {
    const item = {
      pk: 'PURGE',
      sk: 'table#tblA',
      type: 'purgeJob',
      kind: 'table',
      resourceId: 'tblA',
      createdTime: 'c',
      runs: 0,
    };
    expect(purgeJobOf(item)).toEqual({ kind: 'table', resourceId: 'tblA', lastTouched: 'c' });
    expect(purgeJobOf({ ...item, updatedTime: 'u' })).toMatchObject({ lastTouched: 'u' });
    expect(purgeJobOf({ ...item, kind: 'view' })).toBeUndefined();
    expect(purgeJobOf({ ...item, resourceId: 3 })).toBeUndefined();
  });
});
