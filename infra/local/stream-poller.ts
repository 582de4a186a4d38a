/**
 * The local stream processor: reads DynamoDB Local's change stream of the table (shards,
 * iterators) and hands the records to the same capture as the cloud's stream Lambda
 * (`captureBatch`). The stream is one queue of every base's writes; the poller reads ahead of the
 * capture (up to `PAGES_A_PASS` pages a pass, `MAX_BUFFERED` records in all) and queues what it
 * read by base, then captures a slice of every waiting base side by side, each base in its own
 * order: a burst in one base does not hold another base's entries back behind it. Where each shard
 * got to (the records before its first one not yet captured) is kept in a checkpoint file in the
 * data folder, so a restart resumes there; records handed over again are written once anyway.
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

/**
 * Pages (of up to 1,000 records) read from a shard in one pass, at most: far enough ahead to find
 * another base's records behind a burst, and never reading on while writes keep coming (the
 * capture of what was read runs between passes).
 */
const PAGES_A_PASS = 10;
/** Records read ahead of the capture at most (the stream keeps the rest until they fit). */
const MAX_BUFFERED = 5_000;
/** Records of one base captured in one pass (one `captureBatch`, as large as a stream page). */
const SLICE = 1000;
/** Bases captured side by side in one pass. */
const BASES_AT_ONCE = 8;

/** What sorting records into queues reads (imported when the first pass runs, as the capture is). */
interface Shell {
  tablesFedBy: typeof import('#shared/changes/processor.ts').tablesFedBy;
  readTable: typeof import('#shared/entities/tables.ts').readTable;
}

/** A record read from a shard and not yet captured (or set aside). */
interface Pending {
  shardId: string;
  record: StreamRecord;
  /** The queue it waits in: its base's, so a base's entries keep their order. */
  queue: string;
  tries: number;
  done: boolean;
  /** When it was written, at the earliest (`writtenAtOf`): what the lag is measured from. */
  writtenAt: number;
}

/**
 * The earliest a stream record can have been written, in epoch ms: DynamoDB Local stamps a record
 * to the minute it was written in (DynamoDB, to the second), so a write 59 s ago and one just now
 * can share a stamp. The record's own time sharpens it — a record item's `lastModifiedTime`, a
 * propagated write's `at` (both set before the write) — and so does stream order: a shard's records
 * are in write order, so none was written before the one ahead of it (`previous`).
 */
export const writtenAtOf = (record: StreamRecord, previous = 0, now = Date.now()): number => {
  const stamps = [Date.parse(record.at), previous];
  const image = record.newImage;
  for (const key of ['lastModifiedTime', 'at'] as const) {
    const value = image?.[key];
    const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (at <= now) stamps.push(at);
  }
  return Math.max(...stamps.filter(Number.isFinite));
};

export interface StreamPoller {
  /** Records captured so far, and polls that failed. */
  stats(): { records: number; written: number; errors: number; setAside: number };
  /**
   * How far behind the writes the capture is, in ms: after a pass that found records, the age of
   * the oldest of them when the pass ended (from when it was written at the earliest,
   * `writtenAtOf`); 0 after a pass that found none.
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
    // after the last record read (still waiting here), else after the last one captured, else
    // where the poller starts
    const after = readUpTo.get(shardId) ?? checkpoints.shards[shardId];
    const type: ShardIteratorType = after ? 'AFTER_SEQUENCE_NUMBER' : (options.startAt ?? 'TRIM_HORIZON');
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(after ? { SequenceNumber: after } : {}),
      }),
    );
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
      // what was read from the old stream went with its database
      buffered.clear();
      queues.clear();
      readUpTo.clear();
      baseOfTable.clear();
      pendingCount = 0;
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

  /**
   * What was read and not yet captured, in stream order per shard (the checkpoint moves past a
   * shard's captured prefix), and the same records queued by base: each pass captures a slice of
   * every base that waits, side by side, so a burst in one base never holds another's entries
   * back behind it (the stream itself is one queue of every base's writes).
   */
  const buffered = new Map<string, Pending[]>();
  const queues = new Map<string, Pending[]>();
  /** Per shard: the last record read (a new iterator starts after it, not at the checkpoint). */
  const readUpTo = new Map<string, string>();
  /** Per shard: the earliest the last record read can have been written (`writtenAtOf`). */
  const writtenUpTo = new Map<string, number>();
  /**
   * Per shard: when a read found it at its end. What is read after was written after that (a
   * second's margin): an item with no time of its own, read by a poller that was keeping up, is
   * not taken for a minute old.
   */
  const emptyAt = new Map<string, number>();
  let pendingCount = 0;
  const baseOfTable = new Map<string, string>();

  /** The queue a record waits in: its base (its table's, read once per table), else its table, else none. */
  const queueOf = async (record: StreamRecord, shell: Shell): Promise<string> => {
    const image = record.newImage ?? record.oldImage;
    if (image?.type === 'table' && typeof image.baseId === 'string') return `base:${image.baseId}`;
    // a record item, a schema item, or a data version carrying deletion notes: its table's base
    const [tableId] = shell.tablesFedBy(record);
    if (tableId === undefined) return '';
    let baseId = baseOfTable.get(tableId);
    if (baseId === undefined) {
      baseId = (await shell.readTable(tableId))?.baseId;
      if (baseId) baseOfTable.set(tableId, baseId);
    }
    return baseId ? `base:${baseId}` : `table:${tableId}`;
  };

  /** Reads every open shard up to its end, `PAGES_A_PASS` pages or `MAX_BUFFERED` waiting; answers how many records. */
  const readPass = async (): Promise<number> => {
    const { streamRecordOf } = await import('#shared/db/stream.ts');
    const shell: Shell = {
      tablesFedBy: (await import('#shared/changes/processor.ts')).tablesFedBy,
      readTable: (await import('#shared/entities/tables.ts')).readTable,
    };
    let read = 0;
    for (const shardId of await shardsOf()) {
      for (let page = 0; page < PAGES_A_PASS && !closed.has(shardId) && pendingCount < MAX_BUFFERED; page++) {
        const iterator = await iteratorOf(shardId);
        if (!iterator) break;
        const asked = Date.now();
        let out: GetRecordsCommandOutput;
        try {
          out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        } catch (error) {
          // an expired or trimmed iterator, or a stream gone: start again after what was read
          iterators.delete(shardId);
          describeAgain = true;
          throw error;
        }
        // the streams client's records are the wire shape both readers share
        const records = (out.Records ?? [])
          .map((r) => streamRecordOf(r as WireStreamRecord))
          .filter((r): r is StreamRecord => !!r);
        // every record's queue first: a failed read of a table buffers nothing of the page
        const entries: Pending[] = [];
        let previous = Math.max(writtenUpTo.get(shardId) ?? 0, (emptyAt.get(shardId) ?? 0) - 1000);
        for (const record of records) {
          previous = writtenAtOf(record, previous);
          entries.push({
            shardId,
            record,
            queue: await queueOf(record, shell),
            tries: 0,
            done: false,
            writtenAt: previous,
          });
        }
        writtenUpTo.set(shardId, previous);
        const list = buffered.get(shardId) ?? [];
        buffered.set(shardId, list);
        for (const entry of entries) {
          list.push(entry);
          const queue = queues.get(entry.queue) ?? [];
          queues.set(entry.queue, queue);
          queue.push(entry);
          pendingCount++;
          readUpTo.set(shardId, entry.record.sequence);
        }
        read += records.length;
        if (out.NextShardIterator) iterators.set(shardId, out.NextShardIterator);
        else {
          closed.add(shardId);
          iterators.delete(shardId);
          // a shard ends when the stream rolls over to new ones: find them now
          describeAgain = true;
        }
        if (records.length === 0) {
          emptyAt.set(shardId, asked);
          break;
        }
      }
    }
    return read;
  };

  /**
   * Captures a slice of every waiting queue, up to `BASES_AT_ONCE` side by side (the queues served
   * go to the back of the line), then moves each shard's checkpoint past what is captured.
   * Answers the oldest write time among the records it captured.
   */
  const capturePass = async (): Promise<number | undefined> => {
    const { captureBatch } = await import('#shared/changes/processor.ts');
    let oldest: number | undefined;
    const turn = [...queues.keys()].filter((k) => queues.get(k)?.length).slice(0, BASES_AT_ONCE);
    await Promise.all(
      turn.map(async (key) => {
        const queue = queues.get(key) ?? [];
        queues.delete(key);
        const slice = queue.slice(0, SLICE);
        let failedAt = slice.length;
        try {
          const outcome = await captureBatch(
            slice.map((p) => p.record),
            options.retentionDays,
          );
          stats.written += outcome.written;
          if (outcome.firstFailed) failedAt = slice.findIndex((p) => p.record === outcome.firstFailed);
        } catch {
          failedAt = 0;
        }
        for (const p of slice.slice(0, Math.max(0, failedAt))) {
          p.done = true;
          oldest = Math.min(oldest ?? p.writtenAt, p.writtenAt);
        }
        const failed = slice[failedAt];
        if (failed) {
          stats.errors++;
          failed.tries++;
          if (failed.tries >= POISON_TRIES) {
            // set aside, as the cloud's on-failure queue does, and go on past it
            if (options.failuresFile)
              await appendFile(options.failuresFile, `${JSON.stringify(failed.record)}\n`);
            stats.setAside++;
            failed.done = true;
          }
        }
        const left = queue.filter((p) => !p.done);
        stats.records += queue.length - left.length - (failed?.done ? 1 : 0);
        pendingCount -= queue.length - left.length;
        // to the back of the line: the next pass serves the queues this one did not
        if (left.length) queues.set(key, left);
      }),
    );
    let moved = false;
    for (const [shardId, list] of buffered) {
      let n = 0;
      while (n < list.length && list[n]?.done) n++;
      if (n === 0) continue;
      checkpoints.shards[shardId] = (list[n - 1] as Pending).record.sequence;
      moved = true;
      if (n === list.length) buffered.delete(shardId);
      else buffered.set(shardId, list.slice(n));
    }
    if (moved) await saveCheckpoints();
    return oldest;
  };

  /** One pass: read what the shards hold, capture a slice of every base. Answers the records read. */
  const pollOnce = async (): Promise<number> => {
    const read = await readPass();
    const oldest = await capturePass();
    // how long the records handled (or still waiting) have waited: the oldest of them
    let first = oldest;
    for (const list of buffered.values()) {
      const at = list[0] ? list[0].writtenAt : Number.NaN;
      if (Number.isFinite(at)) first = Math.min(first ?? at, at);
    }
    lag = first === undefined ? 0 : Math.max(0, Date.now() - first);
    return read + (oldest === undefined ? 0 : 1);
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
      // a round ends with nothing waiting: every record read has been captured
      if (pendingCount === 0) {
        round++;
        for (const w of roundWaiters.splice(0)) w.resolve();
      }
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
