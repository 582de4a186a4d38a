/** The first of `base`, `base 2`, `base 3`… not among `taken` (default names, endpoints.md). Pure. */
export const uniqueName = (base: string, taken: Iterable<string>): string => {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base} ${n}`)) return `${base} ${n}`;
};
