import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { OutboxTransport } from '#shared/mail/outbox.ts';
import { SesTransport, sendEmailInput } from '#shared/mail/ses.ts';
import {
  codeMatches,
  hashCode,
  newSalt,
  newVerificationCode,
  normalizeDomain,
  normalizeEmail,
} from '#shared/organizations/domains.ts';
import { retryAfterSeconds } from '#shared/organizations/verification.ts';

describe('normalizeDomain', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['  sub.example.com.  ', 'sub.example.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['a-b.c0.io', 'a-b.c0.io'],
  ])('reads %j as %j', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it.each([
    'localhost',
    '10.0.0.1',
    '-a.com',
    'a-.com',
    'a..com',
    'a b.com',
    'a_b.com',
    'http://a.com',
    'a.com:80',
    'me@a.com',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(127)}com`,
    '',
    '.',
  ])('refuses %j', (input) => {
    expect(normalizeDomain(input)).toBeUndefined();
  });
});

describe('normalizeEmail', () => {
  it('keeps the local part and normalises the domain', () => {
    expect(normalizeEmail(' Ada.L+x@Example.COM ')).toEqual({
      address: 'Ada.L+x@example.com',
      domain: 'example.com',
    });
  });
  it.each([
    'ada',
    '@example.com',
    'a b@example.com',
    'a@b@example.com',
    'a\r\n@example.com',
    `${'a'.repeat(65)}@example.com`,
  ])('refuses %j', (input) => {
    expect(normalizeEmail(input)).toBeUndefined();
  });
});

describe('verification codes', () => {
  it('are 6 digits, spread over the whole range', () => {
    const codes = Array.from({ length: 2000 }, newVerificationCode);
    for (const c of codes) expect(c).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1990);
    expect(codes.some((c) => c.startsWith('0'))).toBe(true);
  });

  it('are stored as a salted hash bound to organization and domain', () => {
    const salt = newSalt();
    const hash = hashCode(salt, 'orgA', 'example.com', '123456');
    expect(hash).not.toContain('123456');
    expect(codeMatches({ salt, hash }, 'orgA', 'example.com', '123456')).toBe(true);
    expect(codeMatches({ salt, hash }, 'orgA', 'example.com', '123457')).toBe(false);
    expect(codeMatches({ salt, hash }, 'orgB', 'example.com', '123456')).toBe(false);
    expect(codeMatches({ salt, hash }, 'orgA', 'example.org', '123456')).toBe(false);
    expect(hashCode(newSalt(), 'orgA', 'example.com', '123456')).not.toBe(hash);
  });
});

describe('mail transports', () => {
  const message = { to: 'a@example.com', subject: 'Hi', text: 'Body' };

  it('builds the SESv2 request from the sender and the message', () => {
    expect(sendEmailInput('no-reply@x.test', message)).toEqual({
      FromEmailAddress: 'no-reply@x.test',
      Destination: { ToAddresses: ['a@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Hi', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Body', Charset: 'UTF-8' } },
        },
      },
    });
  });

  it('sends through SES, and turns an SES failure into a 503', async () => {
    const ses = mockClient(SESv2Client);
    try {
      ses.on(SendEmailCommand).resolvesOnce({ MessageId: 'm1' }).rejectsOnce(new Error('Throttling'));
      await new SesTransport('no-reply@x.test').send(message);
      expect(ses.commandCalls(SendEmailCommand)[0]?.args[0].input).toEqual(
        sendEmailInput('no-reply@x.test', message),
      );
      await expect(new SesTransport('no-reply@x.test').send(message)).rejects.toMatchObject({
        status: 503,
        code: 'service_unavailable',
      });
    } finally {
      ses.restore();
    }
  });

  it('writes each message as a JSON file in the outbox and logs one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-'));
    try {
      const lines: string[] = [];
      const outbox = new OutboxTransport(join(dir, 'outbox'), (l) => lines.push(l));
      await outbox.send(message);
      await outbox.send({ ...message, to: 'b/../x@example.com' });
      const files = (await readdir(join(dir, 'outbox'))).sort();
      expect(files).toHaveLength(2);
      for (const f of files) expect(f).toMatch(/^[\w@.-]+\.json$/);
      const first = JSON.parse(
        await readFile(join(dir, 'outbox', files.find((f) => f.includes('-a@')) as string), 'utf8'),
      );
      expect(first).toEqual({ ...message, sentTime: expect.any(String) });
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain('mail to a@example.com');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('retryAfterSeconds', () => {
  const sentAt = new Date('2026-11-24T10:00:00.000Z');
  const item = { lastSentTime: sentAt.toISOString() };
  const at = (ms: number) => new Date(sentAt.getTime() + ms);

  it('counts the whole seconds left of the 60 s interval', () => {
    expect(retryAfterSeconds(item, at(0))).toBe(60);
    expect(retryAfterSeconds(item, at(1))).toBe(60);
    expect(retryAfterSeconds(item, at(30_500))).toBe(30);
    expect(retryAfterSeconds(item, at(59_999))).toBe(1);
  });

  it('never says less than 1 s, nor more than 60 s for a call whose clock predates the winner', () => {
    expect(retryAfterSeconds(item, at(60_000))).toBe(1);
    expect(retryAfterSeconds(item, at(-5))).toBe(60);
    expect(retryAfterSeconds(item, at(-2_000))).toBe(60);
  });
});
