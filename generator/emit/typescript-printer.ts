/**
 * Prints TypeScript output from ts-morph Structures with fixed settings (two-space indent,
 * double quotes, LF, the notice first), so the same structures always give the same bytes.
 */
import { IndentationText, NewLineKind, Project, QuoteKind, type StatementStructures, type WriterFunction } from 'ts-morph';
import { LINE_COMMENT_NOTICE } from './generated-notice.js';

/** The one module specifier generated code imports the runtime from. */
export const RUNTIME_SPECIFIER = 'portico/runtime';

export type Statements = Array<string | WriterFunction | StatementStructures>;

/** A blank line between statements. */
export const blankLine: WriterFunction = (writer) => {
  writer.blankLine();
};

/** Prints a module: the notice, a blank line, then the statements. */
export function printTypeScript(statements: Statements): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Double,
      newLineKind: NewLineKind.LineFeed,
      useTrailingCommas: true,
    },
  });
  const file = project.createSourceFile('generated.ts', { statements: [LINE_COMMENT_NOTICE, blankLine, ...statements] });
  // ts-morph hangs multi-line initializers by an extra level; the formatter puts them back.
  file.formatText({ indentSize: 2, tabSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
  return file.getFullText();
}

/** A property name as written in an interface or object literal: bare when it is an identifier. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** Text safe inside a JSDoc comment. */
export function docText(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}
