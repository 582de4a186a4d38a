import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { ServiceUnavailableError } from '#shared/core/errors.ts';
import type { MailMessage, MailTransport } from './message.ts';

const client = new SESv2Client({ maxAttempts: 3 });

/** The SESv2 request of a message. Pure (unit-tested without a mock). */
export const sendEmailInput = (from: string, message: MailMessage) => ({
  FromEmailAddress: from,
  Destination: { ToAddresses: [message.to] },
  Content: {
    Simple: {
      Subject: { Data: message.subject, Charset: 'UTF-8' },
      Body: {
        Text: { Data: message.text, Charset: 'UTF-8' },
        ...(message.html ? { Html: { Data: message.html, Charset: 'UTF-8' } } : {}),
      },
    },
  },
});

/**
 * Sends through Amazon SES (SESv2 SendEmail) from the stage's sender address; the Lambda's role
 * may send from that identity only. Any SES failure (throttling, sandbox, an unverified
 * identity) is a 503 for the caller; the cause goes to the log.
 */
export class SesTransport implements MailTransport {
  constructor(readonly from: string) {}

  async send(message: MailMessage): Promise<void> {
    try {
      await client.send(new SendEmailCommand(sendEmailInput(this.from, message)));
    } catch (error) {
      const { logger } = await import('#shared/core/logger.ts');
      logger.error('SES SendEmail failed', error as Error);
      throw new ServiceUnavailableError('The mail could not be sent; retry later', 5);
    }
  }
}
