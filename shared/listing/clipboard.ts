/**
 * Pasting onto a grid selection (teable-routes.md "Selection"), the pure part: clipboard text
 * (tab-separated lines, quoted as spreadsheets do) read into rows of cells, where a paste starts
 * and what it covers, and the values each pasted row writes. Decisions: one line break ending the
 * text is the clipboard's terminator, not an empty last row; a cell that opens a quote it does not
 * close right before a tab, a line break or the end is taken as it is; a short row leaves the
 * cells it lacks untouched; empty text clears a cell.
 */
import { PayloadTooLargeError, ValidationError } from '#shared/core/errors.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import type { RangeType } from './selection.ts';

/** Rows one paste may cover (a row is a record written or created: the per-call record limit). */
export const MAX_PASTE_ROWS = 1000;
/** Columns one paste may cover (the cells one record write may set). */
export const MAX_PASTE_COLUMNS = 500;
/** Columns one paste may add as new fields (each is its own schema write). */
export const MAX_NEW_COLUMNS = 100;

const isBreak = (c: string | undefined) => c === '\n' || c === '\r';
const isDelimiter = (c: string | undefined) => c === undefined || c === '\t' || isBreak(c);

/** A quoted cell starting at `from` (a `"`): its text and where it ends, or undefined if not well closed. */
const quotedCell = (text: string, from: number): { cell: string; end: number } | undefined => {
  let cell = '';
  let j = from + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '"') {
      if (text[j + 1] === '"') {
        cell += '"';
        j += 2;
        continue;
      }
      return isDelimiter(text[j + 1]) ? { cell, end: j + 1 } : undefined;
    }
    cell += c;
    j++;
  }
  return undefined;
};

/** Clipboard text as rows of cells: tab-separated lines, quoted as spreadsheets quote them. Pure. */
export const parseClipboardText = (text: string): string[][] => {
  const body = text.endsWith('\r\n') ? text.slice(0, -2) : isBreak(text.at(-1)) ? text.slice(0, -1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  for (;;) {
    const quoted = body[i] === '"' ? quotedCell(body, i) : undefined;
    if (quoted) {
      row.push(quoted.cell);
      i = quoted.end;
    } else {
      let j = i;
      while (!isDelimiter(body[j])) j++;
      row.push(body.slice(i, j));
      i = j;
    }
    if (i >= body.length) break;
    if (body[i] === '\t') {
      i++;
      continue;
    }
    i += body[i] === '\r' && body[i + 1] === '\n' ? 2 : 1;
    rows.push(row);
    row = [];
  }
  rows.push(row);
  return rows;
};

/**
 * `content` of a paste: clipboard text, or rows of cell values (a 2-D array); a 400 otherwise or
 * when there is nothing to paste, a 413 beyond `MAX_PASTE_ROWS`. Pure.
 */
export const readPasteContent = (raw: unknown): unknown[][] => {
  let rows: unknown[][];
  if (typeof raw === 'string') rows = parseClipboardText(raw);
  else if (Array.isArray(raw) && raw.every(Array.isArray)) rows = raw as unknown[][];
  else throw new ValidationError('content: must be tab-separated text or a list of rows of cells');
  if (rows.length === 0 || rows.every((r) => r.length === 0))
    throw new ValidationError('content: nothing to paste');
  if (rows.length > MAX_PASTE_ROWS)
    throw new PayloadTooLargeError(`content: at most ${MAX_PASTE_ROWS} rows per paste`);
  if (rows.some((r) => r.length > MAX_PASTE_COLUMNS))
    throw new ValidationError(`content: at most ${MAX_PASTE_COLUMNS} cells per row`);
  return rows;
};

/** `header` of a paste (the copied fields): only checked, as a list of fields, when given. Pure. */
export const readPasteHeader = (raw: unknown): void => {
  if (raw === undefined || raw === null) return;
  const isField = (f: unknown) =>
    typeof f === 'object' &&
    f !== null &&
    ['id', 'name', 'type'].every((k) => typeof (f as Record<string, unknown>)[k] === 'string');
  if (!Array.isArray(raw) || raw.length > MAX_PASTE_COLUMNS || !raw.every(isField))
    throw new ValidationError(
      `header: must be a list of at most ${MAX_PASTE_COLUMNS} fields, each with an id, a name and a type`,
    );
};

/** The top-left cell `[column, row]` of a selection: where a paste starts. Pure. */
export const pasteStart = (ranges: readonly [number, number][], type: RangeType): [number, number] => {
  const [first, second] = ranges as [[number, number], [number, number] | undefined];
  if (type === 'rows') return [0, Math.min(...first)];
  if (type === 'columns') return [Math.min(...first), 0];
  if (!second || ranges.length % 2 !== 0)
    throw new ValidationError('ranges: a block needs two corners per range');
  return [Math.min(first[0], second[0]), Math.min(first[1], second[1])];
};

/** A paste starts at most one past the last column or row (it grows the grid, leaving no gap). Pure. */
export const assertStartInGrid = (grid: { columns: number; rows: number }, [col, row]: [number, number]) => {
  if (col > grid.columns)
    throw new ValidationError(`ranges: column ${col} is past the last column (${grid.columns - 1})`);
  if (row > grid.rows)
    throw new ValidationError(`ranges: row ${row} is past the last row (${grid.rows - 1})`);
};

/** The block a paste covers and how far it grows the grid. */
export interface PastePlan {
  /** `[[col0, row0], [col1, row1]]`: the cells written, corners included. */
  ranges: [[number, number], [number, number]];
  /** Rows past the last record: records to create. */
  newRows: number;
  /** Columns past the last visible field: fields to create. */
  newColumns: number;
}

/**
 * Where `content` lands on a grid of `columns` × `rows` from `start`, and how many records and
 * fields it needs beyond the grid; a start past the grid (`assertStartInGrid`) is a 400. Pure.
 */
export const planPaste = (
  grid: { columns: number; rows: number },
  start: [number, number],
  content: readonly unknown[][],
): PastePlan => {
  const [col, row] = start;
  assertStartInGrid(grid, start);
  const width = Math.max(...content.map((r) => r.length));
  const height = content.length;
  const newColumns = Math.max(0, col + width - grid.columns);
  if (newColumns > MAX_NEW_COLUMNS)
    throw new ValidationError(`content: a paste may add at most ${MAX_NEW_COLUMNS} columns`);
  return {
    ranges: [
      [col, row],
      [col + width - 1, row + height - 1],
    ],
    newRows: Math.max(0, row + height - grid.rows),
    newColumns,
  };
};

/** True for a field whose cells a write leaves alone (formulas, lookups, system fields). */
const isComputedField = (f: Field) => Boolean(f.isComputed || f.isLookup || fieldKind(f.type).isComputed);

/**
 * The values each pasted row writes, by field id: `content` laid on `columns` (the grid's columns
 * from the paste's first one). Computed fields and cells past `columns` or a short row are left
 * out; empty text clears the cell. Pure.
 */
export const pastedRows = (
  content: readonly unknown[][],
  columns: readonly Field[],
): Record<string, unknown>[] =>
  content.map((cells) => {
    const fields: Record<string, unknown> = {};
    cells.forEach((value, i) => {
      const field = columns[i];
      if (!field || isComputedField(field)) return;
      fields[field.id] = value === '' || value === undefined ? null : value;
    });
    return fields;
  });
