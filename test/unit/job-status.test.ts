import { describe, expect, it } from 'vitest';
import { NotFoundError } from '#shared/core/errors.ts';
import { finishJobOps } from '#shared/entities/jobs.ts';
import { jobStatusOf } from '#shared/jobs/job-status.ts';

const job = { kind: 'base', resourceId: 'bse0000000000000001' } as const;
const now = new Date('2026-11-25T12:00:00Z');
const pending = { userId: 'usr1', createdTime: '2026-11-25T11:00:00.000Z', runs: 0 };

describe('a background job as its starter reads it', () => {
  it('is queued before a run, running after one', () => {
    expect(jobStatusOf(job, 'usr1', pending, undefined, now)).toEqual({
      ...job,
      state: 'queued',
      runs: 0,
      createdTime: pending.createdTime,
    });
    const ran = { ...pending, runs: 2, updatedTime: '2026-11-25T11:30:00.000Z' };
    expect(jobStatusOf(job, 'usr1', ran, undefined, now)).toMatchObject({
      state: 'running',
      runs: 2,
      lastRunTime: ran.updatedTime,
    });
  });

  it('is done from the finished record its last run writes, for a week', () => {
    const ops = finishJobOps(job, { ...pending, runs: 3 }, now);
    const finished = (ops[1] as { put: Record<string, unknown> }).put;
    expect(ops[0]).toEqual({ delete: { pk: 'PURGE', sk: `base#${job.resourceId}` } });
    expect(jobStatusOf(job, 'usr1', undefined, finished, now)).toEqual({
      ...job,
      state: 'done',
      runs: 3,
      createdTime: pending.createdTime,
      finishedTime: now.toISOString(),
    });
    const weekLater = new Date(now.getTime() + 7 * 24 * 3600 * 1000);
    expect(() => jobStatusOf(job, 'usr1', undefined, finished, weekLater)).toThrow(NotFoundError);
  });

  it('is a 404 to anyone but its starter, and when there is no such job', () => {
    expect(() => jobStatusOf(job, 'usr2', pending, undefined, now)).toThrow(NotFoundError);
    expect(() => jobStatusOf(job, 'usr1', undefined, undefined, now)).toThrow(NotFoundError);
  });
});
