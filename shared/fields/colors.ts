/** The color names of select choices and ratings (Teable's `Colors`). */

const HUES = ['blue', 'cyan', 'gray', 'green', 'orange', 'pink', 'purple', 'red', 'teal', 'yellow'] as const;
const SHADES = ['Light2', 'Light1', 'Bright', '', 'Dark1'] as const;

/** Every accepted color name: each hue in five shades (`blueLight2` … `yellowDark1`). */
export const COLORS: readonly string[] = HUES.flatMap((hue) => SHADES.map((shade) => `${hue}${shade}`));

// Light shades first and hues interleaved, so neighbouring choices get colors easy to tell apart.
const PALETTE: readonly string[] = SHADES.flatMap((shade) => HUES.map((hue) => `${hue}${shade}`));

/** The color of the choice at `index` of a list, for choices given without one (fixed, no randomness). */
export const paletteColor = (index: number): string => PALETTE[index % PALETTE.length] ?? 'blueLight2';
