import * as z from 'zod/mini';
import { idOf, listOf, text } from '#shared/core/validation.ts';
import { CHANGE_TYPES } from '#shared/entities/change-log.ts';

/** The input shapes of the webhook routes (data-flow.md 4). */
export const webhookParams = z.object({ baseId: idOf('base'), webhookId: idOf('webhook') });

const settings = {
  url: z.string().check(z.minLength(1), z.maxLength(2000)),
  events: listOf(z.enum(CHANGE_TYPES), 0, CHANGE_TYPES.length),
  tableIds: listOf(idOf('table'), 0, 100),
  fieldIds: listOf(idOf('field'), 0, 500),
  includePrevious: z.boolean(),
};

export const createWebhookBody = z.strictObject({
  url: settings.url,
  events: z.optional(settings.events),
  tableIds: z.optional(settings.tableIds),
  fieldIds: z.optional(settings.fieldIds),
  includePrevious: z.optional(settings.includePrevious),
  description: z.optional(text(500)),
});

export const updateWebhookBody = z.strictObject({
  url: z.optional(settings.url),
  events: z.optional(settings.events),
  tableIds: z.optional(settings.tableIds),
  fieldIds: z.optional(settings.fieldIds),
  includePrevious: z.optional(settings.includePrevious),
  description: z.optional(z.nullable(text(500))),
  isEnabled: z.optional(z.boolean()),
});
