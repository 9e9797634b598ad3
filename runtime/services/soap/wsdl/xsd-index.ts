/**
 * The global components of every schema a WSDL loaded (elements, types, groups, attributes), by
 * qualified name, each with its schema's target namespace and form defaults. A name defined twice
 * keeps its first definition; a chameleon-included schema takes its includer's namespace. A name
 * in a namespace no schema defines finds the one component of its local name, if there is one.
 */
import { attribute, childElements, isXsdNamespace, qnameKey, resolveQName, type QName } from '../xml-dom.js';

export type ComponentKind = 'element' | 'complexType' | 'simpleType' | 'group' | 'attributeGroup' | 'attribute';

const KINDS = new Set<string>(['element', 'complexType', 'simpleType', 'group', 'attributeGroup', 'attribute']);

export interface SchemaContext {
  targetNamespace: string;
  /** The schema declares no targetNamespace and takes its includer's. */
  chameleon: boolean;
  elementQualified: boolean;
  attributeQualified: boolean;
}

export interface XsdComponent {
  kind: ComponentKind;
  name: QName;
  node: Element;
  context: SchemaContext;
}

export class XsdIndex {
  private readonly components = new Map<string, XsdComponent>();
  /** The target namespaces of the schemas added. */
  private readonly namespaces = new Set<string>();
  /** Components by kind and local name, across namespaces. */
  private readonly byLocal = new Map<string, XsdComponent[]>();

  /** Adds the global components of a schema element. */
  addSchema(schema: Element, chameleonNamespace: string | null): void {
    const declared = attribute(schema, 'targetNamespace');
    const context: SchemaContext = {
      targetNamespace: declared ?? chameleonNamespace ?? '',
      chameleon: declared === undefined && chameleonNamespace !== null,
      elementQualified: attribute(schema, 'elementFormDefault') === 'qualified',
      attributeQualified: attribute(schema, 'attributeFormDefault') === 'qualified',
    };
    for (const child of childElements(schema)) {
      const local = attribute(child, 'name');
      if (!isXsdNamespace(child.namespaceURI) || !KINDS.has(child.localName) || local === undefined) continue;
      const kind = child.localName as ComponentKind;
      const name = { ns: context.targetNamespace, local };
      const key = `${kind}${qnameKey(name)}`;
      if (this.components.has(key)) continue;
      const component = { kind, name, node: child, context };
      this.components.set(key, component);
      const sameLocal = this.byLocal.get(`${kind}:${name.local}`);
      if (sameLocal === undefined) this.byLocal.set(`${kind}:${name.local}`, [component]);
      else sameLocal.push(component);
    }
    this.namespaces.add(context.targetNamespace);
  }

  /**
   * The component a QName-valued attribute of `node` names. Lenient where WSDLs are sloppy: an
   * unprefixed name with no default namespace is also looked up in the schema's own namespace.
   */
  lookup(kind: ComponentKind, node: Element, value: string, context: SchemaContext): XsdComponent | undefined {
    return this.find(kind, this.qname(node, value, context), context);
  }

  /** Every component of a kind, in the order the schemas were added. */
  all(kind: ComponentKind): XsdComponent[] {
    return [...this.components.values()].filter((component) => component.kind === kind);
  }

  find(kind: ComponentKind, name: QName, context?: SchemaContext): XsdComponent | undefined {
    const found = this.components.get(`${kind}${qnameKey(name)}`);
    if (found) return found;
    if (name.ns === '' && context !== undefined) {
      const own = this.components.get(`${kind}${qnameKey({ ns: context.targetNamespace, local: name.local })}`);
      if (own) return own;
    }
    // A namespace no schema defines: an unprefixed name in a hand-written WSDL whose default
    // namespace is WSDL's own, or a stale prefix. The one component of that local name is meant.
    if (this.namespaces.has(name.ns)) return undefined;
    const candidates = this.byLocal.get(`${kind}:${name.local}`);
    return candidates?.length === 1 ? candidates[0] : undefined;
  }

  /** Resolves a QName value in the scope of `node` (a chameleon schema's unprefixed names take its namespace). */
  qname(node: Element, value: string, context: SchemaContext): QName {
    return resolveQName(node, value, context.chameleon ? context.targetNamespace : '');
  }
}
