/** One mail message: plain text always, HTML optionally. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** How the service sends mail: Amazon SES in the cloud, an outbox folder on a laptop. */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
}
