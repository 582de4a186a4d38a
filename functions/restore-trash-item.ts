import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { restoreTrashItem } from '#shared/trash/trash.ts';

const params = z.object({ trashId: idOf('trash') });

// The chain finds the trash item and checks `<type>|delete` on its resource.
export const handler = defineHandler('restore-trash-item', { params }, async ({ resource }) => {
  await restoreTrashItem(resource);
});
