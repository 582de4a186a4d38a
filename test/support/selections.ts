/** Grid selections the route and role matrices send: the first cell, and pasting `x` into it. */
export const FIRST_CELL = {
  ranges: [
    [0, 0],
    [0, 0],
  ],
};
export const PASTE_INTO_FIRST_CELL = { ...FIRST_CELL, content: 'x' };
