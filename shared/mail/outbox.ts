import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MailMessage, MailTransport } from './message.ts';

/** A file name part from an address: letters, digits, `@`, `.`, `-` and `_` only. Pure. */
const safe = (text: string) => text.replace(/[^A-Za-z0-9@._-]/g, '_').slice(0, 100);

/**
 * The local stand-in for SES: each message becomes `<dir>/<time>-<to>.json` (`{to, subject, text,
 * html, sentTime}`) and one line on stdout names it, so a developer can read a verification code.
 */
export class OutboxTransport implements MailTransport {
  constructor(
    readonly dir: string,
    private readonly log: (line: string) => void = (line) => {
      if (process.env.POWERTOOLS_LOG_LEVEL !== 'SILENT') console.info(line);
    },
  ) {}

  async send(message: MailMessage): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const sentTime = new Date().toISOString();
    // Time first so a listing sorts by sending; a random tail keeps two mails of one millisecond apart.
    const name = `${sentTime.replace(/[:.]/g, '-')}-${safe(message.to)}-${Math.random().toString(36).slice(2, 8)}.json`;
    const file = join(this.dir, name);
    await writeFile(file, `${JSON.stringify({ ...message, sentTime }, null, 2)}\n`, { flag: 'wx' });
    this.log(`mail to ${message.to}: "${message.subject}" written to ${file}`);
  }
}
