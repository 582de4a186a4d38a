/**
 * `filterByTql` (contract `listing.md` section 7, deprecated): a small query language turned into
 * a filter. A tokenizer and a recursive-descent parser; every error is a 400 saying at which
 * character offset (0-based) the text went wrong. Pure: no AWS import.
 *
 * ```
 * expr      = and ("OR" and)*                       AND binds tighter than OR
 * and       = primary ("AND" primary)*
 * primary   = "(" expr ")" | condition
 * condition = field ( ("=" | "!=" | "<>" | ">" | ">=" | "<" | "<=" | "LIKE" | "NOT" "LIKE") value
 *                   | ("IN" | "NOT" "IN") list | "HAS" (value | list)
 *                   | "IS" "NULL" | "IS" "NOT" "NULL" )
 * field     = "{" name "}"                           a field name or id; \} and \\ escape
 * value     = 'text' | "text" | number | true | false | null
 * list      = "(" value ("," value)* ")"
 * ```
 * Keywords ignore case. Texts take backslash escapes (`\'`, `\"`, `\\`, `\n`, `\t`, `\r`,
 * `\uXXXX`; any other escaped character stands for itself) and a doubled quote (`'it''s'`).
 * Blank text is no condition (an empty filter, matching every record).
 */

import { ValidationError } from '#shared/core/errors.ts';
import { fieldByRef } from '#shared/fields/field-names.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { MAX_FILTER_DEPTH, resolveFilter, resolveFilterItem } from './filter.ts';
import type { FilterGroup, FilterItem, FilterScalar } from './query-types.ts';

const PARAM = 'filterByTql';
/** The longest query text accepted. */
export const MAX_TQL_LENGTH = 10_000;

type TokenKind = 'field' | 'string' | 'number' | 'word' | 'op' | '(' | ')' | ',' | 'end';

interface Token {
  kind: TokenKind;
  /** Field name, text content, operator symbol, or the word as written. */
  text: string;
  number?: number;
  /** Character offset of the token's first character. */
  at: number;
}

const fail = (message: string, at: number) => new ValidationError(`${PARAM}: ${message} at position ${at}`);

const show = (token: Token): string => {
  switch (token.kind) {
    case 'end':
      return 'the end';
    case 'field':
      return `{${token.text}}`;
    case 'string':
      return JSON.stringify(token.text);
    default:
      return `"${token.text}"`;
  }
};

const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const OPERATORS = ['>=', '<=', '!=', '<>', '==', '=', '>', '<'];

const readQuoted = (text: string, start: number): { value: string; end: number } => {
  const quote = text[start];
  let out = '';
  let i = start + 1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === quote) {
      if (text[i + 1] === quote) {
        out += quote;
        i += 2;
        continue;
      }
      return { value: out, end: i + 1 };
    }
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) break;
      if (next === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw fail('expected 4 hex digits after \\u', i);
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
        continue;
      }
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  throw fail('unterminated text starting', start);
};

const readField = (text: string, start: number): { value: string; end: number } => {
  let out = '';
  let i = start + 1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '}') {
      if (out.trim() === '') throw fail('empty field reference', start);
      return { value: out, end: i + 1 };
    }
    if (c === '\\' && (text[i + 1] === '}' || text[i + 1] === '\\')) {
      out += text[i + 1];
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  throw fail('unterminated field reference starting', start);
};

/** The tokens of a query text, ending with an `end` token. */
export const tokenizeTql = (text: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, text: c, at: i });
      i++;
      continue;
    }
    if (c === '{') {
      const { value, end } = readField(text, i);
      tokens.push({ kind: 'field', text: value, at: i });
      i = end;
      continue;
    }
    if (c === "'" || c === '"') {
      const { value, end } = readQuoted(text, i);
      tokens.push({ kind: 'string', text: value, at: i });
      i = end;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, at: i });
      i += op.length;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number) {
      // `12abc` is not a number followed by a word: nothing glues to a number
      const after = text[i + number[0].length];
      if (after !== undefined && /[A-Za-z_]/.test(after))
        throw fail(`unexpected "${after}" after a number`, i + number[0].length);
      tokens.push({ kind: 'number', text: number[0], number: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(text);
    if (word) {
      tokens.push({ kind: 'word', text: word[0], at: i });
      i += word[0].length;
      continue;
    }
    throw fail(`unexpected character ${JSON.stringify(c)}`, i);
  }
  tokens.push({ kind: 'end', text: '', at: text.length });
  return tokens;
};

type Node = FilterItem | FilterGroup;

const isGroup = (node: Node): node is FilterGroup => 'filterSet' in node;

/** A group of the operands, with operands of the same conjunction spliced in. */
const join = (conjunction: 'and' | 'or', operands: Node[]): Node => {
  if (operands.length === 1) return operands[0] as Node;
  const filterSet = operands.flatMap((n) =>
    isGroup(n) && n.conjunction === conjunction ? n.filterSet : [n],
  );
  return { conjunction, filterSet };
};

const SYMBOL_OF_OP: Record<string, string> = { '==': '=', '<>': '!=' };

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly fields: readonly Field[],
  ) {}

  private peek(): Token {
    return this.tokens[this.i] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.i++;
    return token;
  }

  private isWord(word: string, token = this.peek()): boolean {
    return token.kind === 'word' && token.text.toUpperCase() === word;
  }

  private expectWord(word: string, what: string): void {
    const token = this.peek();
    if (!this.isWord(word)) throw fail(`expected ${what}, found ${show(token)}`, token.at);
    this.next();
  }

  /** The whole text: an expression, then the end. */
  parse(): Node {
    const node = this.expression(0);
    const token = this.peek();
    if (token.kind !== 'end') throw fail(`expected AND, OR or the end, found ${show(token)}`, token.at);
    return node;
  }

  private expression(depth: number): Node {
    const operands = [this.conjunction(depth)];
    while (this.isWord('OR')) {
      this.next();
      operands.push(this.conjunction(depth));
    }
    return join('or', operands);
  }

  private conjunction(depth: number): Node {
    const operands = [this.primary(depth)];
    while (this.isWord('AND')) {
      this.next();
      operands.push(this.primary(depth));
    }
    return join('and', operands);
  }

  private primary(depth: number): Node {
    const token = this.peek();
    if (token.kind === '(') {
      if (depth >= MAX_FILTER_DEPTH)
        throw fail(`nested too deep (at most ${MAX_FILTER_DEPTH} levels)`, token.at);
      this.next();
      const inner = this.expression(depth + 1);
      const close = this.peek();
      if (close.kind !== ')')
        throw fail(`expected ")" to close the "(" at position ${token.at}, found ${show(close)}`, close.at);
      this.next();
      return inner;
    }
    return this.condition();
  }

  private condition(): FilterItem {
    const ref = this.next();
    if (ref.kind !== 'field')
      throw fail(`expected a field reference like {Name} or "(", found ${show(ref)}`, ref.at);
    const name = ref.text.trim();
    const field = fieldByRef(this.fields, name);
    if (!field) throw fail(`field {${name.slice(0, 200)}} not found`, ref.at);
    const opToken = this.peek();
    const { symbol, value, valueAt } = this.operatorAndValue();
    const item: FilterItem = { fieldId: field.id, operator: symbol, value, isSymbol: true };
    // checked here too, so a misfit says where it is; the final resolveFilter maps the symbols
    try {
      resolveFilterItem({ ...item }, this.fields, PARAM);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const at = /^filterByTql\.value/.test(error.message) ? valueAt : opToken.at;
      throw fail(error.message.replace(/^filterByTql[^:]*: /, ''), at);
    }
    return item;
  }

  private operatorAndValue(): { symbol: string; value: FilterItem['value']; valueAt: number } {
    const token = this.next();
    if (token.kind === 'op') {
      const symbol = SYMBOL_OF_OP[token.text] ?? token.text;
      const at = this.peek().at;
      return { symbol, value: this.scalar(), valueAt: at };
    }
    if (token.kind === 'word') {
      const word = token.text.toUpperCase();
      const at = () => this.peek().at;
      switch (word) {
        case 'LIKE': {
          const valueAt = at();
          return { symbol: 'LIKE', value: this.scalar(), valueAt };
        }
        case 'IN': {
          const valueAt = at();
          return { symbol: 'IN', value: this.list(), valueAt };
        }
        case 'HAS': {
          const valueAt = at();
          return { symbol: 'HAS', value: this.peek().kind === '(' ? this.list() : this.scalar(), valueAt };
        }
        case 'NOT': {
          const after = this.next();
          const valueAt = at();
          if (this.isWord('LIKE', after)) return { symbol: 'NOT LIKE', value: this.scalar(), valueAt };
          if (this.isWord('IN', after)) return { symbol: 'NOT IN', value: this.list(), valueAt };
          throw fail(`expected LIKE or IN after NOT, found ${show(after)}`, after.at);
        }
        case 'IS': {
          if (this.isWord('NOT')) {
            this.next();
            this.expectWord('NULL', 'NULL after IS NOT');
            return { symbol: 'IS NOT NULL', value: null, valueAt: token.at };
          }
          this.expectWord('NULL', 'NULL or NOT NULL after IS');
          return { symbol: 'IS NULL', value: null, valueAt: token.at };
        }
      }
    }
    throw fail(
      `expected an operator (=, !=, >, >=, <, <=, LIKE, NOT LIKE, IN, NOT IN, HAS, IS NULL, IS NOT NULL), found ${show(token)}`,
      token.at,
    );
  }

  private scalar(): FilterScalar | null {
    const token = this.next();
    if (token.kind === 'string') return token.text;
    if (token.kind === 'number') return token.number as number;
    if (token.kind === 'word') {
      const word = token.text.toUpperCase();
      if (word === 'TRUE') return true;
      if (word === 'FALSE') return false;
      if (word === 'NULL') return null;
    }
    throw fail(
      `expected a value (quoted text, a number, true, false or null), found ${show(token)}`,
      token.at,
    );
  }

  private list(): FilterScalar[] {
    const open = this.next();
    if (open.kind !== '(') throw fail(`expected a list like ('a', 'b'), found ${show(open)}`, open.at);
    const values: FilterScalar[] = [];
    for (;;) {
      const at = this.peek().at;
      const value = this.scalar();
      if (value === null) throw fail('null cannot be in a list', at);
      values.push(value);
      const token = this.next();
      if (token.kind === ')') return values;
      if (token.kind !== ',') throw fail(`expected "," or ")" in the list, found ${show(token)}`, token.at);
    }
  }
}

/**
 * The filter a query text stands for, before validation: `isSymbol` items with the symbol as
 * operator and the field's id (names resolved). Syntax errors and unknown fields are 400s with the
 * position.
 */
export const parseTqlSymbols = (text: string, fields: readonly Field[]): FilterGroup => {
  if (text.length > MAX_TQL_LENGTH)
    throw new ValidationError(`${PARAM}: at most ${MAX_TQL_LENGTH} characters`);
  const tokens = tokenizeTql(text);
  if (tokens.length === 1) return { conjunction: 'and', filterSet: [] };
  const node = new Parser(tokens, fields).parse();
  return isGroup(node) ? node : { conjunction: 'and', filterSet: [node] };
};

/** The checked filter (`resolveFilter`'s form: ids, operators of the field kinds) of a query text. */
export const parseTql = (text: string, fields: readonly Field[]): FilterGroup =>
  resolveFilter(parseTqlSymbols(text, fields), fields, PARAM) as FilterGroup;
