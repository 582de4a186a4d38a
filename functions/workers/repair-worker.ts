import { logger } from '#shared/core/logger.ts';
import { repairInterrupted } from '#shared/db/commit.ts';

/**
 * The repair worker (not a route), run every minute by a schedule: finishes or undoes the large
 * writes whose writer's lease ran out (`shared/db/commit.ts` `repairInterrupted`).
 */
export const handler = async (): Promise<{ undone: number; completed: number; skipped: number }> => {
  const report = await repairInterrupted();
  if (report.undone || report.completed) logger.info('repaired interrupted writes', { ...report });
  return report;
};
