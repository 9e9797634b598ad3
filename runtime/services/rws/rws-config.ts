/** The `rws` config (reference service-types.md §2.1) and how its parameters and headers apply. */
import { VERB_BITS } from '../../auth/principals.js';
import type { Verb } from '../../model/platform-model.js';
import { WELL_FORMED_ESCAPES, WELL_FORMED_ESCAPES_MESSAGE } from '../../core/percent-decoding.js';

const verbs = {
  description:
    "Verbs the entry applies to: a list (`[GET, POST]`) or the reference's bit mask (GET 1, POST 2, PUT 4, PATCH 8, DELETE 16). Default: every verb.",
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'array', items: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] } },
  ],
};

export const rwsConfigSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['base_url'],
  properties: {
    base_url: {
      type: 'string',
      minLength: 1,
      pattern: WELL_FORMED_ESCAPES,
      patternErrorMessage: WELL_FORMED_ESCAPES_MESSAGE,
      title: 'Base URL',
      description: 'Root URL of the remote API (http or https); requests go only to its host.',
    },
    parameters: {
      type: 'array',
      description: 'Query parameters added to (or, with exclude, removed from) outbound requests; values take {lookup}s.',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          value: { type: 'string' },
          exclude: { type: 'boolean', description: 'Remove this incoming parameter instead of adding one.' },
          outbound: { type: 'boolean', description: 'Applies to the outbound request (default true).' },
          cache_key: { type: 'boolean', description: 'Part of the cache key (default true).' },
          action: verbs,
        },
      },
    },
    headers: {
      type: 'array',
      description:
        "Headers added to outbound requests; values take {lookup}s. pass_from_client forwards the caller's header of that name instead.",
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, value: { type: 'string' }, pass_from_client: { type: 'boolean' }, action: verbs },
      },
    },
    timeout: { type: 'integer', minimum: 1, description: 'Seconds to wait for the remote (default 30).' },
    cache_enabled: {
      type: 'boolean',
      title: 'Data Retrieval Caching Enabled',
      description: 'Keep successful GET responses for cache_ttl seconds.',
    },
    cache_ttl: { type: 'integer', minimum: 0, title: 'Cache Time To Live (seconds)' },
    preserve_forward_trailing_slash: { type: 'boolean', description: 'Keep a trailing slash of the request path on the outbound URL.' },
    forward_headers: {
      type: 'boolean',
      description: "Forward the caller's headers (default true; hop-by-hop and credential headers never are).",
    },
    openapi: {
      description:
        "OpenAPI 3 document of the remote API served as the service's _spec: an object, or a JSON/YAML file relative to the platform directory.",
    },
  },
};

export interface ParameterEntry {
  name: string;
  value: string;
  exclude: boolean;
  outbound: boolean;
  cacheKey: boolean;
  mask: number;
}

export interface HeaderEntry {
  name: string;
  value: string;
  passFromClient: boolean;
  mask: number;
}

function mask(action: unknown): number {
  if (typeof action === 'number') return action === 0 ? 31 : action;
  if (Array.isArray(action)) return action.reduce((bits: number, verb) => bits | (VERB_BITS[String(verb).toUpperCase() as Verb] ?? 0), 0);
  return 31;
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const records = (value: unknown) =>
  Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && typeof v.name === 'string')
    : [];

export function parameterEntries(value: unknown): ParameterEntry[] {
  return records(value).map((p) => ({
    name: p.name as string,
    value: text(p.value),
    exclude: p.exclude === true,
    outbound: p.outbound !== false,
    cacheKey: p.cache_key !== false,
    mask: mask(p.action),
  }));
}

export function headerEntries(value: unknown): HeaderEntry[] {
  return records(value).map((h) => ({
    name: h.name as string,
    value: text(h.value),
    passFromClient: h.pass_from_client === true,
    mask: mask(h.action),
  }));
}

export const applies = (entry: { mask: number }, verb: Verb) => (entry.mask & VERB_BITS[verb]) !== 0;
