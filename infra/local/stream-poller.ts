/**
 * The local stream processor: reads DynamoDB Local's change stream of the table (shards,
 * iterators) and hands each batch to the same capture as the cloud's stream Lambda
 * (`captureBatch`). Where each shard got to is kept in a checkpoint file in the data folder, so a
 * restart resumes where it stopped; records handed over again are written once anyway.
 */
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { StreamRecord, WireStreamRecord } from '#shared/db/stream.ts';

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  /** Where each shard got to; none: nothing kept (in memory, tests). */
  checkpointFile?: string;
  /** Where a shard with no checkpoint starts: its oldest record (kept data) or now (tests). */
  startAt?: 'TRIM_HORIZON' | 'LATEST';
  /** Pause between polls that found nothing. */
  idleMs?: number;
  /**
   * How often the table and its stream's shards are described again while nothing else calls for
   * it (a shard that ends, or a failed poll, does at once). DynamoDB Local answers a describe in
   * time that grows with the whole database (~2 s at 190,000 items), so the poller must not ask
   * every round.
   */
  describeEveryMs?: number;
  /** True while the database is known to be down (the poll waits). */
  isDown?: () => boolean;
  /** Days entries stay in the log. */
  retentionDays?: number;
  /**
   * Where a record that fails `POISON_TRIES` times in a row is kept (a line of JSON each), as the
   * cloud's on-failure queue keeps it; the shard then goes on past it. None: only counted.
   */
  failuresFile?: string;
}

/** Tries of one record before the poller sets it aside and goes on (the shard never stops). */
export const POISON_TRIES = 5;

export interface StreamPoller {
  /** Records captured so far, and polls that failed. */
  stats(): { records: number; written: number; errors: number; setAside: number };
  /**
   * How far behind the writes the capture is, in ms: after a pass that found records, the age of
   * the oldest of them when the pass ended (the stream stamps records to the second); 0 after a
   * pass that found none.
   */
  lagMs(): number;
  /** Resolves once every record in the stream when it is called has been captured. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Where each shard of one stream got to (the last sequence number captured). */
interface Checkpoints {
  streamArn?: string;
  shards: Record<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts polling; the first poll begins at once. */
export const startStreamPoller = (options: StreamPollerOptions): StreamPoller => {
  const { endpoint, tableName, checkpointFile } = options;
  const idleMs = options.idleMs ?? 200;
  const describeEveryMs = options.describeEveryMs ?? 10_000;
  const dynamo = new DynamoDBClient({ endpoint });
  const streams = new DynamoDBStreamsClient({ endpoint });
  const stats = { records: 0, written: 0, errors: 0, setAside: 0 };
  const tries = new Map<string, number>();
  /** Per shard: the record the next pass starts at (one that failed). */
  const retryAt = new Map<string, string>();
  let checkpoints: Checkpoints = { shards: {} };
  const iterators = new Map<string, string>();
  const closed = new Set<string>();
  let streamArn: string | undefined;
  let stopped = false;
  let round = 0;
  const roundWaiters: { resolve: () => void }[] = [];

  const loadCheckpoints = async () => {
    if (!checkpointFile) return;
    try {
      const read = JSON.parse(await readFile(checkpointFile, 'utf8')) as Partial<Checkpoints>;
      checkpoints = { ...read, shards: read.shards ?? {} };
    } catch {
      checkpoints = { shards: {} };
    }
  };
  const saveCheckpoints = async () => {
    if (!checkpointFile) return;
    await writeFile(`${checkpointFile}.tmp`, JSON.stringify(checkpoints));
    await rename(`${checkpointFile}.tmp`, checkpointFile);
  };

  const iteratorOf = async (shardId: string): Promise<string | undefined> => {
    const known = iterators.get(shardId);
    if (known) return known;
    // a record to try again first, else after the last one captured, else where the poller starts
    const at = retryAt.get(shardId);
    const after = checkpoints.shards[shardId];
    const type: ShardIteratorType = at
      ? 'AT_SEQUENCE_NUMBER'
      : after
        ? 'AFTER_SEQUENCE_NUMBER'
        : (options.startAt ?? 'TRIM_HORIZON');
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(at ? { SequenceNumber: at } : after ? { SequenceNumber: after } : {}),
      }),
    );
    retryAt.delete(shardId);
    return out.ShardIterator;
  };

  /** The shards as last described, when, and whether something calls for describing them again. */
  let known: { ids: string[]; at: number } | undefined;
  let describeAgain = true;
  const shardsOf = async (): Promise<string[]> => {
    if (known && !describeAgain && Date.now() - known.at < describeEveryMs) return known.ids;
    known = { ids: await describeShards(), at: Date.now() };
    describeAgain = false;
    return known.ids;
  };

  const describeShards = async (): Promise<string[]> => {
    const table = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    const arn = table.Table?.LatestStreamArn;
    if (arn !== streamArn) {
      // a new stream (DynamoDB Local restarted in memory): old iterators and checkpoints are void
      streamArn = arn;
      iterators.clear();
      closed.clear();
      if (checkpoints.streamArn !== streamArn) checkpoints = { streamArn, shards: {} };
    }
    if (!streamArn) return [];
    const ids: string[] = [];
    let start: string | undefined;
    do {
      const out = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }),
      );
      for (const s of out.StreamDescription?.Shards ?? []) if (s.ShardId) ids.push(s.ShardId);
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return ids;
  };

  let lag = 0;

  /** One pass over every open shard; answers how many records it read. */
  const pollOnce = async (): Promise<number> => {
    const { captureBatch } = await import('#shared/changes/processor.ts');
    const { streamRecordOf } = await import('#shared/db/stream.ts');
    let read = 0;
    let oldest: number | undefined;
    for (const shardId of await shardsOf()) {
      if (closed.has(shardId)) continue;
      const iterator = await iteratorOf(shardId);
      if (!iterator) continue;
      let out: GetRecordsCommandOutput;
      try {
        out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      } catch (error) {
        // an expired or trimmed iterator, or a stream gone: start again from the checkpoint
        iterators.delete(shardId);
        describeAgain = true;
        throw error;
      }
      // the streams client's records are the wire shape both readers share
      const records = (out.Records ?? [])
        .map((r) => streamRecordOf(r as WireStreamRecord))
        .filter((r): r is StreamRecord => !!r);
      if (records.length) {
        const first = Date.parse((records[0] as StreamRecord).at);
        if (Number.isFinite(first)) oldest = Math.min(oldest ?? first, first);
        const outcome = await captureBatch(records, options.retentionDays);
        stats.written += outcome.written;
        const done = outcome.firstFailed ? records.slice(0, records.indexOf(outcome.firstFailed)) : records;
        stats.records += done.length;
        const last = done.at(-1);
        if (last) checkpoints.shards[shardId] = last.sequence;
        await saveCheckpoints();
        if (outcome.firstFailed) {
          stats.errors++;
          const poison = outcome.firstFailed;
          const n = (tries.get(poison.sequence) ?? 0) + 1;
          tries.set(poison.sequence, n);
          if (n >= POISON_TRIES) {
            // set aside, as the cloud's on-failure queue does, and go on past it
            if (options.failuresFile) await appendFile(options.failuresFile, `${JSON.stringify(poison)}\n`);
            stats.setAside++;
            tries.delete(poison.sequence);
            checkpoints.shards[shardId] = poison.sequence;
            await saveCheckpoints();
          } else retryAt.set(shardId, poison.sequence);
          // resume after the last record captured (or set aside), next pass
          iterators.delete(shardId);
          continue;
        }
      }
      read += records.length;
      if (out.NextShardIterator) iterators.set(shardId, out.NextShardIterator);
      else {
        closed.add(shardId);
        iterators.delete(shardId);
        // a shard ends when the stream rolls over to new ones: find them now
        describeAgain = true;
      }
    }
    lag = oldest === undefined ? 0 : Math.max(0, Date.now() - oldest);
    return read;
  };

  const loop = async () => {
    await loadCheckpoints();
    while (!stopped) {
      let read = 0;
      try {
        if (!options.isDown?.()) read = await pollOnce();
      } catch {
        stats.errors++;
        describeAgain = true;
      }
      round++;
      for (const w of roundWaiters.splice(0)) w.resolve();
      if (!read) await sleep(idleMs);
    }
  };
  const running = loop();

  return {
    stats: () => ({ ...stats }),
    lagMs: () => lag,
    caughtUp: (timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        // a round that starts after the call reads every record written before it
        const target = round + 2;
        const timer = setTimeout(() => reject(new Error('the stream poller did not catch up')), timeoutMs);
        const wait = () =>
          roundWaiters.push({
            resolve: () => {
              if (round < target) return wait();
              clearTimeout(timer);
              resolve();
            },
          });
        wait();
      }),
    stop: async () => {
      stopped = true;
      await running;
      dynamo.destroy();
      streams.destroy();
    },
  };
};
