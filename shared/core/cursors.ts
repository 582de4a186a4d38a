import { ValidationError } from './errors.ts';

/**
 * Opaque cursors: a version prefix and the position in base64url, so a caller cannot read or
 * build one, and a cursor of one listing is refused by another. `decode` answers the position a
 * cursor names, or a 400 `validation_error` on `query.cursor` when it does not parse or `isValid`
 * refuses what it names (`what` says whose cursor it should have been).
 */
export const opaqueCursor = (prefix: string, what: string, isValid: (position: string) => boolean) => ({
  encode: (position: string): string => `${prefix}${Buffer.from(position).toString('base64url')}`,
  decode: (cursor: string): string => {
    const position = cursor.startsWith(prefix)
      ? Buffer.from(cursor.slice(prefix.length), 'base64url').toString()
      : '';
    if (!position || !isValid(position))
      throw new ValidationError(`Invalid query.cursor: not a cursor of ${what}`, [
        { path: 'query.cursor', message: `not a cursor of ${what}` },
      ]);
    return position;
  },
});
