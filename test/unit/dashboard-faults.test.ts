import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { installDashboardPlugin } from '#shared/dashboards/dashboards.ts';
import { keys } from '#shared/db/keys.ts';
import type { Plugin } from '#shared/entities/plugins.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
const BASE = 'bse0000000000000001';
const DSH = 'dsh0000000000000001';
const USER = 'usr0000000000000001';
const PLUGIN: Plugin = {
  id: 'plg0000000000000001',
  name: 'Chart',
  logo: 'https://example.com/chart.png',
  positions: ['dashboard'],
  secretHash: 'hash',
  maskedSecret: 'abcd****wxyz',
  status: 'published',
  createdBy: USER,
  createdTime: '2026-01-01T00:00:00.000Z',
  lastModifiedTime: '2026-01-01T00:00:00.000Z',
};
const dashboard = (layoutVersion: number) => ({
  ...keys.dashboard(BASE, DSH),
  type: 'dashboard',
  id: DSH,
  name: 'D',
  layoutVersion,
});
const installItem = (id: string, y: number) => ({
  ...keys.dashboardPlugin(BASE, DSH, id),
  type: 'dashboardPlugin',
  id,
  dashboardId: DSH,
  pluginId: PLUGIN.id,
  name: 'Chart',
  x: 0,
  y,
  w: 2,
  h: 2,
});
const lostRace = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
  });
const input = { baseId: BASE, dashboardId: DSH, userId: USER, pluginId: PLUGIN.id, plugin: PLUGIN };

beforeEach(() => ddbMock.reset());

describe('installing a dashboard plugin while the dashboard changes', () => {
  it('re-reads after losing a race and takes the box below the winner', async () => {
    ddbMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [dashboard(0)] })
      .resolves({ Items: [dashboard(1), installItem('pli000000000000000A', 0)] });
    ddbMock.on(TransactWriteCommand).rejectsOnce(lostRace()).resolves({});

    const res = await installDashboardPlugin(input);

    expect(res).toMatchObject({ id: DSH, pluginId: PLUGIN.id, name: 'Chart' });
    expect(ddbMock).toHaveReceivedCommandTimes(TransactWriteCommand, 2);
    const second = ddbMock.commandCalls(TransactWriteCommand)[1]?.args[0].input.TransactItems;
    expect(second?.[0]?.Update?.ExpressionAttributeValues).toEqual({ ':v': 1, ':next': 2 });
    expect(second?.[1]?.Put?.Item).toMatchObject({ x: 0, y: 2, w: 2, h: 2, pluginId: PLUGIN.id });
  });

  it('answers 404 when the dashboard was deleted meanwhile, and writes nothing', async () => {
    ddbMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [dashboard(0)] })
      .resolves({ Items: [] });
    ddbMock.on(TransactWriteCommand).rejects(lostRace());

    await expect(installDashboardPlugin(input)).rejects.toMatchObject({
      status: 404,
      message: `Dashboard ${DSH} not found`,
    });
    expect(ddbMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
  });

  it('gives up with a 409 after losing five races in a row', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [dashboard(0)] });
    ddbMock.on(TransactWriteCommand).rejects(lostRace());

    await expect(installDashboardPlugin(input)).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(ddbMock).toHaveReceivedCommandTimes(TransactWriteCommand, 5);
  });
});
