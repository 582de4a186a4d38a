import * as z from 'zod/mini';
import { listDashboards } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler(
  'list-dashboards',
  { params, resource: { kind: 'base', param: 'baseId' } },
  async ({ params }) => listDashboards(params.baseId),
);
