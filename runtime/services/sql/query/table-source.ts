/**
 * A table as Kysely's query builders take it. Kysely reads a table given as text as
 * `schema.table` (split at the first dot, each part trimmed, ` as ` starting an alias), so a
 * table whose name holds a dot (`"Weird Table.x"`), ` as ` or outer spaces would be queried as
 * another relation. Such a table is given as a token instead, which TableSourcePlugin (installed
 * on every database service's Kysely instance) turns back into the table's own name.
 */
import {
  OperationNodeTransformer,
  TableNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

const TOKEN = 'portico_table_';
/** Whether any token was made in this process: until then the plugin leaves queries as they are. */
let tokensMade = false;

function plain(name: string): boolean {
  return !name.includes('.') && !name.includes(' as ') && name === name.trim() && !name.startsWith(TOKEN);
}

/** The table reference for Kysely: `schema.table` or `table` when Kysely reads it as written, else a token. */
export function tableSource(schema: string | null, name: string): string {
  if ((schema === null || plain(schema)) && plain(name)) return schema === null ? name : `${schema}.${name}`;
  tokensMade = true;
  return `${TOKEN}${Buffer.from(JSON.stringify([schema, name]), 'utf8').toString('hex')}`;
}

class TableSourceTransformer extends OperationNodeTransformer {
  protected override transformTable(node: TableNode): TableNode {
    const name = node.table.identifier.name;
    if (node.table.schema !== undefined || !name.startsWith(TOKEN)) return node;
    const [schema, table] = JSON.parse(Buffer.from(name.slice(TOKEN.length), 'hex').toString('utf8')) as [string | null, string];
    return schema === null ? TableNode.create(table) : TableNode.createWithSchema(schema, table);
  }
}

/** Turns the tokens of tableSource back into tables, in every statement. */
export class TableSourcePlugin implements KyselyPlugin {
  readonly #transformer = new TableSourceTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return tokensMade ? this.#transformer.transformNode(args.node, args.queryId) : args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
