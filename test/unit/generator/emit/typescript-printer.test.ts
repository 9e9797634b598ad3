/**
 * The types.ts printer lays declarations out as ts-morph's structure printer and formatter did
 * (they printed these files before, and stay the reference here): JSDoc blocks, blank lines,
 * indentation. The one difference is deliberate: the formatter dropped the space before an index
 * signature (`a: string;[member: string]: unknown;`); the printer keeps the text it is given.
 */
import { IndentationText, NewLineKind, Project, QuoteKind, StructureKind, type StatementStructures } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { LINE_COMMENT_NOTICE } from '#generator/emit/generated-notice.js';
import { printTypeScript, type Declaration } from '#generator/emit/typescript-printer.js';

/** The previous printer: ts-morph Structures, then ts-morph's formatter. */
function printWithTsMorph(declarations: Declaration[]): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Double,
      newLineKind: NewLineKind.LineFeed,
      useTrailingCommas: true,
    },
  });
  const statements: StatementStructures[] = declarations.map((declaration): StatementStructures => {
    if (declaration.kind === 'typeImport') {
      const namedImports = declaration.names.map((name) => {
        const [imported, alias] = name.split(' as ');
        return { name: imported, alias };
      });
      return { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: declaration.from, namedImports };
    }
    return declaration.kind === 'interface'
      ? {
          kind: StructureKind.Interface,
          name: declaration.name,
          isExported: true,
          docs: [declaration.doc],
          properties: declaration.properties.map((property) => ({
            kind: StructureKind.PropertySignature,
            name: property.name,
            type: property.type,
            hasQuestionToken: property.optional,
            docs: property.doc === undefined ? [] : [property.doc],
          })),
        }
      : { kind: StructureKind.TypeAlias, name: declaration.name, isExported: true, docs: [declaration.doc], type: declaration.type };
  });
  const file = project.createSourceFile('generated.ts', {
    statements: [
      LINE_COMMENT_NOTICE,
      (writer) => {
        writer.blankLine();
      },
      ...statements,
    ],
  });
  file.formatText({ indentSize: 2, tabSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
  return file.getFullText();
}

const typeImport = (names: string[], from: string): Declaration => ({ kind: 'typeImport', names, from });
const alias = (name: string, type: string, doc = 'An alias.'): Declaration => ({ kind: 'typeAlias', name, doc, type });
const iface = (name: string, properties: Array<{ name: string; type: string; optional?: boolean; doc?: string }>, doc = 'A record.') =>
  ({ kind: 'interface', name, doc, properties }) as Declaration;

describe('printTypeScript', () => {
  it.each<[string, Declaration[]]>([
    [
      'interfaces with optional, quoted and documented members',
      [
        iface('Contact', [
          { name: 'id', type: 'number', doc: '`integer`, primary key' },
          { name: '"first name"', type: 'string | null', optional: true, doc: '`varchar(40)`' },
          { name: 'mood', type: '"happy" | "so-so" | ""', optional: true },
        ]),
        iface('Tables', [{ name: 'contact', type: 'Contact' }]),
      ],
    ],
    ['an empty interface', [iface('Tables', []), iface('TableInserts', [])]],
    [
      'type-only imports before an interface and before a type alias',
      [
        typeImport(['RoutineRequest'], 'portico/runtime'),
        typeImport(['Events as DbEvents', 'Tables'], './services/db/types.js'),
        iface('BuiltinEvents', [{ name: '"system.get.pre_process"', type: 'unknown' }]),
        typeImport(['Events as ShopEvents'], './services/shop/types.js'),
        alias('Events', 'DbEvents & ShopEvents & BuiltinEvents'),
      ],
    ],
    [
      'type aliases after each other, then an interface, then an alias',
      [
        alias('A', 'string'),
        alias('B', 'A[]'),
        iface('C', [{ name: 'a', type: 'A' }]),
        alias('D', '{ /** doc */ a?: string; b: Array<{ c: number; }> }'),
        alias('E', '"x" | 1 | null'),
      ],
    ],
    [
      'JSDoc texts: empty, trailing spaces, several lines, blank lines, leading and trailing line breaks, CRLF, tabs',
      [
        iface(
          'Docs',
          [
            { name: 'a', type: 'string', doc: '' },
            { name: 'b', type: 'string', doc: 'trailing  ' },
            { name: 'c', type: 'string', doc: 'one\ntwo  \n  indented' },
            { name: 'd', type: 'string', doc: 'x\n\n\ny' },
            { name: 'e', type: 'string', doc: '\nstarts with a line break' },
            { name: 'f', type: 'string', doc: 'ends with a line break\n' },
            { name: 'g', type: 'string', doc: 'a\r\nb' },
            { name: 'h', type: 'string', doc: 'tab\tinside\t' },
            { name: 'i', type: 'string', doc: '\n' },
            { name: 'j', type: 'string', doc: ' * starred\n * again' },
          ],
          'A table.\nIts comment spans\n\nlines.',
        ),
        alias('Multi', 'string', 'one\ntwo'),
      ],
    ],
  ])('prints %s as ts-morph did', (_, declarations) => {
    expect(printTypeScript(declarations)).toBe(printWithTsMorph(declarations));
  });

  it('keeps the space before an index signature, which ts-morph formatter dropped', () => {
    const declarations = [alias('Open', '{ a: string; [member: string]: unknown; }')];
    expect(printTypeScript(declarations)).toContain('export type Open = { a: string; [member: string]: unknown; };\n');
    expect(printWithTsMorph(declarations)).toContain('export type Open = { a: string;[member: string]: unknown; };\n');
  });
});
