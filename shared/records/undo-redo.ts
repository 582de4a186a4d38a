/**
 * Undo and redo (Teable's `POST /table/{t}/undo-redo/undo` and `…/redo`) are not built yet: both
 * answer Teable's `failed` with this message, which its web app shows, and write nothing. Built
 * for real, they will undo a user's own last writes in a window (`X-Window-Id`) from the change
 * log, as new writes, refused when someone else changed the same cells since.
 */
export const UNDO_NOT_BUILT = {
  status: 'failed',
  errorMessage: 'Undo and redo are not available on this service yet; nothing was changed',
} as const;
