import * as z from 'zod/mini';
import { displayName, text } from '#shared/core/validation.ts';
import { PLUGIN_POSITIONS } from '#shared/entities/plugins.ts';

/** An http(s) address of up to 2048 characters. */
const webAddress = z.url({ protocol: /^https?$/ }).check(z.maxLength(2048));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Teable's nested i18n texts: objects whose values are texts or such objects. */
const isI18nTree = (value: unknown, depth = 0): boolean =>
  isObject(value) &&
  depth < 8 &&
  Object.values(value).every((v) => typeof v === 'string' || isI18nTree(v, depth + 1));

/** JSON of at most `max` characters once serialised (a stored item holds at most 400 KB). */
const smallJson = (max: number) =>
  z.refine((v: unknown) => JSON.stringify(v).length <= max, {
    error: `must be at most ${max} characters as JSON`,
  });

/** `i18n`: per locale, nested texts (at most 20,000 characters as JSON). */
export const pluginI18n = z
  .record(
    z.string().check(z.minLength(2), z.maxLength(20)),
    z.custom<Record<string, unknown>>((v) => isI18nTree(v), { error: 'must be nested objects of texts' }),
  )
  .check(smallJson(20_000));

const sizeOrPlace = z.union([z.number(), z.string().check(z.maxLength(50))]);

/** `config`: settings per position; a context menu's window size and place, null for the others. */
export const pluginConfig = z.strictObject({
  contextMenu: z.optional(
    z.strictObject({
      width: z.optional(sizeOrPlace),
      height: z.optional(sizeOrPlace),
      x: z.optional(sizeOrPlace),
      y: z.optional(sizeOrPlace),
      frozenResize: z.optional(z.boolean()),
      frozenDrag: z.optional(z.boolean()),
    }),
  ),
  view: z.optional(z.null()),
  dashboard: z.optional(z.null()),
  panel: z.optional(z.null()),
});

/** The positions of a plugin: at least one, none twice. */
export const pluginPositions = z.array(z.enum(PLUGIN_POSITIONS)).check(
  z.minLength(1),
  z.refine((p) => new Set(p).size === p.length, { error: 'must not repeat a position' }),
);

/** A plugin's logo: an address or a path of an uploaded image, as Teable keeps it. */
export const pluginLogo = z.string().check(z.trim(), z.minLength(1), z.maxLength(2048));

/** The body of a plugin's update (`PUT /plugin/{id}`); the create needs `logo` too. */
export const pluginUpdateBody = z.object({
  name: displayName,
  description: z.optional(text(2000)),
  detailDesc: z.optional(text(3000)),
  positions: pluginPositions,
  url: z.optional(webAddress),
  logo: z.optional(pluginLogo),
  helpUrl: z.optional(webAddress),
  i18n: z.optional(pluginI18n),
  config: z.optional(pluginConfig),
});

/** The body of a plugin's create (`POST /plugin`). */
export const pluginCreateBody = z.extend(pluginUpdateBody, { logo: pluginLogo });

/** A plugin install's stored JSON: an object of at most 100,000 characters as JSON. */
export const installStorage = z.record(z.string(), z.unknown()).check(smallJson(100_000));
