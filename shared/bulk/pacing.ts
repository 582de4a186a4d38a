/**
 * How far the change capture is behind an import's writes, told by the base's change log alone
 * (a deployed stage: the worker's Lambda cannot see the stream's iterator age). The import notes
 * when it began each chunk's write; a chunk is captured once the log's newest entry occurred at or
 * after that time (its records' `lastModifiedTime`, the entries' `occurredAt`, is set when the
 * write begins, and a base's entries are appended in the order of its writes). The capture is then
 * as far behind as the oldest chunk not yet captured is old. Pure.
 *
 * An edit elsewhere in the base captured ahead of an import's chunk (its table's records in
 * another stream shard) can make a chunk look captured early: the pacing is a brake, not a count.
 */
export const captureBehindMs = (
  chunkStarts: readonly number[],
  newestCapturedAt: number | undefined,
  now: number,
): number => {
  const oldest = chunkStarts.find((start) => newestCapturedAt === undefined || start > newestCapturedAt);
  return oldest === undefined ? 0 : Math.max(0, now - oldest);
};

/** The chunks still worth remembering: those not yet captured (the oldest of them sets the lag). */
export const uncaptured = (chunkStarts: readonly number[], newestCapturedAt: number | undefined): number[] =>
  newestCapturedAt === undefined ? [...chunkStarts] : chunkStarts.filter((start) => start > newestCapturedAt);
