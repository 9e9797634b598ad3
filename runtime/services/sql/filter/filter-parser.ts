/**
 * The filter grammar: text -> AST with positions, or a BadRequestError naming the position and
 * what was expected there. Precedence NOT > AND > OR; parentheses are optional anywhere.
 *
 *   filter    := or END
 *   or        := and (('or' | '||') and)*
 *   and       := not (('and' | '&&') not)*
 *   not       := 'not' not | '(' or ')' | predicate
 *   predicate := field ( compare value | ['not'] 'like' value | ['not'] 'in' '(' value (',' value)* ')'
 *              | ['not'] 'between' value 'and' value | 'is' ['not'] 'null'
 *              | ['not'] ('contains' | 'starts' 'with' | 'ends' 'with') value )
 *   compare   := '=' | '!=' | '<>' | '>' | '>=' | '<' | '<=' | eq | ne | gt | gte | lt | lte
 *   field     := name ['.' name] | aggregate '(' (name | '*') ')'      (aggregates only count in `having`)
 *   aggregate := 'count' | 'sum' | 'avg' | 'min' | 'max'
 *   value     := quoted string | number | bare words | ':' name     (`= null` / `!= null` mean is [not] null;
 *                bare words run to the next 'and', 'or', ',' or parenthesis)
 *
 * Keywords are case-insensitive. Nothing may follow a complete filter.
 */
import { AGGREGATE_FUNCTIONS, type AggregateFunction } from '../query/aggregates.js';
import { describe, tokenize, type Token } from './filter-lexer.js';
import { limits } from '../../../core/request-limits.js';
import { sqlMessages } from '../sql-messages.js';

/** Every node carries the 1-based position where it starts in the filter text; 0 for nodes built in code. */
interface Positioned {
  position: number;
}

/** `a and b and c`: operands in source order. */
export interface LogicalNode extends Positioned {
  kind: 'and' | 'or';
  operands: FilterNode[];
}

export interface NotNode extends Positioned {
  kind: 'not';
  operand: FilterNode;
}

/**
 * A field name as written: `[field]`, or `[relation_or_table, field]` for dot notation; in
 * `having`, also an aggregate of a field (`sum(price)`, path `['price']`) or `count(*)` (path `['*']`).
 */
export interface FieldRef extends Positioned {
  path: string[];
  aggregate?: AggregateFunction;
}

/** A value as written: `text` is unquoted and unescaped; typing happens against the column at compile time. */
export interface LiteralValue extends Positioned {
  kind: 'literal';
  text: string;
  quoted: boolean;
}

/** `:name`, taken from the request's `params`. */
export interface ParamValue extends Positioned {
  kind: 'param';
  name: string;
}

export type FilterValue = LiteralValue | ParamValue;

export type CompareOperator = '=' | '!=' | '>' | '>=' | '<' | '<=';

export interface CompareNode extends Positioned {
  kind: 'compare';
  field: FieldRef;
  operator: CompareOperator;
  value: FilterValue;
}

/** `like` takes the value as a pattern; the other modes match the value literally. */
export interface LikeNode extends Positioned {
  kind: 'like';
  field: FieldRef;
  mode: 'pattern' | 'contains' | 'starts_with' | 'ends_with';
  negated: boolean;
  value: FilterValue;
}

export interface InNode extends Positioned {
  kind: 'in';
  field: FieldRef;
  negated: boolean;
  values: FilterValue[];
}

export interface BetweenNode extends Positioned {
  kind: 'between';
  field: FieldRef;
  negated: boolean;
  low: FilterValue;
  high: FilterValue;
}

export interface IsNullNode extends Positioned {
  kind: 'is_null';
  field: FieldRef;
  negated: boolean;
}

export type PredicateNode = CompareNode | LikeNode | InNode | BetweenNode | IsNullNode;

/** A parsed filter expression. */
export type FilterNode = LogicalNode | NotNode | PredicateNode;

// Maps, not object literals: a word such as `constructor` must not find an inherited property.
const WORD_OPERATORS = new Map<string, CompareOperator>([
  ['eq', '='],
  ['ne', '!='],
  ['gt', '>'],
  ['gte', '>='],
  ['lt', '<'],
  ['lte', '<='],
]);
const SYMBOL_OPERATORS = new Map<string, CompareOperator>([
  ['=', '='],
  ['!=', '!='],
  ['<>', '!='],
  ['>', '>'],
  ['>=', '>='],
  ['<', '<'],
  ['<=', '<='],
]);
/**
 * `field` or `relation.field`: letters and digits of any script, `_ $ # -` (`größe`, `1st`,
 * `e-mail`); not a number (`1 = 1` is no comparison of a field).
 */
const FIELD_NAME = /^(?![-+]?[\d.]+$)[\p{L}\p{M}\p{N}_$#-]+(\.[\p{L}\p{M}\p{N}_$#-]+)?$/u;
const PARAM_NAME = /^:[\p{L}_][\p{L}\p{N}_]*$/u;
/** The words that end a run of unquoted words (a value): the connectives. */
const CONNECTIVES = new Set(['and', 'or']);
/** Parentheses and `not` nest; beyond this the filter is rejected rather than risking the stack. */
const MAX_DEPTH = 64;

/** Parses a filter string to an AST; throws BadRequestError naming the position and what was expected. */
export function parseFilter(text: string): FilterNode {
  const parser = new Parser(text);
  const node = parser.or(0);
  parser.expectEnd();
  return node;
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  /** Comparisons so far: databases nest each in their expression tree, so their number is bounded. */
  private terms = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenize(text);
  }

  or(depth: number): FilterNode {
    const operands = [this.and(depth)];
    while (this.isWord('or') || this.isSymbol('||')) {
      this.index++;
      operands.push(this.and(depth));
    }
    return logical('or', operands);
  }

  expectEnd(): void {
    if (this.peek().type !== 'end') this.fail("'and', 'or' or end of input");
  }

  private and(depth: number): FilterNode {
    const operands = [this.not(depth)];
    while (this.isWord('and') || this.isSymbol('&&')) {
      this.index++;
      operands.push(this.not(depth));
    }
    return logical('and', operands);
  }

  private not(depth: number): FilterNode {
    const token = this.peek();
    if (depth >= MAX_DEPTH && (token.type === '(' || this.isWord('not'))) {
      this.fail(`at most ${MAX_DEPTH} levels of parentheses and 'not'`);
    }
    if (this.isWord('not')) {
      this.index++;
      return { kind: 'not', operand: this.not(depth + 1), position: token.position };
    }
    if (token.type === '(') {
      this.index++;
      const inner = this.or(depth + 1);
      if (this.peek().type !== ')') this.fail(`'and', 'or' or ')' to close the '(' at position ${token.position}`);
      this.index++;
      return inner;
    }
    return this.predicate();
  }

  private predicate(): PredicateNode {
    const token = this.peek();
    if (++this.terms > limits.filterTerms)
      throw sqlMessages.filterTooLarge.error(`more than ${limits.filterTerms} comparisons`, limits.filterTerms, token.position);
    if (token.type !== 'word' || !FIELD_NAME.test(token.text)) this.fail("a field name, 'not' or '('");
    this.index++;
    const field = this.aggregate(token) ?? { path: token.text.split('.'), position: token.position };
    const position = token.position;
    const op = this.peek();
    const word = op.type === 'word' ? op.text.toLowerCase() : '';

    const compare = op.type === 'symbol' ? SYMBOL_OPERATORS.get(op.text) : WORD_OPERATORS.get(word);
    if (compare !== undefined) {
      this.index++;
      if ((compare === '=' || compare === '!=') && this.isWord('null')) {
        this.index++;
        return { kind: 'is_null', field, negated: compare === '!=', position };
      }
      return { kind: 'compare', field, operator: compare, value: this.value(`a value after '${op.text}'`), position };
    }
    if (word === 'is') {
      this.index++;
      const negated = this.isWord('not');
      if (negated) this.index++;
      if (!this.isWord('null')) this.fail(negated ? "'null' after 'is not'" : "'null' or 'not null' after 'is'");
      this.index++;
      return { kind: 'is_null', field, negated, position };
    }
    const negated = word === 'not';
    if (negated) this.index++;
    const keyword = this.peek();
    const name = keyword.type === 'word' ? keyword.text.toLowerCase() : '';
    switch (name) {
      case 'like':
        this.index++;
        return { kind: 'like', field, mode: 'pattern', negated, value: this.value(`a pattern after '${keyword.text}'`), position };
      case 'contains':
        this.index++;
        return { kind: 'like', field, mode: 'contains', negated, value: this.value(`a value after '${keyword.text}'`), position };
      case 'starts':
      case 'ends': {
        this.index++;
        const withToken = this.peek();
        if (!this.isWord('with')) this.fail(`'with' after '${keyword.text}'`);
        this.index++;
        const mode = name === 'starts' ? 'starts_with' : 'ends_with';
        return { kind: 'like', field, mode, negated, value: this.value(`a value after '${keyword.text} ${withToken.text}'`), position };
      }
      case 'in':
        this.index++;
        return { kind: 'in', field, negated, values: this.list(keyword), position };
      case 'between': {
        this.index++;
        const low = this.value(`a value after '${keyword.text}'`);
        if (!this.isWord('and')) this.fail(`'and' after the first value of '${keyword.text}'`);
        const and = this.peek();
        this.index++;
        return { kind: 'between', field, negated, low, high: this.value(`a value after '${keyword.text} ... ${and.text}'`), position };
      }
    }
    return this.fail(
      negated
        ? "'like', 'in', 'between', 'contains', 'starts with' or 'ends with' after 'not'"
        : 'a comparison operator (=, !=, <>, >, >=, <, <=, like, in, between, is, contains, starts with, ends with)',
    );
  }

  /** `count(*)`, `sum(price)`: an aggregate function name followed by '('; null for a plain field. */
  private aggregate(name: Token): FieldRef | null {
    const fn = name.text.toLowerCase();
    if (!AGGREGATE_FUNCTIONS.has(fn) || this.peek().type !== '(') return null;
    this.index++;
    const argument = this.peek();
    const star = argument.type === 'word' && argument.text === '*';
    if (star ? fn !== 'count' : argument.type !== 'word' || !FIELD_NAME.test(argument.text) || argument.text.includes('.')) {
      this.fail(fn === 'count' ? "a field name or '*'" : 'a field name');
    }
    this.index++;
    if (this.peek().type !== ')') this.fail(`')' to close '${name.text}('`);
    this.index++;
    return { path: [argument.text], aggregate: fn as AggregateFunction, position: name.position };
  }

  private list(keyword: Token): FilterValue[] {
    if (this.peek().type !== '(') this.fail(`'(' after '${keyword.text}'`);
    this.index++;
    const values = [this.value('a value in the list')];
    while (this.peek().type === ',') {
      this.index++;
      values.push(this.value('a value in the list'));
    }
    if (this.peek().type !== ')') this.fail("',' or ')' in the list");
    this.index++;
    return values;
  }

  private value(expected: string): FilterValue {
    const token = this.peek();
    if (token.type === 'string') {
      this.index++;
      return { kind: 'literal', text: token.value, quoted: true, position: token.position };
    }
    const word = token.type === 'word' ? token.text.toLowerCase() : '';
    // `and`/`or` here would be a connective without its value; `null` only works with = and != (is null).
    if (word === '' || word === 'and' || word === 'or') this.fail(expected);
    if (word === 'null') this.fail(`${expected} other than null (use 'is null')`);
    this.index++;
    if (PARAM_NAME.test(token.text)) return { kind: 'param', name: token.text.slice(1), position: token.position };
    // Unquoted text runs on to the next 'and', 'or', comma or parenthesis: the reference takes the rest
    // of a condition as its value, and search boxes send what is typed (`name like Mid W%`).
    let last = token;
    while (this.peek().type === 'word' && !CONNECTIVES.has(this.peek().text.toLowerCase())) last = this.tokens[this.index++];
    const text = last === token ? token.text : this.text.slice(token.position - 1, last.position - 1 + last.text.length);
    return { kind: 'literal', text, quoted: false, position: token.position };
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private isWord(word: string): boolean {
    const token = this.peek();
    return token.type === 'word' && token.text.toLowerCase() === word;
  }

  private isSymbol(symbol: string): boolean {
    const token = this.peek();
    return token.type === 'symbol' && token.text === symbol;
  }

  private fail(expected: string): never {
    const token = this.peek();
    throw sqlMessages.malformedFilter.error(this.text, token.position, expected, describe(token));
  }
}

/** One operand stays itself; several become one n-ary node starting where the first does. */
function logical(kind: 'and' | 'or', operands: FilterNode[]): FilterNode {
  return operands.length === 1 ? operands[0] : { kind, operands, position: operands[0].position };
}
