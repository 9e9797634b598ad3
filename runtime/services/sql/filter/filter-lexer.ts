import { sqlMessages } from '../sql-messages.js';
/**
 * Splits filter text into tokens with 1-based positions. Knows nothing of the grammar: words,
 * quoted strings, comparison symbols, `&&`/`||`, parentheses and commas. Any other character
 * becomes an `other` token so the parser can report it where it stands.
 */

export type TokenType = 'word' | 'string' | 'symbol' | '(' | ')' | ',' | 'other' | 'end';

export interface Token {
  type: TokenType;
  /** Source text of the token as written (quotes included for strings). */
  text: string;
  /** Unquoted, unescaped content for strings; same as `text` otherwise. */
  value: string;
  /** 1-based position of the first character. */
  position: number;
}

/** Longest first, so `>=` wins over `>`. */
const SYMBOLS = ['>=', '<=', '!=', '<>', '&&', '||', '=', '>', '<'];

/** Characters that end a bare word: space, quotes, punctuation and the starts of symbols. */
const WORD_CHAR = /[^\s()'",=<>!;&|]/u;

/** The tokens of `text`, ending with an `end` token; an unclosed quote is a positioned 400. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/u.test(ch)) {
      i++;
      continue;
    }
    const position = i + 1;
    if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ type: ch, text: ch, value: ch, position });
      i++;
    } else if (ch === "'" || ch === '"') {
      const { value, end } = readString(text, i);
      const raw = text.slice(i, end);
      tokens.push({ type: 'string', text: raw, value, position });
      i = end;
    } else if (WORD_CHAR.test(ch)) {
      let end = i;
      while (end < text.length && WORD_CHAR.test(text[end])) end++;
      const word = text.slice(i, end);
      tokens.push({ type: 'word', text: word, value: word, position });
      i = end;
    } else {
      const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
      const raw = symbol ?? ch;
      tokens.push({ type: symbol === undefined ? 'other' : 'symbol', text: raw, value: raw, position });
      i += raw.length;
    }
  }
  tokens.push({ type: 'end', text: '', value: '', position: text.length + 1 });
  return tokens;
}

/** Reads a quoted string at `start`: a doubled quote or a backslash escapes the quote; `\\` is one backslash. */
function readString(text: string, start: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && (text[i + 1] === quote || text[i + 1] === '\\')) {
      value += text[i + 1];
      i += 2;
    } else if (ch === quote && text[i + 1] === quote) {
      value += quote;
      i += 2;
    } else if (ch === quote) {
      return { value, end: i + 1 };
    } else {
      value += ch;
      i++;
    }
  }
  throw sqlMessages.malformedFilter.error(
    text,
    text.length + 1,
    `a closing ${quote} for the string opened at position ${start + 1}`,
    'end of input',
  );
}

/** How a token is named in error messages. */
export function describe(token: Token): string {
  if (token.type === 'end') return 'end of input';
  const shown = token.text.length > 40 ? `${token.text.slice(0, 37)}...` : token.text;
  return `'${shown}'`;
}
