/**
 * Whether one set of grants reaches further than another: the check that keeps a caller governed
 * by a role from giving (to a role, a role assignment, an app) more than its own role has. Pure,
 * and exact for the one access decision (access.ts): both roles are asked, at every component
 * where either role's grants could decide differently, for every verb and requestor, whether they
 * allow it; row filters count as no wider only when identical or added on top (AND).
 */
import type { RowFilterModel, Verb } from '../model/platform-model.js';
import { matchGrant } from './access.js';
import { type Grant, VERB_BITS } from './principals.js';

/** Something the wider grants allow that the narrower do not (or allow with looser row filters). */
export interface WiderAccess {
  /** Lower-case service name; null: a service neither names. */
  service: string | null;
  /** The component, '' for the service's root; `…` stands for any name the grants do not. */
  component: string;
  verb: Verb;
  requestor: 'api' | 'script';
  /** Allowed by both, but the row filters of `grants` are not those of `within` nor added on top of them. */
  filters: boolean;
}

const VERBS = Object.keys(VERB_BITS) as Verb[];

/** The grants as the requestor's calls see them (access.ts roleForRequestor): script grants count as API ones for scripts. */
function forRequestor(grants: readonly Grant[], requestor: 'api' | 'script'): Grant[] {
  if (requestor === 'api') return grants.filter((grant) => (grant.requestorMask & 1) !== 0);
  return grants.filter((grant) => (grant.requestorMask & 2) !== 0).map((grant) => ({ ...grant, requestorMask: 1 }));
}

/** A character no component holds: a probe made with it lands where no grant names anything deeper. */
function freshCharacter(grants: readonly Grant[]): string {
  for (let code = 0; ; code++) {
    const candidate = String.fromCharCode(code);
    if (!grants.some((grant) => grant.component.includes(candidate) || (grant.service ?? '').includes(candidate))) return candidate;
  }
}

/**
 * Components where the grants of either role may decide differently: a grant's own component, a
 * point inside it below every other grant (`x/` + fresh), the root and a component no grant names.
 */
function probes(grants: readonly Grant[], fresh: string): Set<string> {
  const points = new Set<string>(['', fresh]);
  const wildcards: string[] = [];
  for (const { component } of grants) {
    if (component === '' || component === '*') continue;
    if (component.endsWith('*')) {
      const prefix = component.slice(0, -1);
      points.add(prefix.replace(/\/$/, ''));
      points.add(prefix);
      points.add(prefix + fresh);
      wildcards.push(component);
    } else points.add(component);
    points.add(`${component}/${fresh}`);
  }
  // A wildcard's own text as a component (`app/*` requested as such) last: refusals name real paths first.
  for (const component of wildcards) points.add(component);
  return points;
}

const filterKey = (filter: RowFilterModel) =>
  JSON.stringify([filter.name.trim().toLowerCase(), filter.operator.trim().toLowerCase(), String(filter.value)]);

/** Whether rows the narrower grant's filters let through are ones the wider grant's let through too. */
function filtersWithin(narrow: Grant, wide: Grant): boolean {
  if (wide.filters.length === 0) return true;
  const given = new Set(narrow.filters.map(filterKey));
  const required = wide.filters.map(filterKey);
  const op = (grant: Grant) => (grant.filters.length <= 1 ? 'and' : grant.filterOp);
  // Identical, or the wider grant's filters with more added by AND (narrower than their AND, and than their OR).
  if (op(narrow) === 'and') return required.every((key) => given.has(key));
  return op(wide) === 'or' && given.size === new Set(required).size && required.every((key) => given.has(key));
}

/**
 * The first thing `grants` allow that `within` does not, or null when `grants` reach nowhere
 * `within` does not (services neither names included: a grant on every service is wider than
 * grants naming some).
 */
export function widerAccess(grants: readonly Grant[], within: readonly Grant[]): WiderAccess | null {
  if (grants.every((grant) => grant.verbMask === 0 || (grant.requestorMask & 3) === 0)) return null;
  const fresh = freshCharacter([...grants, ...within]);
  for (const requestor of ['api', 'script'] as const) {
    const given = forRequestor(grants, requestor);
    if (given.length === 0) continue;
    const held = forRequestor(within, requestor);
    const services = new Set<string | null>([null]);
    for (const grant of [...given, ...held]) if (grant.service !== null) services.add(grant.service);
    for (const service of services) {
      const name = service ?? fresh;
      const relevant = [...given, ...held].filter((grant) => grant.service === null || grant.service === service);
      for (const component of probes(relevant, fresh)) {
        for (const verb of VERBS) {
          const granted = matchGrant(given, name, component, verb);
          if (granted === null) continue;
          const holding = matchGrant(held, name, component, verb);
          if (holding !== null && filtersWithin(granted, holding)) continue;
          return {
            service,
            component: component.split(fresh).join('…'),
            verb,
            requestor,
            filters: holding !== null,
          };
        }
      }
    }
  }
  return null;
}

/** The wider access in words, for a refusal: "PATCH on component 'service' of service 'system'". */
export function describeWider(wider: WiderAccess): string {
  const service = wider.service === null ? 'every service' : `service '${wider.service}'`;
  const component = wider.component === '' ? `the root of ${service}` : `component '${wider.component}' of ${service}`;
  const by = wider.requestor === 'script' ? ' to scripts' : '';
  return `${wider.verb}${by} on ${component}${wider.filters ? ' with looser row filters' : ''}`;
}
