/**
 * Routes Teable's web app calls on everyday paths (issue 47, contract web-app §4), through
 * Teable's own client (`@teable/openapi`) against the local server, each answer parsed with the
 * client's own schema: the field editor's calculation plans (for real: the cells a write computes
 * or converts), comment counts (comments are not built: honestly none) and the instance settings.
 */
import {
  commentCountVoSchema,
  configApi,
  createBase,
  createSpace,
  createTable,
  getCommentCount,
  getRecordCommentCount,
  getSetting,
  planField,
  planFieldConvert,
  planFieldConvertVoSchema,
  planFieldCreate,
  planFieldVoSchema,
  recordCommentCountVoSchema,
  settingVoSchema,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { MS_PER_CELL } from '#shared/tables/field-plan.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();
let owner: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  owner = await newUser({ name: 'Compat web app' });
  configApi({ token: owner.token, endpoint: api.base.replace(/\/api$/, '') });
});

const table = async () => {
  const space = await createSpace({ name: 'Web app' });
  const base = await createBase({ spaceId: space.data.id });
  const created = await createTable(base.data.id, {
    fields: [
      { name: 'Name', type: 'singleLineText' as never },
      { name: 'Count', type: 'number' as never },
    ],
    records: [{ fields: { Name: 'a', Count: 1 } }, { fields: { Name: 'b', Count: 2 } }, { fields: {} }],
  });
  const fieldId = (name: string) => created.data.fields.find((f) => f.name === name)?.id as string;
  return {
    spaceId: space.data.id,
    tableId: created.data.id,
    fieldId,
    recordId: created.data.records[0]?.id as string,
  };
};

describe("the field editor's plans", () => {
  it('a plain field writes no cell; a formula every record; a bad definition is the 400 the create gives', async () => {
    const t = await table();
    const plain = await planFieldCreate(t.tableId, { name: 'Note', type: 'singleLineText' as never });
    expect(plain.status).toBe(201);
    expect(planFieldVoSchema.parse(plain.data)).toEqual({ estimateTime: 0, updateCellCount: 0 });
    const formula = await planFieldCreate(t.tableId, {
      type: 'formula' as never,
      options: { expression: `{${t.fieldId('Count')}} * 2` },
    });
    expect(formula.data).toEqual({ estimateTime: Math.round(3 * MS_PER_CELL), updateCellCount: 3 });
    const bad = await call('plan-field-create', {
      token: owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'formula', options: { expression: '{fldNope0000000000} +' } },
    });
    const create = await call('create-field', {
      token: owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'formula', options: { expression: '{fldNope0000000000} +' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ...create.body });
    // nothing was created by a plan
    const fields = await call('list-fields', { token: owner.auth, params: { tableId: t.tableId } });
    expect(fields.body).toHaveLength(2);
  });

  it('a rename is skipped; a conversion rewrites every record; a computed field recomputes every record', async () => {
    const t = await table();
    const rename = await planFieldConvert(t.tableId, t.fieldId('Name'), {
      name: 'Title',
      type: 'singleLineText' as never,
    });
    expect(planFieldConvertVoSchema.parse(rename.data)).toEqual({ skip: true });
    const convert = await planFieldConvert(t.tableId, t.fieldId('Count'), {
      type: 'singleLineText' as never,
    });
    expect(convert.data).toEqual({ estimateTime: Math.round(3 * MS_PER_CELL), updateCellCount: 3 });
    expect((await planField(t.tableId, t.fieldId('Name'))).data).toEqual({
      estimateTime: 0,
      updateCellCount: 0,
    });
    const formula = await call('create-field', {
      token: owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'formula', options: { expression: `{${t.fieldId('Count')}} + 1` } },
    });
    expect(planFieldVoSchema.parse((await planField(t.tableId, formula.body.id)).data)).toMatchObject({
      updateCellCount: 3,
    });
  });

  it('needs the right to create or change fields: a viewer is refused', async () => {
    const t = await table();
    const viewer = await newUser();
    await call('add-collaborators', {
      token: owner.auth,
      params: { spaceId: t.spaceId },
      body: { collaborators: [{ principalId: viewer.id, principalType: 'user' }], role: 'viewer' },
    });
    const res = await call('plan-field-create', {
      token: viewer.auth,
      params: { tableId: t.tableId },
      body: { type: 'singleLineText' },
    });
    expect(res.status).toBe(403);
  });
});

describe('comment counts and the instance settings', () => {
  it('comments are not built: no record has any; a record that is not there is a 404', async () => {
    const t = await table();
    const counts = await getCommentCount(t.tableId, {});
    expect(commentCountVoSchema.parse(counts.data)).toEqual([]);
    const one = await getRecordCommentCount(t.tableId, t.recordId);
    expect(recordCommentCountVoSchema.parse(one.data)).toEqual({ count: 0 });
    const missing = await call('get-record-comment-count', {
      token: owner.auth,
      params: { tableId: t.tableId, recordId: 'rec0000000000000000' },
    });
    expect(missing.status).toBe(404);
  });

  it("the settings say whether sign-up is closed (the stage's signup), to any signed-in user", async () => {
    const settings = await getSetting();
    expect(settingVoSchema.parse(settings.data)).toEqual({
      instanceId: expect.any(String),
      disallowSignUp: process.env.SIGNUP !== 'open',
      disallowSpaceCreation: false,
      disallowSpaceInvitation: false,
    });
    const anonymous = await call('get-instance-settings', {});
    expect(anonymous.status).toBe(401);
  });
});
