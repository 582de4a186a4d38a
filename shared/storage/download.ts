/**
 * Download URLs of attachments, signed in process (`presign.ts`) with this process's credentials:
 * no AWS SDK loaded, so every route that answers records can sign them cheaply.
 */
import { config } from '#shared/config.ts';
import { presignGet, type SignerConfig } from './presign.ts';

/** The signer of download URLs: the bucket and the credentials of this process (no read). */
export const downloadSigner = (): SignerConfig | undefined => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!config.attachmentsBucket || !accessKeyId || !secretAccessKey) return undefined;
  return {
    bucket: config.attachmentsBucket,
    region: process.env.AWS_REGION || 'us-east-1',
    ...(config.s3Endpoint ? { endpoint: config.s3Endpoint } : {}),
    accessKeyId,
    secretAccessKey,
    ...(process.env.AWS_SESSION_TOKEN ? { sessionToken: process.env.AWS_SESSION_TOKEN } : {}),
  };
};

/** Seconds a download URL lives. */
export const DOWNLOAD_SECONDS = 900;

/** A short-lived download URL of an object (no round trip); undefined when attachments are not configured. */
export const downloadUrl = (key: string, filename?: string): string | undefined => {
  const signer = downloadSigner();
  return signer
    ? presignGet(signer, key, {
        expiresIn: DOWNLOAD_SECONDS,
        ...(filename === undefined ? {} : { filename }),
      })
    : undefined;
};
