import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  sentTime: string;
  file: string;
}

/** The outbox folder of the run (set by the global setup, or by the local server). */
export const outboxDir = (dir = process.env.LOCAL_OUTBOX_DIR): string => {
  if (!dir) throw new Error('LOCAL_OUTBOX_DIR is not set');
  return dir;
};

/** Every mail in the outbox sent to `to` (case-insensitive), oldest first. */
export const mailsTo = async (to: string, dir = outboxDir()): Promise<OutboxMail[]> => {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const mails = await Promise.all(
    names
      .filter((n) => n.endsWith('.json'))
      .map(async (n) => ({ ...(JSON.parse(await readFile(join(dir, n), 'utf8')) as OutboxMail), file: n })),
  );
  return mails
    .filter((m) => m.to.toLowerCase() === to.toLowerCase())
    .sort((a, b) => a.file.localeCompare(b.file));
};

/** The code of the newest verification mail to `to`. */
export const latestCode = async (to: string, dir?: string): Promise<string> => {
  const mail = (await mailsTo(to, dir)).at(-1);
  const code = /Verification code: (\d{6})/.exec(mail?.text ?? '')?.[1];
  if (!code) throw new Error(`no verification mail to ${to}`);
  return code;
};
