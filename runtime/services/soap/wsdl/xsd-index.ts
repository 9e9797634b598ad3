/**
 * The global components of every schema a WSDL loaded (elements, types, groups, attributes), by
 * qualified name, each with its schema's target namespace and form defaults. A name defined twice
 * keeps its first definition; a chameleon-included schema takes its includer's namespace. A name
 * in a namespace no schema defines finds the one component of its local name, if there is one.
 * A component of xs:redefine replaces the one it redefines, which stays its own base.
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
  /** Components redefined by xs:redefine, by key: the redefinition and the definition it replaces. */
  private readonly redefined = new Map<string, { redefinition: XsdComponent; original: XsdComponent | undefined }>();

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
      if (isXsdNamespace(child.namespaceURI) && child.localName === 'redefine')
        for (const redefinition of childElements(child)) this.add(redefinition, context, true);
      else this.add(child, context, false);
    }
    this.namespaces.add(context.targetNamespace);
  }

  /**
   * Adds a global component. One of xs:redefine (`redefines`) takes the name's place whether the
   * redefined schema came first or comes later; the definition it redefines is kept for the
   * references inside it to its own name (its base: `find`).
   */
  private add(child: Element, context: SchemaContext, redefines: boolean): void {
    const local = attribute(child, 'name');
    if (!isXsdNamespace(child.namespaceURI) || !KINDS.has(child.localName) || local === undefined) return;
    const kind = child.localName as ComponentKind;
    const name = { ns: context.targetNamespace, local };
    const key = `${kind}${qnameKey(name)}`;
    const component = { kind, name, node: child, context };
    const existing = this.components.get(key);
    if (existing !== undefined) {
      if (redefines && !this.redefined.has(key)) {
        this.redefined.set(key, { redefinition: component, original: existing });
        this.components.set(key, component);
      } else if (!redefines && this.redefined.get(key)?.original === undefined) {
        this.redefined.set(key, { redefinition: existing, original: component });
      }
      return;
    }
    if (redefines) this.redefined.set(key, { redefinition: component, original: undefined });
    this.components.set(key, component);
    const sameLocal = this.byLocal.get(`${kind}:${name.local}`);
    if (sameLocal === undefined) this.byLocal.set(`${kind}:${name.local}`, [component]);
    else sameLocal.push(component);
  }

  /**
   * The component a QName-valued attribute of `node` names. Lenient where WSDLs are sloppy: an
   * unprefixed name with no default namespace is also looked up in the schema's own namespace.
   */
  lookup(kind: ComponentKind, node: Element, value: string, context: SchemaContext): XsdComponent | undefined {
    return this.find(kind, this.qname(node, value, context), context, node);
  }

  /** Every component of a kind, in the order the schemas were added. */
  all(kind: ComponentKind): XsdComponent[] {
    return [...this.components.values()].filter((component) => component.kind === kind);
  }

  /** `from`: where the name is written; inside a redefinition, its own name is the definition it redefines. */
  find(kind: ComponentKind, name: QName, context?: SchemaContext, from?: Element): XsdComponent | undefined {
    const found = this.components.get(`${kind}${qnameKey(name)}`);
    if (found) return from === undefined ? found : this.redefinedFrom(`${kind}${qnameKey(name)}`, from, found);
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

  private redefinedFrom(key: string, from: Element, found: XsdComponent): XsdComponent {
    const redefined = this.redefined.get(key);
    if (redefined?.original === undefined) return found;
    for (let node: Node | null = from; node !== null; node = node.parentNode)
      if (node === redefined.redefinition.node) return redefined.original;
    return found;
  }

  /** Resolves a QName value in the scope of `node` (a chameleon schema's unprefixed names take its namespace). */
  qname(node: Element, value: string, context: SchemaContext): QName {
    return resolveQName(node, value, context.chameleon ? context.targetNamespace : '');
  }
}
