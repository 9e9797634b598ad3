/**
 * The comparable shape of a (formatted) Prisma schema, by database names: models (ignored or
 * not), fields with their types (Unsupported ones included), keys, and relations (foreign keys
 * with their referential actions, Prisma's defaults made explicit, and back-relations). Names
 * Prisma gives models, fields and relation fields are left out: Portico and `prisma db pull`
 * choose them differently by design.
 */

export interface ModelShape {
  ignored: boolean;
  /** db field name -> `Type`, `Type?`, `Type[]`, followed by the native type attribute if any (`String? @db.VarChar(8)`). */
  fields: Record<string, string>;
  id: string[];
  /** Each unique key's db field names, sorted; the list sorted. */
  uniques: string[][];
  /** `a,b -> model(x,y) onDelete onUpdate` for foreign keys, `<- model[]` / `<- model?` for back-relations; sorted. */
  relations: string[];
}

interface RawField {
  name: string;
  type: string;
  optional: boolean;
  list: boolean;
  attributes: string;
}

interface RawModel {
  name: string;
  fields: RawField[];
  block: string[];
}

const quoted = (text: string | undefined, fallback: string) => (text === undefined ? fallback : (JSON.parse(text) as string));
const list = (text: string | undefined) =>
  text === undefined
    ? []
    : text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');

function parseModels(schema: string): RawModel[] {
  const models: RawModel[] = [];
  let current: RawModel | null = null;
  for (const raw of schema.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    const open = /^model\s+(\S+)\s*\{$/.exec(line);
    if (open) {
      current = { name: open[1], fields: [], block: [] };
      models.push(current);
    } else if (current !== null && line === '}') {
      current = null;
    } else if (current !== null && line.startsWith('@@')) {
      current.block.push(line);
    } else if (current !== null && line !== '') {
      const field = /^(\S+)\s+(Unsupported\("[^"]*"\)|[A-Za-z_][\w]*)(\[\])?(\?)?\s*(.*)$/.exec(line);
      if (field)
        current.fields.push({
          name: field[1],
          type: field[2],
          list: field[3] !== undefined,
          optional: field[4] !== undefined,
          attributes: field[5],
        });
    }
  }
  return models;
}

/** The shape of every model of `schema`, by table name. */
export function prismaSchemaShape(schema: string): Record<string, ModelShape> {
  const models = parseModels(schema);
  const dbName = (model: RawModel) => quoted(model.block.map((b) => /^@@map\(("[^"]*")\)/.exec(b)?.[1]).find(Boolean), model.name);
  const byName = new Map(models.map((model) => [model.name, model]));
  const shapes: Record<string, ModelShape> = {};
  for (const model of models) {
    const columns = new Map(model.fields.map((f) => [f.name, quoted(/@map\(("[^"]*")\)/.exec(f.attributes)?.[1], f.name)]));
    const db = (names: string[]) => names.map((name) => columns.get(name) ?? name);
    const shape: ModelShape = { ignored: model.block.includes('@@ignore'), fields: {}, id: [], uniques: [], relations: [] };
    for (const field of model.fields) {
      const target = byName.get(field.type);
      if (target === undefined) {
        const native = /@db\.\w+(\([^)]*\))?/.exec(field.attributes)?.[0];
        shape.fields[columns.get(field.name) as string] =
          `${field.type}${field.list ? '[]' : ''}${field.optional ? '?' : ''}${native ? ` ${native}` : ''}`;
        if (/(^|\s)@id\b/.test(field.attributes)) shape.id = db([field.name]);
        if (/(^|\s)@unique\b/.test(field.attributes)) shape.uniques.push(db([field.name]));
        continue;
      }
      const relation = /@relation\(([^)]*)\)/.exec(field.attributes)?.[1] ?? '';
      const from = list(/fields:\s*\[([^\]]*)\]/.exec(relation)?.[1]);
      if (from.length === 0) {
        shape.relations.push(`<- ${dbName(target)}${field.list ? '[]' : '?'}`);
        continue;
      }
      const targetColumns = new Map(target.fields.map((f) => [f.name, quoted(/@map\(("[^"]*")\)/.exec(f.attributes)?.[1], f.name)]));
      const to = list(/references:\s*\[([^\]]*)\]/.exec(relation)?.[1]).map((name) => targetColumns.get(name) ?? name);
      const onDelete = /onDelete:\s*(\w+)/.exec(relation)?.[1] ?? (field.optional ? 'SetNull' : 'Restrict');
      const onUpdate = /onUpdate:\s*(\w+)/.exec(relation)?.[1] ?? 'Cascade';
      shape.relations.push(`${db(from).join(',')} -> ${dbName(target)}(${to.join(',')}) onDelete ${onDelete} onUpdate ${onUpdate}`);
    }
    for (const block of model.block) {
      const id = /^@@id\(\[([^\]]*)\]/.exec(block);
      if (id) shape.id = db(list(id[1]));
      const unique = /^@@unique\(\[([^\]]*)\]/.exec(block);
      if (unique) shape.uniques.push(db(list(unique[1])));
    }
    shape.uniques = shape.uniques.map((key) => [...key].sort()).sort((a, b) => a.join().localeCompare(b.join()));
    shape.relations.sort();
    shapes[dbName(model)] = shape;
  }
  return Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
