import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesHeldBy, referenceChanges } from '#shared/attachments/references.ts';
import { objectsOf } from '#shared/attachments/release.ts';
import { thumbnailFormatOf } from '#shared/attachments/thumbnails.ts';
import { config } from '#shared/config.ts';
import { keys } from '#shared/db/keys.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { RELEASE_SHARDS, shardOf } from '#shared/entities/file-releases.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { thumbnailSizesFor, thumbnailTokensIn } from '#shared/fields/kinds/attachment.ts';
import { renderCell } from '#shared/records/model.ts';

/** Pure parts of thumbnails and file release (issue 29). */

const fileItem = (token: string, extra: Record<string, unknown> = {}) => ({
  id: `act${token}`,
  name: `${token}.png`,
  token,
  path: `table/${token}`,
  size: 10,
  mimetype: 'image/png',
  ...extra,
});

const recordImage = (recordId: string, cells: Record<string, unknown>) => ({
  ...keys.record('tblA', recordId),
  type: 'record',
  id: recordId,
  ...cells,
});

let seq = 0;
const change = (
  kind: StreamRecord['kind'],
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): StreamRecord => ({
  eventId: `e${++seq}`,
  sequence: String(seq),
  kind,
  at: '2026-11-28T00:00:00.000Z',
  ...(oldImage ? { oldImage } : {}),
  ...(newImage ? { newImage } : {}),
});

describe('thumbnail geometry', () => {
  it('an image taller than 56 gets sm, taller than 525 also lg; other files and unknown heights none', () => {
    expect(thumbnailSizesFor({ mimetype: 'image/jpeg', height: 56 })).toEqual([]);
    expect(thumbnailSizesFor({ mimetype: 'image/jpeg', height: 57 })).toEqual(['sm']);
    expect(thumbnailSizesFor({ mimetype: 'image/jpeg', height: 525 })).toEqual(['sm']);
    expect(thumbnailSizesFor({ mimetype: 'image/png', height: 526 })).toEqual(['sm', 'lg']);
    expect(thumbnailSizesFor({ mimetype: 'image/png' })).toEqual([]);
    expect(thumbnailSizesFor({ mimetype: 'application/pdf', height: 2000 })).toEqual([]);
  });

  it('JPEG and WebP keep their format, anything else becomes PNG', () => {
    expect(thumbnailFormatOf('image/jpeg')).toEqual({ format: 'jpeg', mimetype: 'image/jpeg' });
    expect(thumbnailFormatOf('image/webp')).toEqual({ format: 'webp', mimetype: 'image/webp' });
    expect(thumbnailFormatOf('image/gif')).toEqual({ format: 'png', mimetype: 'image/png' });
    expect(thumbnailFormatOf('image/tiff')).toEqual({ format: 'png', mimetype: 'image/png' });
  });

  it('a cell names the tokens of its images that need thumbnails', () => {
    const cell = [
      fileItem('tall', { height: 900 }),
      fileItem('short', { height: 20 }),
      fileItem('doc', { mimetype: 'text/plain' }),
      'not an item',
    ];
    expect(thumbnailTokensIn(cell)).toEqual(['tall']);
    expect(thumbnailTokensIn('text')).toEqual([]);
  });

  it('a released file takes its thumbnails with it', () => {
    expect(objectsOf('table/abc')).toEqual(['table/abc', 'table/abc_sm', 'table/abc_lg']);
  });
});

describe('rendering thumbnail URLs', () => {
  // a bucket to sign for (the unit project configures none)
  beforeAll(() => {
    (config as { attachmentsBucket?: string }).attachmentsBucket = 'unit-bucket';
  });
  afterAll(() => {
    (config as { attachmentsBucket?: string }).attachmentsBucket = undefined;
  });

  const field = { id: 'fldFiles', name: 'Files', type: 'attachment', options: {} } as unknown as Field;
  const cell = [fileItem('tall', { height: 900, width: 1200 })];

  it('points at the thumbnails once made, and at the file itself before', () => {
    const before = (
      renderCell(cell as never, field, 'json', { linkTitle: () => undefined }) as Record<string, string>[]
    )[0] as Record<string, string>;
    expect(before.smThumbnailUrl).toBe(before.presignedUrl);
    expect(before.lgThumbnailUrl).toBe(before.presignedUrl);
    const after = (
      renderCell(cell as never, field, 'json', {
        linkTitle: () => undefined,
        thumbnails: (t) => (t === 'tall' ? ['sm', 'lg'] : undefined),
      }) as Record<string, string>[]
    )[0] as Record<string, string>;
    expect(after.presignedUrl).toContain('table/tall?');
    expect(after.smThumbnailUrl).toContain('table/tall_sm?');
    expect(after.lgThumbnailUrl).toContain('table/tall_lg?');
  });

  it('leaves files that are not images without thumbnail URLs', () => {
    const out = renderCell([fileItem('doc', { mimetype: 'text/plain' })] as never, field, 'json', {
      linkTitle: () => undefined,
    }) as Record<string, unknown>[];
    expect(out[0]).not.toHaveProperty('smThumbnailUrl');
  });
});

describe('references from record images', () => {
  it('finds the files of attachment cells and lookups of them, nothing else', () => {
    const image = recordImage('rec1', {
      fldFiles: [fileItem('a'), fileItem('b')],
      fldLookup: [fileItem('c')],
      fldText: 'table/x',
      fldJson: [{ token: 'd' }],
    });
    expect([...filesHeldBy(image).keys()]).toEqual(['a', 'b', 'c']);
  });

  it('a batch: a record created, one updated, one deleted, one changed twice; records of other items ignored', () => {
    const batch = [
      change('INSERT', undefined, recordImage('rec1', { fldF: [fileItem('a')] })),
      change(
        'MODIFY',
        recordImage('rec2', { fldF: [fileItem('b'), fileItem('c')] }),
        recordImage('rec2', { fldF: [fileItem('c'), fileItem('d')] }),
      ),
      change('REMOVE', recordImage('rec3', { fldF: [fileItem('e')] }), undefined),
      change('MODIFY', recordImage('rec4', { fldF: [fileItem('f')] }), recordImage('rec4', {})),
      change('MODIFY', recordImage('rec4', {}), recordImage('rec4', { fldF: [fileItem('f')] })),
      change('INSERT', undefined, {
        pk: 'ATT#a',
        sk: 'ATT',
        type: 'attachment',
        token: 'a',
        path: 'table/a',
        mimetype: 'x',
      }),
    ];

    const { taken, letGo } = referenceChanges(batch);

    expect(taken).toEqual([
      { token: 'a', tableId: 'tblA', recordId: 'rec1' },
      { token: 'd', tableId: 'tblA', recordId: 'rec2' },
    ]);
    expect(letGo).toEqual([
      { token: 'b', tableId: 'tblA', recordId: 'rec2', path: 'table/b' },
      { token: 'e', tableId: 'tblA', recordId: 'rec3', path: 'table/e' },
    ]);
  });
});

describe('release list shards', () => {
  it('spreads random tokens over every shard', () => {
    const shards = new Set(
      Array.from({ length: 200 }, (_, i) => shardOf(`${i.toString(36)}token${(i * 7919).toString(36)}`)),
    );
    expect(shards.size).toBe(RELEASE_SHARDS);
    for (const s of shards) expect(s).toBeGreaterThanOrEqual(0);
  });
});
