/**
 * The formula parser (computed.md 1.1, 1.2): text → syntax tree, with the position (0-based
 * character offset) of every node, so a bad expression is a 400 that says where. Pure.
 */

/**
 * Bounds on a formula's size (issue 27), so no expression can exhaust the parser's stack or make
 * evaluation run long: its length in characters, the nesting of its tree (parentheses, calls,
 * negations and chains of operators alike: `1+1+…+1` nests once per operator) and the arguments
 * of one call.
 */
export const FORMULA_LIMITS = { length: 10_000, depth: 100, args: 256 } as const;

/** Binary operators, by precedence level (1.2; higher binds tighter). */
export const BINARY_LEVELS: Readonly<Record<BinaryOp, number>> = {
  '*': 7,
  '/': 7,
  '%': 7,
  '+': 6,
  '-': 6,
  '>': 5,
  '<': 5,
  '>=': 5,
  '<=': 5,
  '=': 4,
  '!=': 4,
  '&&': 3,
  '||': 2,
  '&': 1,
};
export type BinaryOp = '*' | '/' | '%' | '+' | '-' | '>' | '<' | '>=' | '<=' | '=' | '!=' | '&&' | '||' | '&';

/** A node of the syntax tree; `pos` is where it starts in the expression. */
export type Node =
  | { kind: 'text'; value: string; pos: number }
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'boolean'; value: boolean; pos: number }
  | { kind: 'field'; id: string; pos: number }
  | { kind: 'call'; name: string; args: Node[]; pos: number }
  | { kind: 'negate'; arg: Node; pos: number }
  | { kind: 'binary'; op: BinaryOp; left: Node; right: Node; pos: number };

/** A syntax error: the 400 `expression parse error` with the position and what was found. */
export class FormulaSyntaxError extends Error {
  constructor(
    readonly pos: number,
    detail: string,
  ) {
    super(`expression parse error: ${detail} at position ${pos}`);
  }
}

type Token =
  | { t: 'text'; value: string; pos: number }
  | { t: 'number'; value: number; pos: number }
  | { t: 'name'; value: string; pos: number; call: boolean }
  | { t: 'field'; value: string; pos: number }
  | { t: 'op'; value: string; pos: number }
  | { t: 'end'; pos: number };

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
};

const OPERATORS = ['&&', '||', '>=', '<=', '!=', '*', '/', '%', '+', '-', '>', '<', '=', '&', '(', ')', ','];

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isNameChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Skips whitespace and comments from `i`; answers the next significant offset. */
const skipBlank = (src: string, start: number): number => {
  let i = start;
  for (;;) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') i++;
    else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new FormulaSyntaxError(i, 'unclosed comment');
      i = end + 2;
    } else return i;
  }
};

const readText = (src: string, start: number): { value: string; end: number } => {
  const quote = src[start];
  let out = '';
  let i = start + 1;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === quote) return { value: out, end: i + 1 };
    if (c === '\\' && i + 1 < src.length) {
      const next = src[i + 1] as string;
      out += ESCAPES[next] ?? `\\${next}`;
      i += 2;
    } else {
      out += c;
      i++;
    }
  }
  throw new FormulaSyntaxError(start, 'unclosed text');
};

const readNumber = (src: string, start: number): { value: number; end: number } => {
  let i = start;
  while (isDigit(src[i])) i++;
  if (src[i] === '.') {
    if (!isDigit(src[i + 1])) throw new FormulaSyntaxError(i, 'a decimal point needs digits after it');
    i++;
    while (isDigit(src[i])) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (!isDigit(src[j])) throw new FormulaSyntaxError(i, 'an exponent needs digits');
    while (isDigit(src[j])) j++;
    i = j;
  }
  if (isNameChar(src[i]) || src[i] === '.') throw new FormulaSyntaxError(i, `unexpected "${src[i]}"`);
  return { value: Number(src.slice(start, i)), end: i };
};

/** The tokens of an expression. */
const tokenize = (src: string): Token[] => {
  const tokens: Token[] = [];
  let i = skipBlank(src, 0);
  while (i < src.length) {
    const c = src[i] as string;
    if (c === '"' || c === "'") {
      const { value, end } = readText(src, i);
      tokens.push({ t: 'text', value, pos: i });
      i = end;
    } else if (isDigit(c)) {
      const { value, end } = readNumber(src, i);
      tokens.push({ t: 'number', value, pos: i });
      i = end;
    } else if (c === '.') {
      throw new FormulaSyntaxError(i, 'a number must start with a digit');
    } else if (c === '{') {
      const end = src.indexOf('}', i);
      if (end < 0) throw new FormulaSyntaxError(i, 'unclosed field reference');
      const id = src.slice(i + 1, end).trim();
      if (id === '') throw new FormulaSyntaxError(i, 'empty field reference');
      tokens.push({ t: 'field', value: id, pos: i });
      i = end + 1;
    } else if (isNameChar(c)) {
      let j = i;
      while (isNameChar(src[j])) j++;
      tokens.push({ t: 'name', value: src.slice(i, j), pos: i, call: src[j] === '(' });
      i = j;
    } else {
      const op = OPERATORS.find((o) => src.startsWith(o, i));
      if (!op) throw new FormulaSyntaxError(i, `unexpected "${c}"`);
      tokens.push({ t: 'op', value: op, pos: i });
      i += op.length;
    }
    i = skipBlank(src, i);
  }
  tokens.push({ t: 'end', pos: src.length });
  return tokens;
};

const describe = (token: Token): string =>
  token.t === 'end' ? 'end of expression' : `"${tokenText(token)}"`;
const tokenText = (token: Token): string =>
  token.t === 'end' ? '' : token.t === 'field' ? `{${token.value}}` : String(token.value);

/** Parses a whole expression; any syntax error is a `FormulaSyntaxError`. */
export const parseFormula = (src: string): Node => {
  if (src.length > FORMULA_LIMITS.length)
    throw new FormulaSyntaxError(
      FORMULA_LIMITS.length,
      `the expression is longer than ${FORMULA_LIMITS.length} characters`,
    );
  const tokens = tokenize(src);
  let at = 0;
  // nesting so far: the parser recurses once per level, so it stops at the limit, never at the stack's
  let depth = 0;
  const enter = (pos: number) => {
    if (++depth > FORMULA_LIMITS.depth)
      throw new FormulaSyntaxError(pos, `the expression nests more than ${FORMULA_LIMITS.depth} levels deep`);
  };
  const peek = () => tokens[at] as Token;
  const next = () => tokens[at++] as Token;
  const expectOp = (value: string) => {
    const token = next();
    if (token.t !== 'op' || token.value !== value)
      throw new FormulaSyntaxError(token.pos, `expected "${value}", found ${describe(token)}`);
  };

  const primary = (): Node => {
    const token = next();
    switch (token.t) {
      case 'text':
        return { kind: 'text', value: token.value, pos: token.pos };
      case 'number':
        return { kind: 'number', value: token.value, pos: token.pos };
      case 'field':
        return { kind: 'field', id: token.value, pos: token.pos };
      case 'name': {
        if (token.call) {
          expectOp('(');
          enter(token.pos);
          const args: Node[] = [];
          if (!(peek().t === 'op' && (peek() as { value: string }).value === ')')) {
            args.push(binary(0));
            while (peek().t === 'op' && (peek() as { value: string }).value === ',') {
              const comma = next();
              if (args.length >= FORMULA_LIMITS.args)
                throw new FormulaSyntaxError(
                  comma.pos,
                  `${token.value.toUpperCase()} is given more than ${FORMULA_LIMITS.args} arguments`,
                );
              args.push(binary(0));
            }
          }
          expectOp(')');
          depth--;
          return { kind: 'call', name: token.value.toUpperCase(), args, pos: token.pos };
        }
        const upper = token.value.toUpperCase();
        if (upper === 'TRUE' || upper === 'FALSE')
          return { kind: 'boolean', value: upper === 'TRUE', pos: token.pos };
        throw new FormulaSyntaxError(token.pos, `unexpected name "${token.value}"`);
      }
      case 'op':
        if (token.value === '(') {
          enter(token.pos);
          const inner = binary(0);
          expectOp(')');
          depth--;
          return inner;
        }
        if (token.value === '-') {
          enter(token.pos);
          const arg = primary();
          depth--;
          return { kind: 'negate', arg, pos: token.pos };
        }
        throw new FormulaSyntaxError(token.pos, `unexpected ${describe(token)}`);
      case 'end':
        throw new FormulaSyntaxError(token.pos, 'unexpected end of expression');
    }
  };

  // precedence climbing over BINARY_LEVELS; every binary operator is left-associative
  const binary = (minLevel: number): Node => {
    let left = primary();
    for (;;) {
      const token = peek();
      if (token.t !== 'op' || !Object.hasOwn(BINARY_LEVELS, token.value)) return left;
      const op = token.value as BinaryOp;
      const level = BINARY_LEVELS[op];
      if (level <= minLevel) return left;
      next();
      const right = binary(level);
      left = { kind: 'binary', op, left, right, pos: token.pos };
    }
  };

  if (peek().t === 'end') throw new FormulaSyntaxError(0, 'the expression is empty');
  const tree = binary(0);
  const rest = peek();
  if (rest.t !== 'end') throw new FormulaSyntaxError(rest.pos, `unexpected ${describe(rest)}`);
  const deepest = deepestNode(tree);
  if (deepest)
    throw new FormulaSyntaxError(
      deepest.pos,
      `the expression nests more than ${FORMULA_LIMITS.depth} levels deep`,
    );
  return tree;
};

/** The first node nested deeper than the limit (operator chains count), or undefined. Iterative. */
const deepestNode = (root: Node): Node | undefined => {
  const stack: [Node, number][] = [[root, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [n, d] = top;
    if (d > FORMULA_LIMITS.depth) return n;
    if (n.kind === 'call') for (const a of n.args) stack.push([a, d + 1]);
    else if (n.kind === 'negate') stack.push([n.arg, d + 1]);
    else if (n.kind === 'binary') stack.push([n.left, d + 1], [n.right, d + 1]);
  }
  return undefined;
};

/** Every field id the expression references, in order of first appearance. */
export const fieldRefsOf = (node: Node): string[] => {
  const out = new Set<string>();
  const walk = (n: Node): void => {
    if (n.kind === 'field') out.add(n.id);
    else if (n.kind === 'call') n.args.forEach(walk);
    else if (n.kind === 'negate') walk(n.arg);
    else if (n.kind === 'binary') {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(node);
  return [...out];
};

/** The field ids an expression references, or [] when it does not parse. */
export const referencesOf = (expression: string): string[] => {
  try {
    return fieldRefsOf(parseFormula(expression));
  } catch {
    return [];
  }
};

/** How many nodes a tree has. Iterative. */
export const nodeCount = (root: Node): number => {
  let n = 0;
  const stack: Node[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    n++;
    if (node.kind === 'call') stack.push(...node.args);
    else if (node.kind === 'negate') stack.push(node.arg);
    else if (node.kind === 'binary') stack.push(node.left, node.right);
  }
  return n;
};
