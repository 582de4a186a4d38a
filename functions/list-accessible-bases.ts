import { listAccessibleBases } from '#shared/bases/bases.ts';
import { defineHandler } from '#shared/http/handler.ts';

export const handler = defineHandler('list-accessible-bases', {}, async ({ principal }) =>
  listAccessibleBases(principal),
);
