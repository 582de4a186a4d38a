import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { StageConfig } from './stage-config.ts';

/** Days after which an upload begun in parts and never finished is aborted (its parts removed). */
export const ABANDONED_MULTIPART_DAYS = 1;
/** Days an export written to the bucket is kept (its download URL lives 15 minutes). */
export const EXPORT_DAYS = 1;

/**
 * The stage's attachments bucket (data-flow.md 6): private (every public access blocked, TLS only,
 * objects owned by the bucket), encrypted at rest (S3-managed keys), CORS for browsers that `PUT`
 * to a presigned URL and read with `GET`, and a lifecycle that aborts abandoned multipart uploads and removes exports after a day.
 * Files are written and removed only through the routes that declare `files: 'write'`; every
 * Lambda may read objects, to sign the download URLs record answers carry. The bucket holds users'
 * files: it is kept when the stack is deleted, in every stage (empty and delete it by hand).
 */
export class AttachmentsBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { config: StageConfig }) {
    super(scope, id);
    const { config } = props;
    this.bucket = new s3.Bucket(this, 'Files', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      cors: [
        {
          allowedMethods: [s3.HttpMethods.PUT, s3.HttpMethods.GET, s3.HttpMethods.HEAD],
          allowedOrigins: config.corsOrigins.length ? [...config.corsOrigins] : ['*'],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3000,
        },
      ],
      lifecycleRules: [
        {
          id: 'AbortAbandonedUploads',
          abortIncompleteMultipartUploadAfter: Duration.days(ABANDONED_MULTIPART_DAYS),
        },
        // CSV exports too large to answer directly: downloaded within minutes, kept a day
        { id: 'ExpireExports', prefix: 'export/', expiration: Duration.days(EXPORT_DAYS) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
