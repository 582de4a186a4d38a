import * as z from 'zod/mini';
import { getBase } from '#shared/bases/bases.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler('get-base', { params }, async ({ resource }) => getBase(resource));
