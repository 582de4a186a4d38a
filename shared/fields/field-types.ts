/**
 * The field model (contract `fields.md`) and the interface every field type implements. Pure:
 * no AWS import. The record write path calls a type's functions through `fieldKind(type)`.
 */

export const FIELD_TYPES = [
  'singleLineText',
  'longText',
  'number',
  'rating',
  'checkbox',
  'singleSelect',
  'multipleSelect',
  'date',
  'user',
  'attachment',
  'link',
  'autoNumber',
  'createdTime',
  'lastModifiedTime',
  'createdBy',
  'lastModifiedBy',
  'formula',
  'rollup',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export type CellValueType = 'string' | 'number' | 'boolean' | 'dateTime';

export type LinkRelationship = 'oneOne' | 'oneMany' | 'manyOne' | 'manyMany';

export interface Choice {
  id: string;
  name: string;
  color: string;
}

/** A field as stored and as answered by the API (fields.md, first paragraph). */
export interface Field {
  id: string;
  name: string;
  type: FieldType;
  description?: string | null;
  options: Record<string, unknown>;
  dbFieldName: string;
  isPrimary?: boolean;
  isComputed?: boolean;
  isLookup?: boolean;
  lookupOptions?: Record<string, unknown> | null;
  notNull?: boolean;
  unique?: boolean;
  cellValueType: CellValueType;
  isMultipleCellValue?: boolean;
  /** Computed fields: how the reference stores the result (`TEXT`, `REAL`, `BOOLEAN`, `DATETIME`, `JSON`). */
  dbFieldType?: string;
  /** Computed fields whose source is gone (a deleted field or link): cells are empty until fixed. */
  hasError?: boolean;
}

/** A collaborator of the table's space, as user cells hold them. */
export interface UserRef {
  id: string;
  title: string;
  email: string;
}

/**
 * What a stored cell holds, per type. Empty cells are never stored (absent attribute).
 * - text types, singleSelect (choice name), date / createdTime / lastModifiedTime (ISO UTC): string
 * - number, rating, autoNumber: number
 * - checkbox: true
 * - multipleSelect: string[] (choice names)
 * - user: UserRef, or UserRef[] when `isMultiple`
 * - attachment: object[]
 * - link: string[] of foreign record ids (at most one for oneOne / manyOne); titles are looked up
 *   when answering, so they always follow the foreign primary field
 */
export type StoredCell =
  | string
  | number
  | boolean
  | string[]
  | UserRef
  | UserRef[]
  | Record<string, unknown>[]
  // computed results (formula, rollup, lookup): a list of numbers, texts or booleans
  | (string | number | boolean)[];

/** What converting one written value needs besides the value and the field. */
export interface WriteContext {
  now: Date;
  /** The caller (for `"me"` defaults and user filters). */
  user: UserRef;
  /** Collaborators of the space, to validate and typecast user cells. */
  collaborators: readonly UserRef[];
  /** New select choices get ids from here (`cho…`). */
  newChoiceId: () => string;
  /**
   * The uploaded files the written attachment cells may name, by token: those confirmed and
   * belonging to the table's base (read before converting when attachment cells are written). A
   * cell naming any other token is refused; its path, size, type and image size come from here.
   */
  attachments?: ReadonlyMap<string, AttachmentFacts>;
}

/** What the service knows of an uploaded file (`entities/attachments.ts`). */
export interface AttachmentFacts {
  token: string;
  path: string;
  size: number;
  mimetype: string;
  name?: string;
  width?: number;
  height?: number;
}

/** The outcome of converting one written value. */
export interface Converted {
  /** The cell to store; undefined clears it. */
  value: StoredCell | undefined;
  /** Select choices that typecast added (the write path adds them to the field). */
  newChoices?: Choice[];
  /**
   * For link cells written by title with typecast: texts still to resolve against the foreign
   * table's primary field (the write path resolves them; ids in `value` are kept as given).
   */
  linkTitles?: string[];
}

/** What rendering a cell needs besides the stored value. */
export interface ReadContext {
  /** Titles of linked records by id (the foreign primary field's text); unknown ids are dropped. */
  linkTitle: (fieldId: string, recordId: string) => string | undefined;
  /**
   * The thumbnails made so far of an uploaded image (`sm`, `lg`), by its token; undefined when not
   * known (an answer then points the thumbnail URLs at the file itself, as Teable does).
   */
  thumbnails?: (token: string) => readonly ('sm' | 'lg')[] | undefined;
}

/**
 * How the query engine reads a field's cells (listing.md sections 2–5): which operators filter
 * it and what a filter value is, how its cells sort and group. Select, user and link cells also
 * differ by whether they hold a list (`isMultipleCellValue`); the other classes do not.
 */
export type QueryValueClass =
  | 'text'
  | 'number'
  | 'boolean'
  | 'dateTime'
  | 'select'
  | 'user'
  | 'link'
  | 'attachment';

/** What a field kind means to the query engine: filter, sort, group and search follow from it. */
export interface KindQuery {
  valueClass: QueryValueClass;
  /** Digits a number's group value is rounded to when the field's formatting names none; absent: not rounded. */
  groupPrecision?: number;
  /** False for kinds a search of all fields leaves out (fields whose cells are times are left out too). */
  searchedByDefault: boolean;
  /** How costly testing one cell in a search is, 0 (cheapest) to 5: a row's fields are tried cheapest first. */
  searchCost: number;
  /**
   * The characters `toText` can produce for the field (lower-cased), or undefined when it may
   * produce anything: a search skips a field that cannot hold the searched text, so this must
   * never leave a character out.
   */
  textAlphabet?: (field: Field) => string | undefined;
}

/**
 * One field type. Every function is pure and synchronous; errors are `ValidationError`s (400)
 * whose message names the field.
 */
export interface FieldKind {
  type: FieldType;
  /** Default name when a field is created without one (made unique by the caller). */
  defaultName: string;
  /** Computed types ignore writes. */
  isComputed: boolean;
  /** Allowed as the first (primary) field of a table. */
  allowedAsPrimary: boolean;
  /** Checks the options of a new or changed field and fills defaults. */
  normalizeOptions(options: unknown, ctx: { newChoiceId: () => string }): Record<string, unknown>;
  cellValueType(options: Record<string, unknown>): CellValueType;
  isMultipleCellValue(options: Record<string, unknown>): boolean;
  /** A written value without typecast: validated, normalised (e.g. text line breaks), or a 400. */
  validate(value: unknown, field: Field, ctx: WriteContext): Converted;
  /** A written value with typecast: converted as `fields.md` says; never a 400 for the value. */
  typecast(value: unknown, field: Field, ctx: WriteContext): Converted;
  /** The default of a cell left empty on create (`defaultValue` option; `now`, `me` resolved). */
  defaultValue(field: Field, ctx: WriteContext): StoredCell | undefined;
  /** The JSON cell value of `cellFormat=json`. */
  toJson(value: StoredCell, field: Field, ctx: ReadContext): unknown;
  /** The text of `cellFormat=text` (fields.md table), also used for search and `record.name`. */
  toText(value: StoredCell, field: Field, ctx: ReadContext): string;
  /** How filters, sorting, grouping and search treat the kind's cells. */
  query: KindQuery;
  /** True when filters, sorts, groups and search go by the result type instead of `query`. */
  queryByResult?: boolean;
}
