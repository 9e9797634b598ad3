/**
 * Puts the components of several fragments (and the shared ones) into one document. In a
 * service's own document a component the fragment defines unlike the shared one gets the service
 * prefix (`db.Metadata`); in the combined document every component of a fragment that is not a
 * shared one gets it (`db.contact`), so that its name never depends on what other services hold.
 * `$ref`s are rewritten with each rename; equal definitions collapse into one.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ComponentsObject } from 'openapi3-ts/oas30';
import type { OpenApiFragment } from './fragment.js';
import { uniqueNamer } from './code-identifiers.js';

type Section = keyof ComponentsObject;
type ComponentMap = Record<string, unknown>;

/** A service's fragment; merging renames inside it, so pass a copy. */
export interface NamedFragment {
  service: string;
  fragment: OpenApiFragment;
}

function sectionOf(components: ComponentsObject, section: Section): ComponentMap {
  return (components[section] ?? {}) as ComponentMap;
}

/** Replaces every `$ref` equal to `from` by `to`, in place. */
function rewriteRefs(value: unknown, from: string, to: string): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteRefs(item, from, to);
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const [key, member] of Object.entries(object)) {
      if (key === '$ref' && member === from) object[key] = to;
      else rewriteRefs(member, from, to);
    }
  }
}

function renameComponent(fragment: OpenApiFragment, section: Section, from: string, to: string): void {
  const map = sectionOf(fragment.components, section);
  map[to] = map[from];
  delete map[from];
  rewriteRefs(fragment, `#/components/${section}/${from}`, `#/components/${section}/${to}`);
}

/** Renames, in the fragments, every component whose name clashes; repeats until none does (renaming changes `$ref`s and so equality). */
function resolveClashes(shared: ComponentsObject, fragments: NamedFragment[]): void {
  const sections = new Set<Section>([shared, ...fragments.map((f) => f.fragment.components)].flatMap((c) => Object.keys(c) as Section[]));
  const namer = uniqueNamer(
    [shared, ...fragments.map((f) => f.fragment.components)].flatMap((c) => [...sections].flatMap((s) => Object.keys(sectionOf(c, s)))),
  );
  for (let renamed = true; renamed; ) {
    renamed = false;
    for (const section of sections) {
      const names = [...new Set(fragments.flatMap((f) => Object.keys(sectionOf(f.fragment.components, section))))].sort();
      for (const name of names) {
        const holders = fragments.filter((f) => name in sectionOf(f.fragment.components, section));
        const sharedValue = sectionOf(shared, section)[name];
        const reference = sharedValue ?? sectionOf(holders[0].fragment.components, section)[name];
        if (holders.every((f) => isDeepStrictEqual(sectionOf(f.fragment.components, section)[name], reference))) continue;
        for (const holder of holders) {
          if (sharedValue !== undefined && isDeepStrictEqual(sectionOf(holder.fragment.components, section)[name], sharedValue)) continue;
          renameComponent(holder.fragment, section, name, namer(`${holder.service}.${name}`));
          renamed = true;
        }
      }
    }
  }
}

/** Every `$ref` target (`section/name`) reachable from `roots` through the components. */
function reachable(roots: unknown, components: ComponentsObject): Set<string> {
  const found = new Set<string>();
  const pending: unknown[] = [roots];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) pending.push(...value);
    else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        if (key === '$ref' && typeof member === 'string' && member.startsWith('#/components/')) {
          const target = member.slice('#/components/'.length);
          if (found.has(target)) continue;
          found.add(target);
          const [section, name] = target.split('/');
          pending.push(sectionOf(components, section as Section)[name]);
        } else pending.push(member);
      }
    }
  }
  return found;
}

/** Replaces every `$ref` found in `renamed` by its new target, in place, in one walk. */
function rewriteAllRefs(value: unknown, renamed: ReadonlyMap<string, string>): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteAllRefs(item, renamed);
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const [key, member] of Object.entries(object)) {
      if (key === '$ref' && typeof member === 'string') object[key] = renamed.get(member) ?? member;
      else rewriteAllRefs(member, renamed);
    }
  }
}

/**
 * Gives every component of each fragment that is not a shared one (same name, same definition)
 * the fragment's service prefix, rewriting the fragment's `$ref`s in one walk (a walk per rename
 * took seconds on a platform of a few hundred tables and operations).
 */
function namespaceComponents(shared: ComponentsObject, fragments: NamedFragment[]): void {
  for (const { service, fragment } of fragments) {
    const renamed = new Map<string, string>();
    for (const section of Object.keys(fragment.components) as Section[]) {
      const map = sectionOf(fragment.components, section);
      const renamedMap: ComponentMap = {};
      for (const [name, value] of Object.entries(map)) {
        if (isDeepStrictEqual(value, sectionOf(shared, section)[name])) {
          renamedMap[name] = value;
          continue;
        }
        renamedMap[`${service}.${name}`] = value;
        renamed.set(`#/components/${section}/${name}`, `#/components/${section}/${service}.${name}`);
      }
      (fragment.components as Record<string, ComponentMap>)[section] = renamedMap;
    }
    if (renamed.size > 0) rewriteAllRefs(fragment, renamed);
  }
}

/**
 * Union of the shared components and the fragments' (renamed in place: where they clash, or
 * with `namespace` every component that is not shared).
 */
export function mergeComponents(
  shared: ComponentsObject,
  fragments: NamedFragment[],
  options: { namespace?: boolean } = {},
): ComponentsObject {
  if (options.namespace) namespaceComponents(shared, fragments);
  resolveClashes(shared, fragments);
  const merged: ComponentsObject = {};
  for (const components of [shared, ...fragments.map((f) => f.fragment.components)]) {
    for (const [section, map] of Object.entries(components) as Array<[Section, ComponentMap]>) {
      merged[section] = { ...sectionOf(merged, section), ...map } as never;
    }
  }
  return merged;
}

/**
 * Drops the shared components nothing references: a document lists what its fragments define
 * plus the shared components reachable from its paths.
 */
export function dropUnusedShared(
  components: ComponentsObject,
  shared: ComponentsObject,
  fragments: NamedFragment[],
  paths: unknown,
): ComponentsObject {
  const used = reachable([paths, fragments.map((f) => f.fragment.components)], components);
  const kept: ComponentsObject = {};
  for (const [section, map] of Object.entries(components) as Array<[Section, ComponentMap]>) {
    const entries = Object.entries(map).filter(
      ([name]) =>
        !(name in sectionOf(shared, section)) ||
        used.has(`${section}/${name}`) ||
        fragments.some((f) => name in sectionOf(f.fragment.components, section)),
    );
    if (entries.length > 0) kept[section] = Object.fromEntries(entries) as never;
  }
  return kept;
}
