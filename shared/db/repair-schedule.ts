/**
 * How often the repair worker runs: read by the stack (its schedule) and the local server, so it
 * lives apart from the database code (importing that reads the table's configuration).
 */
export const REPAIR_EVERY_SECONDS = 60;
