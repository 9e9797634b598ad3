/**
 * Rate limits as the reference platform defines them (reference 5.11, 6.8): types, periods, the
 * key that makes a limit unique, and which limits a request falls under, each with the key of the
 * counter it ticks.
 */
import type { Verb } from '../../model/platform-model.js';

export const LIMIT_TYPES = [
  'instance',
  'instance.user',
  'instance.each_user',
  'instance.user.service',
  'instance.each_user.service',
  'instance.service',
  'instance.service.endpoint',
  'instance.user.service.endpoint',
  'instance.each_user.service.endpoint',
  'instance.role',
] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];

/** Period labels by index, and their windows (the reference's "30-day" constant is 30 weeks: kept). */
export const PERIODS = ['minute', 'hour', 'day', '7-day', '30-day'] as const;
export const PERIOD_SECONDS = [60, 3600, 86400, 604800, 18144000] as const;

export const LIMIT_VERBS: readonly Verb[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A period given as its label or index; undefined when it is neither. */
export function periodIndex(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < PERIODS.length) return value;
  if (typeof value === 'string') {
    const byLabel = PERIODS.indexOf(value.trim().toLowerCase() as (typeof PERIODS)[number]);
    if (byLabel >= 0) return byLabel;
    if (/^\d$/.test(value.trim())) return periodIndex(Number(value));
  }
  return undefined;
}

export interface LimitFields {
  type: string;
  user_id: number | null;
  role_id: number | null;
  service_id: number | null;
  endpoint: string | null;
  verb: string | null;
  period: number;
}

export const needsUser = (type: string) => type.includes('user');
export const needsService = (type: string) => type.includes('service');
export const needsEndpoint = (type: string) => type.includes('endpoint');
export const isEachUser = (type: string) => type.includes('each_user');

/** Endpoints compare without surrounding slashes and case. */
export function normaliseEndpoint(endpoint: string | null): string | null {
  if (endpoint === null) return null;
  const trimmed = endpoint
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
  return trimmed === '' ? null : trimmed;
}

/** The scope part of a key (`instance.user:5.service:3`), user taken from `userId` for each_user types. */
function scopeKey(
  type: string,
  fields: Pick<LimitFields, 'user_id' | 'role_id' | 'service_id' | 'endpoint'>,
  userId: number | null,
): string {
  if (type === 'instance') return 'instance';
  if (type === 'instance.role') return `instance.role:${fields.role_id}`;
  let key = 'instance';
  if (needsUser(type)) key += `.${isEachUser(type) ? 'each_user' : 'user'}:${userId}`;
  if (needsService(type)) key += `.service:${fields.service_id}`;
  if (needsEndpoint(type)) key += `.endpoint:${normaliseEndpoint(fields.endpoint)}`;
  return key;
}

/** The reference's key_text: scope, `.verb:{VERB}` when a verb is set, then `.{period label}`. */
export function limitKeyText(fields: LimitFields): string {
  return `${scopeKey(fields.type, fields, fields.user_id)}${fields.verb ? `.verb:${fields.verb}` : ''}.${PERIODS[fields.period]}`;
}

/** An active limit as the request path checks it. */
export interface LimitRule extends LimitFields {
  id: number;
  name: string;
  rate: number;
  keyText: string;
  /** The record as /system/limit shows it (the 429's context). */
  record: Record<string, unknown>;
}

/** What a request is, for matching limits. */
export interface LimitedRequest {
  userId: number | null;
  roleId: number | null;
  serviceId: number;
  /** The resource path under the service, lower-case, without surrounding slashes. */
  component: string;
  verb: Verb;
}

/** The key of a limit's counter: for an each_user limit, the given user's. */
export function counterKey(rule: LimitFields, userId: number | null): string {
  return `${scopeKey(rule.type, rule, needsUser(rule.type) ? (isEachUser(rule.type) ? userId : rule.user_id) : null)}${rule.verb ? `.verb:${rule.verb}` : ''}.${PERIODS[rule.period]}`;
}

/** A limit that applies to a request, and the key of the counter it ticks. */
export interface LimitMatch {
  rule: LimitRule;
  counterKey: string;
}

function endpointMatches(stored: string | null, component: string): boolean {
  const endpoint = normaliseEndpoint(stored);
  if (endpoint === null) return false;
  const star = endpoint.indexOf('*');
  return star < 0 ? endpoint === component : component.startsWith(endpoint.slice(0, star));
}

function applies(rule: LimitRule, request: LimitedRequest): boolean {
  if (rule.verb && rule.verb !== request.verb) return false;
  if (rule.type === 'instance') return true;
  if (rule.type === 'instance.role') return rule.role_id === request.roleId;
  if (needsUser(rule.type)) {
    if (request.userId === null) return false;
    if (!isEachUser(rule.type) && rule.user_id !== request.userId) return false;
  }
  if (needsService(rule.type) && rule.service_id !== request.serviceId) return false;
  if (needsEndpoint(rule.type) && !endpointMatches(rule.endpoint, request.component)) return false;
  return true;
}

/**
 * The limits a request falls under. Of the limits of one scope and period, a user's own limit
 * overrides the each_user one, and a verb-specific limit the verb-less one (reference 6.8).
 */
export function matchLimits(rules: readonly LimitRule[], request: LimitedRequest): LimitMatch[] {
  const best = new Map<string, { match: LimitMatch; rank: number }>();
  for (const rule of rules) {
    if (!applies(rule, request)) continue;
    const userId = needsUser(rule.type) ? request.userId : null;
    const group = `${scopeKey(rule.type.replace('each_user', 'user'), rule, userId)}.${rule.period}`;
    const rank = (rule.verb ? 2 : 0) + (isEachUser(rule.type) ? 0 : 1);
    const current = best.get(group);
    if (!current || rank > current.rank) best.set(group, { match: { rule, counterKey: counterKey(rule, request.userId) }, rank });
  }
  return [...best.values()].map((entry) => entry.match);
}
