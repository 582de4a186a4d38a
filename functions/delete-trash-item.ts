import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { deleteTrashItemForGood, resolveTrashItem, trashItemKey } from '#shared/trash/trash.ts';

const params = z.object({ trashId: idOf('trash') });

export const handler = defineHandler(
  'delete-trash-item',
  { params, preload: (_, { params }) => [trashItemKey(params.trashId)] },
  async ({ params, principal, loaded }) => {
    await deleteTrashItemForGood(await resolveTrashItem(principal, loaded, params.trashId), principal.userId);
  },
);
