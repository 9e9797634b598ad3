/**
 * Prints the generated TypeScript files (types.ts, events.ts) from a small declaration model:
 * type-only imports, and exported interfaces and type aliases with a JSDoc comment. Fixed
 * settings (two-space indent, LF, the notice first), so the same declarations give the same bytes.
 *
 * The layout is the one ts-morph's structure printer and formatter gave (a JSDoc block with a line
 * per line of a multi-line comment; a blank line before each interface and after each `}`), which
 * test/unit/generator/emit/typescript-printer.test.ts checks against ts-morph itself. Printing
 * directly keeps `gen build` fast: ts-morph parsed and formatted every file, 4.7 s of a 200-table
 * build. Names and type texts are printed as given: callers quote (propertyKey, JSON.stringify)
 * and write single spaces (`A | B`, `{ a: T; b?: U }`).
 */
import { LINE_COMMENT_NOTICE } from './generated-notice.js';

/** The one module specifier generated code imports the runtime from. */
export const RUNTIME_SPECIFIER = 'portico/runtime';

export interface PropertySignature {
  /** As written: an identifier, or a quoted name (propertyKey). */
  name: string;
  type: string;
  optional?: boolean;
  /** JSDoc text (docText); none when undefined. */
  doc?: string;
}

/** `export interface Name { ... }`. */
export interface InterfaceDeclaration {
  kind: 'interface';
  name: string;
  doc: string;
  properties: PropertySignature[];
}

/** `export type Name = type;`. */
export interface TypeAliasDeclaration {
  kind: 'typeAlias';
  name: string;
  doc: string;
  type: string;
}

/** `import type { A, B as C } from "module";`. */
export interface TypeImport {
  kind: 'typeImport';
  /** `A`, or `A as C`. */
  names: string[];
  from: string;
}

export type Declaration = TypeImport | InterfaceDeclaration | TypeAliasDeclaration;

/** Prints a module: the notice, a blank line, then the declarations. */
export function printTypeScript(declarations: readonly Declaration[]): string {
  const parts = [`${LINE_COMMENT_NOTICE}\n`];
  for (const declaration of declarations) {
    // A blank line before each interface and after each `}`; imports and type aliases follow each other directly.
    if (declaration.kind === 'interface' || parts.length === 1 || parts[parts.length - 1].endsWith('}\n')) parts.push('\n');
    parts.push(print(declaration));
  }
  return parts.join('');
}

function print(declaration: Declaration): string {
  switch (declaration.kind) {
    case 'typeImport':
      return `import type { ${declaration.names.join(', ')} } from ${JSON.stringify(declaration.from)};\n`;
    case 'interface':
      return printInterface(declaration);
    case 'typeAlias':
      return printTypeAlias(declaration);
  }
}

function printInterface({ name, doc, properties }: InterfaceDeclaration): string {
  const members = properties.map(
    (property) =>
      `${property.doc === undefined ? '' : jsDoc(property.doc, '  ')}  ${property.name}${property.optional ? '?' : ''}: ${property.type};\n`,
  );
  return `${jsDoc(doc, '')}export interface ${name} {\n${members.join('')}}\n`;
}

function printTypeAlias({ name, doc, type }: TypeAliasDeclaration): string {
  return `${jsDoc(doc, '')}export type ${name} = ${type};\n`;
}

/** `/** text *\/` on one line, or a block with a ` * ` per line (a first empty line dropped). */
function jsDoc(text: string, indent: string): string {
  const lines = text.split(/\r?\n/);
  if (lines.length === 1) return `${indent}/** ${text}${text === '' || text.endsWith(' ') ? '' : ' '}*/\n`;
  const body = (lines[0] === '' ? lines.slice(1) : lines).map((line) => `${indent} *${line === '' ? '' : ` ${line}`}\n`);
  return `${indent}/**\n${body.join('')}${indent} */\n`;
}

/** A property name as written in an interface or object literal: bare when it is an identifier. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** Text safe inside a JSDoc comment. */
export function docText(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

/** Global names a generated type should not shadow, for the readers of the file. */
export const GLOBAL_TYPE_NAMES = [
  'Array',
  'BigInt',
  'Boolean',
  'Date',
  'Error',
  'Function',
  'Map',
  'Number',
  'Object',
  'Omit',
  'Partial',
  'Pick',
  'Promise',
  'Readonly',
  'Record',
  'RegExp',
  'Set',
  'String',
  'Symbol',
];
