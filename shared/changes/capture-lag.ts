/**
 * How far the change capture is behind the table's writes, where this process can tell: under
 * `npm start` the local stream poller runs in the server's process and reports it. A Lambda
 * cannot tell (the stream processor is another function): in the cloud the stage alarms on the
 * processor's iterator age instead (`infra/monitoring.ts`).
 */
let source: (() => number) | undefined;

/** Names where the lag is read from (none: not known in this process). */
export const reportCaptureLag = (read: (() => number) | undefined): void => {
  source = read;
};

/** The capture's lag in milliseconds, or undefined where this process cannot tell. */
export const captureLagMs = (): number | undefined => source?.();
