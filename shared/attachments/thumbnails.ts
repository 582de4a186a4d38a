/**
 * Thumbnails of uploaded images (data-flow.md 6), made by the purge worker after the upload is
 * confirmed (a `thumbnails` job sent by notify and `uploadAttachment`), so a large image never
 * slows the request: the image is read from the bucket as a stream, decoded once by sharp
 * (libvips), and each size it needs (`thumbnailSizesFor`: 56 and 525 pixels high) is written
 * beside it. JPEG and WebP stay in their format, anything else becomes PNG (Teable's default).
 * An image sharp cannot decode gets none (`thumbnails: []`), and answers point at the file itself.
 */
import { logger } from '#shared/core/logger.ts';
import { markThumbnails, readAttachment } from '#shared/entities/attachments.ts';
import {
  THUMBNAIL_HEIGHTS,
  type ThumbnailSize,
  thumbnailPath,
  thumbnailSizesFor,
} from '#shared/fields/kinds/attachment.ts';
import { objectStream, putObject } from '#shared/storage/objects.ts';

/** The format of an image's thumbnails. Pure. */
export const thumbnailFormatOf = (mimetype: string): { format: 'jpeg' | 'webp' | 'png'; mimetype: string } =>
  mimetype === 'image/jpeg'
    ? { format: 'jpeg', mimetype }
    : mimetype === 'image/webp'
      ? { format: 'webp', mimetype }
      : { format: 'png', mimetype: 'image/png' };

/** The most pixels an image may have to be decoded (sharp's own default: 16,384 × 16,384). */
const MAX_INPUT_PIXELS = 268_402_689;

/**
 * Makes the thumbnails of one upload and records them on its item. Nothing for a file gone, not
 * confirmed, not an image or too small to need any. An image that cannot be decoded is recorded as
 * having none; a failure to read or write the bucket throws (the job runs again).
 */
export const makeThumbnails = async (token: string): Promise<ThumbnailSize[]> => {
  const file = await readAttachment(token);
  if (file?.state !== 'ready') return [];
  const sizes = thumbnailSizesFor(file);
  if (!sizes.length) return [];
  const source = await objectStream(file.path);
  if (!source) return [];
  const { default: sharp } = await import('sharp');
  const { format, mimetype } = thumbnailFormatOf(file.mimetype);
  // one decode of the stream, one resize per size
  const image = sharp({ limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' });
  let readFailed: Error | undefined;
  source.on('error', (error) => {
    readFailed = error;
    image.destroy(error);
  });
  source.pipe(image);
  let made: { size: ThumbnailSize; bytes: Buffer }[];
  try {
    made = await Promise.all(
      sizes.map(async (size) => ({
        size,
        bytes: await image
          .clone()
          .rotate() // upright by its EXIF orientation, as a browser shows it
          .resize({ height: THUMBNAIL_HEIGHTS[size] })
          .toFormat(format)
          .toBuffer(),
      })),
    );
  } catch (error) {
    if (readFailed) throw readFailed; // the bucket, not the image: the job runs again
    logger.warn('an uploaded image could not be decoded: it gets no thumbnails', {
      token,
      mimetype: file.mimetype,
      error: String(error),
    });
    await markThumbnails(token, []);
    return [];
  }
  for (const { size, bytes } of made)
    await putObject(thumbnailPath(file.path, size), bytes, mimetype, bytes.length);
  await markThumbnails(
    token,
    made.map((m) => m.size),
  );
  return made.map((m) => m.size);
};
