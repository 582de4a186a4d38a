import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import graph of the project's own code, read from the source text (static imports, re-
 * exports and `import()` of a literal path), for the architecture test. Units are the folders of
 * `shared/` (a top-level file of `shared/` is a unit of its own), `functions`, and `infra`.
 */

export const ROOT = resolve(import.meta.dirname, '../..');

/** One import of one file: where it is and what it names. */
export interface Import {
  from: string;
  to: string;
  /** The module specifier as written. */
  specifier: string;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });

const SPECIFIER =
  /(?:\bimport|\bexport)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Where a specifier points inside the project, or undefined for a package. */
const target = (file: string, specifier: string): string | undefined => {
  const alias = /^#(shared|functions|infra|test)\/(.*)$/.exec(specifier);
  if (alias) return join(ROOT, alias[1] as string, alias[2] as string);
  if (specifier.startsWith('.')) return resolve(dirname(file), specifier);
  return undefined;
};

/** Every import of every file under the given top folders (project-relative paths). */
export const importsOf = (...tops: string[]): { files: string[]; imports: Import[]; packages: Import[] } => {
  const files = tops.flatMap((top) => sourceFiles(join(ROOT, top)));
  const imports: Import[] = [];
  const packages: Import[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = (match[1] ?? match[2]) as string;
      const to = target(file, specifier);
      const from = relative(ROOT, file);
      if (to) imports.push({ from, to: relative(ROOT, to), specifier });
      else packages.push({ from, to: specifier, specifier });
    }
  }
  return { files: files.map((f) => relative(ROOT, f)), imports, packages };
};

/** The unit a project file belongs to: `shared/<folder>`, `shared/<file>` or its top folder. */
export const unitOf = (path: string): string => {
  const parts = path.split('/');
  if (parts[0] !== 'shared') return parts[0] as string;
  return parts.length > 2 ? `shared/${parts[1]}` : `shared/${(parts[1] as string).replace(/\.ts$/, '')}`;
};

/** Strongly connected components of more than one node (the cycles), each sorted. Tarjan. */
export const cyclesOf = (edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
};
