/**
 * What an uploaded file is, read from its first bytes (data-flow.md 6: the type is checked against
 * the bytes, never taken from the name). `file-type` knows binary formats by their signature;
 * `image-size` reads an image's width and height from its header. A declared type that one of
 * those formats would show, but the bytes do not, is refused (an HTML page declared as a PNG); a
 * text type the bytes cannot prove (plain text, CSV, JSON) is taken as declared.
 */
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import { imageSize } from 'image-size';

/** Bytes read from the start of a file to tell its type and an image's size. */
export const HEAD_BYTES = 4100;

/** Names of one type that differ only in spelling. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'application/x-pdf': 'application/pdf',
  'audio/mp3': 'audio/mpeg',
  'application/x-zip-compressed': 'application/zip',
};

/** A declared type that says nothing about the content. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** Zip containers: a declared zip whose bytes are an Office file (or the other way) is the same kind. */
const ZIP_BASED = new Set([
  'application/zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/epub+zip',
]);

const normal = (mime: string): string => {
  const bare = mime.split(';')[0]?.trim().toLowerCase() ?? '';
  return ALIASES[bare] ?? bare;
};

export type Sniffed =
  | { ok: true; mimetype: string; width?: number; height?: number }
  | { ok: false; detected: string | undefined; declared: string };

/** The type of a file from its first bytes and its declared type; an image's size when it is one. */
export const sniff = async (head: Uint8Array, declaredType: string): Promise<Sniffed> => {
  const declared = normal(declaredType);
  const detected = (await fileTypeFromBuffer(head))?.mime;
  const sniffable =
    (supportedMimeTypes as ReadonlySet<string>).has(declared) || declared.startsWith('image/');
  let mimetype: string;
  if (detected === undefined) {
    // text, or a format no signature tells: fine unless the declared type has a signature
    if (sniffable && declared !== 'image/svg+xml') return { ok: false, detected, declared };
    mimetype = GENERIC.has(declared) ? 'application/octet-stream' : declared;
  } else if (
    detected === declared ||
    GENERIC.has(declared) ||
    (ZIP_BASED.has(detected) && ZIP_BASED.has(declared))
  ) {
    mimetype = detected;
  } else return { ok: false, detected, declared };
  if (!mimetype.startsWith('image/')) return { ok: true, mimetype };
  try {
    const { width, height, orientation } = imageSize(head);
    // EXIF orientations 5..8 turn the picture a quarter: it shows as tall as it is wide
    const turned = orientation !== undefined && orientation >= 5;
    return {
      ok: true,
      mimetype,
      ...(width && height ? (turned ? { width: height, height: width } : { width, height }) : {}),
    };
  } catch {
    return { ok: true, mimetype };
  }
};
