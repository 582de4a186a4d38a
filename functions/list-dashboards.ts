import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { listDashboards } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler('list-dashboards', { params }, async ({ params }) =>
  listDashboards(params.baseId),
);
