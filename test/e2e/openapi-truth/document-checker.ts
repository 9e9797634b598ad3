/**
 * One service's served OpenAPI document as a client reads it: which documented operation a
 * concrete request is, whether an answer's status, content type and body are the ones the
 * operation documents (ajv over the document's own schemas), and sample values of its schemas for
 * requests a walk makes from it.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export is the plugin itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Json = any;

export interface Answer {
  status: number;
  body: Json;
  contentType: string;
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  template: string;
  method: Method;
  operation: Json;
  /** Path-item and operation parameters together, resolved. */
  parameters: Json[];
}

export interface CheckOptions {
  /**
   * The fields a partial read (`fields=`, `group=`) asked for: the record schema describes a whole
   * record (as the `fields` parameter says), so only these of its required members must be there.
   */
  selected?: readonly string[];
  /**
   * The request is one the document must describe, whatever the answer (a test naming its requests
   * itself). Without it, a refused request the document has no operation for is no problem: a walk
   * makes some up to be refused.
   */
  documented?: boolean;
}

export class DocumentChecker {
  readonly problems: string[] = [];
  /** The statuses of the answers checked. */
  readonly statuses = new Set<number>();
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: string[];

  constructor(
    readonly service: string,
    readonly doc: Json,
  ) {
    addFormats(this.ajv);
    // OpenAPI 3.0 words ajv does not know; ajv knows `nullable` itself.
    for (const keyword of ['example', 'xml', 'externalDocs', 'discriminator'])
      if (!this.ajv.getKeyword(keyword)) this.ajv.addKeyword(keyword);
    this.ajv.addSchema({ ...doc, $id: 'doc' });
    const templated = (template: string) => (template.match(/\{/g) ?? []).length;
    this.templates = Object.keys(doc.paths).sort((a, b) => templated(a) - templated(b));
  }

  /** Every documented operation, in document order. */
  operations(): Operation[] {
    const all: Operation[] = [];
    for (const [template, item] of Object.entries<Json>(this.doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (operation === undefined) continue;
        const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: Json) => this.resolve(p));
        all.push({ template, method, operation, parameters });
      }
    }
    return all;
  }

  /**
   * The document's path for a concrete (still percent-encoded) path: literal paths first, then the
   * fewest templated segments; a parameter holds one segment, or several where none matches so (file paths).
   */
  pathOf(path: string): string | undefined {
    for (const segment of ['[^/]+', '.+']) {
      const match = this.templates.find((template) =>
        new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, segment)}$`).test(path),
      );
      if (match !== undefined) return match;
    }
    return undefined;
  }

  resolve(object: Json): Json {
    while (object?.$ref !== undefined) {
      object = (object.$ref as string)
        .slice(2)
        .split('/')
        .reduce((at: Json, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    }
    return object;
  }

  /** The documented response of a status: its own, its range (`4XX`) or `default`. */
  responseKey(operation: Json, status: number): string | undefined {
    return [String(status), `${String(status)[0]}XX`, 'default'].find((key) => operation.responses[key] !== undefined);
  }

  /** Checks an answer to `method url` against the document; returns its problems (also kept in `problems`). */
  check(method: string, url: string, answer: Answer, options: CheckOptions = {}): string[] {
    const found: string[] = [];
    this.statuses.add(answer.status);
    const at = `${method} /${this.service}${url} -> ${answer.status}`;
    const path = new URL(url, 'http://x').pathname;
    const template = this.pathOf(path);
    const operation = template === undefined ? undefined : this.doc.paths[template][method.toLowerCase()];
    if (template === undefined || operation === undefined) {
      // An undocumented request must not be answered as if it were served.
      const missing = `the document has no ${template === undefined ? 'path' : method} for it`;
      if (answer.status < 400) found.push(`${at}: answered, but ${missing}`);
      else if (options.documented) found.push(`${at}: ${missing}`);
      this.problems.push(...found);
      return found;
    }
    const key = this.responseKey(operation, answer.status);
    if (key === undefined) {
      found.push(
        `${at}: status not documented (${Object.keys(operation.responses).join(',')}) ${JSON.stringify(answer.body).slice(0, 200)}`,
      );
      this.problems.push(...found);
      return found;
    }
    const documented = operation.responses[key];
    const response = this.resolve(documented);
    const media = answer.contentType.split(';')[0].trim();
    const empty = answer.body === '' || answer.body === null || answer.body === undefined;
    if (response.content === undefined) {
      if (!empty) found.push(`${at}: documented without a body, answered ${media || 'no content type'}`);
    } else if (empty && method !== 'HEAD') {
      found.push(`${at}: documented with a body (${Object.keys(response.content).join(',')}), answered none`);
    } else {
      const content =
        response.content[media] ??
        response.content[`${media.split('/')[0]}/*`] ??
        response.content['*/*'] ??
        // A text document of a file service is documented as application/octet-stream too.
        undefined;
      if (content === undefined) {
        found.push(`${at}: content type ${media} not documented (${Object.keys(response.content).join(',')})`);
      } else if (content.schema !== undefined && media.includes('json')) {
        const mediaKey = Object.keys(response.content).find((k) => response.content[k] === content)!;
        const pointer = (text: string) => encodeURIComponent(text.replace(/~/g, '~0').replace(/\//g, '~1'));
        const ref = documented.$ref
          ? `${documented.$ref}/content/${pointer(mediaKey)}/schema`
          : `#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${key}/content/${pointer(mediaKey)}/schema`;
        let validate = this.cache.get(ref);
        if (validate === undefined) {
          validate = this.ajv.compile({ $ref: `doc${ref}` });
          this.cache.set(ref, validate);
        }
        if (!validate(answer.body)) {
          const errors = (validate.errors ?? []).filter((error) => !this.unselected(error, options.selected));
          if (errors.length > 0) {
            const text = errors.slice(0, 4).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
            found.push(`${at}: body does not match ${ref}: ${text.join('; ')} :: ${JSON.stringify(answer.body).slice(0, 200)}`);
          }
        }
      }
    }
    this.problems.push(...found);
    return found;
  }

  /** Why `value` does not match the document's schema at `ref` (`#/components/schemas/...`): none when it does. */
  mismatches(ref: string, value: Json): string[] {
    let validate = this.cache.get(ref);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `doc${ref}` });
      this.cache.set(ref, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** A missing member a partial read did not ask for. */
  private unselected(error: ErrorObject, selected: readonly string[] | undefined): boolean {
    if (selected === undefined) return false;
    if (error.keyword === 'required') return !selected.includes(String(error.params.missingProperty));
    // `anyOf`/`oneOf` errors that only failed by their required members come with those.
    return false;
  }

  /** A value of a schema: its example, first enum value, or the least that satisfies it. */
  sample(schema: Json, depth = 0): Json {
    const resolved = this.resolve(schema) ?? {};
    if (depth > 6) return null;
    if (resolved.example !== undefined) return resolved.example;
    if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return resolved.enum[0];
    for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(resolved[key])) return this.sample(resolved[key][0], depth + 1);
    if (Array.isArray(resolved.allOf)) {
      const parts = resolved.allOf.map((part: Json) => this.sample(part, depth + 1));
      // allOf around one named scalar type (an enumeration's $ref with a description beside it) is that scalar.
      const scalar = parts.find((part: Json) => part === null || typeof part !== 'object');
      if (scalar !== undefined) return scalar;
      return Object.assign({}, ...parts);
    }
    const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
    switch (type ?? (resolved.properties ? 'object' : resolved.items ? 'array' : undefined)) {
      case 'object': {
        const value: Record<string, Json> = {};
        for (const name of resolved.required ?? []) value[name] = this.sample(resolved.properties?.[name] ?? {}, depth + 1);
        return value;
      }
      case 'array':
        return Array.from({ length: Math.max(1, resolved.minItems ?? 1) }, () => this.sample(resolved.items ?? {}, depth + 1));
      case 'integer':
      case 'number':
        return Math.max(1, resolved.minimum ?? 1);
      case 'boolean':
        return true;
      case 'string':
        if (resolved.format === 'email') return 'walker@example.com';
        if (resolved.format === 'date-time') return '2026-01-01T00:00:00Z';
        if (resolved.format === 'date') return '2026-01-01';
        return 'x'.repeat(Math.max(1, resolved.minLength ?? 1));
      default:
        return 'x';
    }
  }
}
