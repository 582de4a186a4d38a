import { describe, expect, it } from 'vitest';
import {
  type ContextMenuEntry,
  contextMenuEntryOf,
  toContextMenuEntryItem,
} from '#shared/entities/context-menu-entries.ts';
import {
  type Dashboard,
  type DashboardPlugin,
  dashboardOf,
  dashboardPluginOf,
  toDashboardItem,
  toDashboardPluginItem,
} from '#shared/entities/dashboards.ts';
import {
  type Plugin,
  pluginOf,
  toPluginItem,
  toPublishedPluginItem,
  toUserPluginItem,
} from '#shared/entities/plugins.ts';

const BASE = 'bse0000000000000001';
const DSH = 'dsh0000000000000001';
const PLI = 'pli0000000000000001';
const PLG = 'plg0000000000000001';
const USR = 'usr0000000000000001';
const TBL = 'tbl0000000000000001';
const T0 = '2026-01-01T00:00:00.000Z';

describe('dashboard items', () => {
  const dashboard: Dashboard = { id: DSH, name: 'Sales', layoutVersion: 3, createdBy: USR, createdTime: T0 };

  it('reads back a dashboard written by toDashboardItem unchanged', () => {
    const item = toDashboardItem(BASE, dashboard);
    expect(item).toMatchObject({ pk: `BASE#${BASE}`, sk: `DASH#${DSH}`, type: 'dashboard' });
    expect(dashboardOf(item)).toEqual(dashboard);
  });

  it('reads a dashboard as stored today, renamed', () => {
    const stored = {
      pk: `BASE#${BASE}`,
      sk: `DASH#${DSH}`,
      type: 'dashboard',
      id: DSH,
      name: 'Renamed',
      layoutVersion: 0,
      createdBy: USR,
      createdTime: T0,
      lastModifiedTime: '2026-01-02T00:00:00.000Z',
    };
    expect(dashboardOf(stored)).toEqual({
      id: DSH,
      name: 'Renamed',
      layoutVersion: 0,
      createdBy: USR,
      createdTime: T0,
      lastModifiedTime: '2026-01-02T00:00:00.000Z',
    });
  });

  it('reads a dashboard without layoutVersion as version 0', () => {
    expect(
      dashboardOf({ type: 'dashboard', id: DSH, name: 'D', createdBy: USR, createdTime: T0 }).layoutVersion,
    ).toBe(0);
  });

  const install: DashboardPlugin = {
    id: PLI,
    dashboardId: DSH,
    pluginId: PLG,
    name: 'Chart',
    url: 'https://example.com/chart',
    x: 0,
    y: 4,
    w: 2,
    h: 2,
    createdBy: USR,
    createdTime: T0,
  };

  it('reads back an install written by toDashboardPluginItem unchanged', () => {
    const item = toDashboardPluginItem(BASE, install);
    expect(item).toMatchObject({ pk: `BASE#${BASE}`, sk: `DASH#${DSH}#PLI#${PLI}`, type: 'dashboardPlugin' });
    expect(dashboardPluginOf(item)).toEqual(install);
  });

  it('reads an install as stored today (no url)', () => {
    const stored = {
      pk: `BASE#${BASE}`,
      sk: `DASH#${DSH}#PLI#${PLI}`,
      type: 'dashboardPlugin',
      id: PLI,
      dashboardId: DSH,
      pluginId: PLG,
      name: 'Chart',
      x: 0,
      y: 2,
      w: 2,
      h: 2,
      createdBy: USR,
      createdTime: T0,
    };
    expect(dashboardPluginOf(stored)).toEqual({
      id: PLI,
      dashboardId: DSH,
      pluginId: PLG,
      name: 'Chart',
      x: 0,
      y: 2,
      w: 2,
      h: 2,
      createdBy: USR,
      createdTime: T0,
    });
  });
});

describe('plugin items', () => {
  const plugin: Plugin = {
    id: PLG,
    name: 'Chart',
    description: 'Draws charts',
    positions: ['dashboard', 'contextMenu'],
    url: 'https://example.com/chart',
    logo: 'https://example.com/chart.png',
    helpUrl: 'https://example.com/help',
    detailDesc: 'Long text',
    i18n: { en: { title: 'Chart' } },
    config: { contextMenu: { width: 300 } },
    secretHash: 'hash',
    maskedSecret: 'abcd****wxyz',
    status: 'reviewing',
    createdBy: USR,
    createdTime: T0,
    lastModifiedTime: T0,
  };

  it.each([
    ['the record of truth', toPluginItem, { pk: `PLUGIN#${PLG}`, sk: 'PLUGIN' }],
    ['the published copy', toPublishedPluginItem, { pk: 'PLUGINS#published', sk: `PLUGIN#${PLG}` }],
    ['the creator copy', toUserPluginItem, { pk: `USER#${USR}`, sk: `PLUGIN#${PLG}` }],
  ])('reads back %s unchanged', (_, toItem, key) => {
    const item = toItem(plugin);
    expect(item).toMatchObject({ ...key, type: 'plugin' });
    expect(pluginOf(item)).toEqual(plugin);
  });

  it('reads a plugin stored before logos and secrets (no description, no url, published)', () => {
    const stored = {
      pk: `PLUGIN#${PLG}`,
      sk: 'PLUGIN',
      type: 'plugin',
      id: PLG,
      name: 'Chart',
      positions: ['dashboard'],
      status: 'published',
      createdBy: USR,
      createdTime: T0,
    };
    expect(pluginOf(stored)).toEqual({
      id: PLG,
      name: 'Chart',
      logo: '',
      positions: ['dashboard'],
      secretHash: '',
      maskedSecret: '',
      status: 'published',
      createdBy: USR,
      createdTime: T0,
      lastModifiedTime: T0,
    });
  });
});

describe('context menu entry items', () => {
  const entry: ContextMenuEntry = {
    pluginInstallId: PLI,
    pluginId: PLG,
    name: 'Export',
    orderKey: 'a0',
    createdBy: USR,
    createdTime: T0,
  };

  it('reads back an entry written by toContextMenuEntryItem unchanged', () => {
    const item = toContextMenuEntryItem(TBL, entry);
    expect(item).toMatchObject({ pk: `TABLE#${TBL}`, sk: `MENU#${PLI}`, type: 'contextMenuPlugin', id: PLI });
    expect(contextMenuEntryOf(item)).toEqual(entry);
  });

  it('reads an entry as stored today', () => {
    const stored = {
      pk: `TABLE#${TBL}`,
      sk: `MENU#${PLI}`,
      type: 'contextMenuPlugin',
      id: PLI,
      pluginId: PLG,
      name: 'Export',
      orderKey: 'a1',
      createdBy: USR,
      createdTime: T0,
    };
    expect(contextMenuEntryOf(stored)).toEqual({ ...entry, orderKey: 'a1' });
  });
});
