/**
 * One short line a person reads, for a structured log record (the JSON the logger writes): the
 * local program's output (`npm start`), where JSON lines are hard to scan. The cloud keeps JSON.
 * A request: `12:04:05 GET /api/space 201 12ms`, with the error's code and message when it failed;
 * anything else: `12:04:05 WARN message (job) key=value …`. Pure.
 */

/** Keys every record carries that a line leaves out (the logger's own, and the request's ids). */
const SILENT_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'route',
  'method',
  'path',
  'requestId',
  'apiRequestId',
  'job',
  'wake',
  'db',
]);

/** The longest a value shows on a line before it is cut. */
const VALUE_CHARS = 200;

const timeOf = (timestamp: unknown): string => {
  const at = typeof timestamp === 'string' ? new Date(timestamp) : new Date();
  return Number.isNaN(at.getTime()) ? '--:--:--' : at.toISOString().slice(11, 19);
};

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : text;
};

/** The readable line of a log record. Pure. */
export const readableLine = (record: Readonly<Record<string, unknown>>): string => {
  const time = timeOf(record.timestamp);
  if (record.message === 'request' && typeof record.status === 'number') {
    const error = record.error as { code?: string; message?: string } | undefined;
    const what = [record.method, record.path].filter((p) => typeof p === 'string').join(' ');
    const ms = typeof record.durationMs === 'number' ? ` ${Math.round(record.durationMs)}ms` : '';
    const reason = typeof record.reason === 'string' ? ` (${record.reason})` : '';
    const detail = error?.code ? ` ${error.code}: ${shown(error.message ?? '')}${reason}` : '';
    return `${time} ${what || shown(record.route)} ${record.status}${ms}${detail}`;
  }
  const level = typeof record.level === 'string' ? record.level : 'INFO';
  const unit = record.job ?? record.wake;
  const rest = Object.entries(record)
    .filter(([key]) => !SILENT_KEYS.has(key))
    .map(([key, value]) => `${key}=${shown(value)}`);
  return [time, level, shown(record.message), unit ? `(${shown(unit)})` : '', ...rest]
    .filter((part) => part !== '')
    .join(' ');
};
