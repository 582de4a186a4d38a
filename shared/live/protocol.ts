/**
 * The live subscription protocol (data-flow.md 5), pure: what a client may send (`subscribe`,
 * `unsubscribe`, and `auth` as the first message when the token is not in the URL) and what the
 * server sends (`subscribed`, `unsubscribed`, `change`, `error`, `ping`).
 */
import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import type { ChangeEntry } from '#shared/entities/change-log.ts';

const target = { baseId: z.optional(idOf('base')), tableId: z.optional(idOf('table')) };

export const clientMessage = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('auth'), token: z.string().check(z.minLength(1), z.maxLength(4096)) }),
  z.strictObject({
    action: z.literal('subscribe'),
    ...target,
    sinceSeq: z.optional(z.number().check(z.int(), z.minimum(0))),
  }),
  z.strictObject({ action: z.literal('unsubscribe'), ...target }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

/** What a subscription names: a base, or one table of it. */
export interface LiveTarget {
  baseId?: string;
  tableId?: string;
}

/** The key a subscription is kept under (one per base or table a connection follows). Pure. */
export const targetKey = (t: LiveTarget): string => (t.tableId ? `table:${t.tableId}` : `base:${t.baseId}`);

export type ServerMessage =
  | { type: 'subscribed'; baseId: string; tableId?: string; seq: number }
  | { type: 'unsubscribed'; baseId?: string; tableId?: string }
  | { type: 'change'; entry: ChangeEntry }
  | { type: 'error'; code: string; message: string }
  | { type: 'ping' };

/** A client message parsed, or why it is not one (an `error` to send back). Pure. */
export const parseClientMessage = (
  text: string,
): { ok: true; message: ClientMessage } | { ok: false; error: ServerMessage } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: { type: 'error', code: 'validation_error', message: 'a message is JSON' } };
  }
  const parsed = z.safeParse(clientMessage, value);
  if (!parsed.success)
    return {
      ok: false,
      error: {
        type: 'error',
        code: 'validation_error',
        message: `not a message of the protocol: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || 'message'}: ${i.message}`)
          .join('; ')}`,
      },
    };
  const m = parsed.data;
  if (m.action !== 'auth' && Boolean(m.baseId) === Boolean(m.tableId))
    return {
      ok: false,
      error: { type: 'error', code: 'validation_error', message: 'name one of baseId or tableId' },
    };
  return { ok: true, message: m };
};
