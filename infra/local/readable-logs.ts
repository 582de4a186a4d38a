import { readableLine } from '#shared/core/log-lines.ts';
import { logger } from '#shared/core/logger.ts';

/**
 * Makes the logger write one short line per record (`readableLine`) instead of JSON, for a person
 * at `npm start`'s terminal: requests and background jobs on stdout, warnings and errors on
 * stderr. `LOG_FORMAT=json` keeps JSON (for a log shipper). The cloud always writes JSON.
 */
export const useReadableLogs = (write = { out: process.stdout, err: process.stderr }): void => {
  const print = (stream: NodeJS.WritableStream) => (text: unknown) => {
    let record: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(String(text)) as unknown;
      if (parsed && typeof parsed === 'object') record = parsed as Record<string, unknown>;
    } catch {
      // not a record of ours: as it is
    }
    stream.write(`${record ? readableLine(record) : String(text)}\n`);
  };
  const out = print(write.out);
  const err = print(write.err);
  // Powertools writes every record through its console's method of the record's level.
  (logger as unknown as { console: Record<string, (text: unknown) => void> }).console = {
    log: out,
    trace: out,
    debug: out,
    info: out,
    warn: err,
    error: err,
  };
};
