/**
 * Helpers of the computed-field integration tests (computed.md): a base in a fresh workspace with
 * tables made by name, and short calls for fields, records and listings that assert success and
 * answer what the tests compare.
 */
import { expect } from 'vitest';
import type { Field } from './answers.ts';
import { type CallResult, call } from './invoke.ts';
import { newWorkspace } from './workspace.ts';

export type Cells = Record<string, unknown>;

/** A table as created: its id, fields and record ids by primary name. */
export interface Tbl {
  id: string;
  viewId: string;
  fields: Field[];
  /** Record ids in creation order. */
  ids: string[];
  /** The id of the field named `name`. */
  f: (name: string) => string;
  /** The id of the record whose primary cell (first field) was `name` at creation. */
  r: (name: string) => string;
}

export type FieldAnswer = Field & {
  options: Record<string, unknown>;
  lookupOptions?: Record<string, unknown>;
  cellValueType?: string;
  isMultipleCellValue?: boolean;
  hasError?: boolean;
};

/** A base owned by a fresh user, with helpers bound to its owner's token. */
export const newBase = async () => {
  const ws = await newWorkspace();
  const token = ws.owner.auth;

  const table = async (name: string, fields: unknown[], records: Cells[] = []): Promise<Tbl> => {
    const res = await call('create-table', {
      token,
      params: { baseId: ws.baseId },
      body: { name, fields, records: records.map((fields) => ({ fields })) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const body = res.body as {
      id: string;
      fields: Field[];
      records: { id: string }[];
      views: { id: string }[];
    };
    const ids = body.records.map((r) => r.id);
    const primary = (fields[0] as { name: string }).name;
    return {
      id: body.id,
      viewId: body.views[0]?.id as string,
      fields: body.fields,
      ids,
      f: (n) => {
        const field = body.fields.find((x) => x.name === n);
        if (!field) throw new Error(`no field ${n} in ${name}`);
        return field.id;
      },
      r: (n) => {
        const i = records.findIndex((c) => c[primary] === n);
        if (i < 0) throw new Error(`no record ${n} in ${name}`);
        return ids[i] as string;
      },
    };
  };

  const tryField = (tableId: string, body: Record<string, unknown>) =>
    call('create-field', { token, params: { tableId }, body });

  const field = async (tableId: string, body: Record<string, unknown>): Promise<FieldAnswer> => {
    const res = await tryField(tableId, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as FieldAnswer;
  };

  const getField = async (tableId: string, fieldId: string): Promise<FieldAnswer> => {
    const res = await call('get-field', { token, params: { tableId, fieldId } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as FieldAnswer;
  };

  const patchField = (tableId: string, fieldId: string, body: Record<string, unknown>) =>
    call('update-field', { token, params: { tableId, fieldId }, body });

  const deleteField = async (tableId: string, fieldId: string) => {
    const res = await call('delete-field', { token, params: { tableId, fieldId } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  /** A link field of `tableId` to `foreignTableId`. */
  const link = (
    tableId: string,
    foreignTableId: string,
    relationship: string,
    name: string,
    extra: Record<string, unknown> = {},
  ) => field(tableId, { type: 'link', name, options: { relationship, foreignTableId, ...extra } });

  /** A lookup of `lookupFieldId` (of the linked table) through `linkField`. */
  const lookup = (
    tableId: string,
    linkField: FieldAnswer,
    lookupFieldId: string,
    type: string,
    extra: Record<string, unknown> = {},
  ) =>
    field(tableId, {
      type,
      isLookup: true,
      lookupOptions: {
        foreignTableId: linkField.options.foreignTableId,
        linkFieldId: linkField.id,
        lookupFieldId,
      },
      ...extra,
    });

  /** A rollup `expression` of `lookupFieldId` through `linkField`. */
  const rollup = (
    tableId: string,
    linkField: FieldAnswer,
    lookupFieldId: string,
    expression: string,
    extra: Record<string, unknown> = {},
  ) =>
    field(tableId, {
      type: 'rollup',
      ...extra,
      options: { expression, ...((extra.options as object) ?? {}) },
      lookupOptions: {
        foreignTableId: linkField.options.foreignTableId,
        linkFieldId: linkField.id,
        lookupFieldId,
      },
    });

  const tryUpdate = (tableId: string, recordId: string, fields: Cells, typecast = true) =>
    call('update-record', {
      token,
      params: { tableId, recordId },
      body: { record: { fields }, typecast },
    });

  /** Updates one record (200 asserted) and answers the record of the answer. */
  const update = async (tableId: string, recordId: string, fields: Cells, typecast = true) => {
    const res = await tryUpdate(tableId, recordId, fields, typecast);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { id: string; fields: Cells };
  };

  /** Creates records (201 asserted) and answers them. */
  const create = async (tableId: string, records: Cells[], typecast = true) => {
    const res = await call('create-records', {
      token,
      params: { tableId },
      body: { records: records.map((fields) => ({ fields })), typecast },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.records as { id: string; fields: Cells }[];
  };

  const list = async (tableId: string, query = ''): Promise<CallResult> => {
    const res = await call('list-records', { token, params: { tableId }, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };

  /** The cells of one field, in list order (undefined for an empty cell). */
  const cells = async (tableId: string, fieldName: string, query = '') =>
    (await list(tableId, query)).body.records.map((r: { fields: Cells }) => r.fields[fieldName]);

  /** The record names of a listing, in order. */
  const names = async (tableId: string, query = '') =>
    (await list(tableId, query)).body.records.map((r: { name: string }) => r.name) as string[];

  /** One record's cells as stored (get-record). */
  const record = async (tableId: string, recordId: string, query = '') => {
    const res = await call('get-record', { token, params: { tableId, recordId }, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.fields as Cells;
  };

  return {
    ...ws,
    token,
    table,
    tryField,
    field,
    getField,
    patchField,
    deleteField,
    link,
    lookup,
    rollup,
    tryUpdate,
    update,
    create,
    list,
    cells,
    names,
    record,
  };
};

export type Base = Awaited<ReturnType<typeof newBase>>;
