// STUB: replaced by the filter-grammar work. Signature is the contract.
import type { Expression, SqlBool } from 'kysely';
import { NotImplementedError } from '../../../core/errors.js';
import type { DatabaseSchema, SqlDialect, TableModel } from '../../../model/platform-model.js';
import type { FilterNode } from './filter-parser.js';

export interface FilterScope {
  table: TableModel;
  schema: DatabaseSchema;
  dialect: SqlDialect;
  /** Values for `:name` placeholders (from the request body's `params`). */
  params?: Record<string, unknown>;
  /** Alias the outer query gives the table; defaults to the table's source name. */
  alias?: string;
}

/** Compiles a filter AST to a Kysely boolean expression with bound parameters. */
export function compileFilter(node: FilterNode, scope: FilterScope): Expression<SqlBool> {
  void scope;
  throw new NotImplementedError(`filter compiling is not implemented yet: ${node.kind}`);
}
