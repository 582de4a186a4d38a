/**
 * A view's `options`, checked per view type as Teable's client types them (`@teable/core` 1.10:
 * each type's options are a strict object). Before issue 27 they were stored as any map: deep
 * nesting or a key named `constructor` reached DynamoDB and ended in a 500. Unknown keys are
 * refused (400), as Teable refuses them; every text is bounded. Pure.
 */
import * as z from 'zod/mini';
import { parseInput } from '#shared/core/validation.ts';
import type { ViewType } from '#shared/entities/schema-items.ts';
import { COLORS } from '#shared/fields/colors.ts';

const fieldRef = z.nullable(z.string().check(z.maxLength(100)));
const url = z.string().check(z.maxLength(2000));

/** Row heights of a grid view (Teable's `RowHeightLevel`). */
export const ROW_HEIGHTS = ['short', 'medium', 'tall', 'extraTall', 'autoFit'] as const;

const COLORS_OR_NULL = z.nullable(z.enum(COLORS as [string, ...string[]]));

/** Each view type's options; every key optional, nothing else taken. */
export const VIEW_OPTIONS = {
  grid: z.strictObject({
    rowHeight: z.optional(z.enum(ROW_HEIGHTS)),
    fieldNameDisplayLines: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(3))),
    frozenColumnCount: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1000))),
  }),
  kanban: z.strictObject({
    stackFieldId: z.optional(z.string().check(z.maxLength(100))),
    coverFieldId: z.optional(fieldRef),
    isCoverFit: z.optional(z.boolean()),
    isFieldNameHidden: z.optional(z.boolean()),
    isEmptyStackHidden: z.optional(z.boolean()),
  }),
  gallery: z.strictObject({
    coverFieldId: z.optional(fieldRef),
    isCoverFit: z.optional(z.boolean()),
    isFieldNameHidden: z.optional(z.boolean()),
  }),
  calendar: z.strictObject({
    startDateFieldId: z.optional(fieldRef),
    endDateFieldId: z.optional(fieldRef),
    titleFieldId: z.optional(fieldRef),
    colorConfig: z.optional(
      z.nullable(
        z.strictObject({
          type: z.enum(['field', 'custom']),
          fieldId: z.optional(fieldRef),
          color: z.optional(COLORS_OR_NULL),
        }),
      ),
    ),
  }),
  form: z.strictObject({
    coverUrl: z.optional(url),
    logoUrl: z.optional(url),
    submitLabel: z.optional(z.string().check(z.maxLength(200))),
  }),
} as const satisfies Record<ViewType, unknown>;

/** A view type's options, checked; a 400 naming each key that is unknown or of the wrong kind. */
export const checkViewOptions = (type: ViewType, options: Record<string, unknown>): Record<string, unknown> =>
  parseInput(VIEW_OPTIONS[type], options, 'options') as Record<string, unknown>;
