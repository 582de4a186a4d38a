import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { getBase } from '#shared/workspace/bases.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler(
  'get-base',
  { params, resource: { kind: 'base', param: 'baseId' } },
  async ({ resource }) => getBase(resource),
);
