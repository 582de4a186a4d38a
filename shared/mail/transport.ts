import type { MailTransport } from './message.ts';

let override: MailTransport | undefined;
let chosen: Promise<MailTransport> | undefined;

/**
 * The transport of this environment, chosen once: `LOCAL_OUTBOX_DIR` set (the local server and
 * the tests) writes each message into that folder; otherwise SES sends it from `MAIL_FROM`. Each
 * implementation is loaded only when chosen, so the SES client never loads locally and the outbox
 * code never runs in a Lambda.
 */
export const mailTransport = (): Promise<MailTransport> => {
  if (override) return Promise.resolve(override);
  chosen ??= (async (): Promise<MailTransport> => {
    const outbox = process.env.LOCAL_OUTBOX_DIR;
    if (outbox) {
      const { OutboxTransport } = await import('./outbox.ts');
      return new OutboxTransport(outbox);
    }
    const from = process.env.MAIL_FROM;
    if (!from) throw new Error('Missing required environment variable MAIL_FROM (or LOCAL_OUTBOX_DIR)');
    const { SesTransport } = await import('./ses.ts');
    return new SesTransport(from);
  })();
  return chosen;
};

/** Test seam: replaces the transport (fault paths a real outbox cannot stage); undefined restores it. */
export const useMailTransport = (transport: MailTransport | undefined) => {
  override = transport;
};

/** True for a string safe in a mail header: no line breaks (header injection). Pure. */
export const isHeaderSafe = (value: string): boolean => !/[\r\n]/.test(value);
