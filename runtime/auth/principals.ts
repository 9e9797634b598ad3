/** The in-memory view of who may call: apps, roles with their grants, users. */
import type { RowFilterModel, Verb } from '../model/platform-model.js';

export const VERB_BITS: Record<Verb, number> = { GET: 1, POST: 2, PUT: 4, PATCH: 8, DELETE: 16 };
export const ALL_VERBS_MASK = 31;

export function verbsToMask(verbs: readonly Verb[]): number {
  return verbs.reduce((mask, verb) => mask | VERB_BITS[verb], 0);
}

export function maskToVerbs(mask: number): Verb[] {
  return (Object.keys(VERB_BITS) as Verb[]).filter((verb) => (mask & VERB_BITS[verb]) !== 0);
}

export interface AppPrincipal {
  id: number;
  name: string;
  isActive: boolean;
  /** The app's default role. */
  roleId: number | null;
}

export interface Grant {
  /** Lower-case service name; null grants every service. */
  service: string | null;
  /** Lower-case component without leading or trailing slashes: `*`, ``, `_table/*`, `_table/contact`. */
  component: string;
  verbMask: number;
  /** 1 API, 2 script. */
  requestorMask: number;
  filters: RowFilterModel[];
  filterOp: 'and' | 'or';
}

export interface RolePrincipal {
  id: number;
  name: string;
  isActive: boolean;
  grants: Grant[];
}

export interface UserPrincipal {
  id: number;
  email: string;
  name: string;
  /**
   * Bypasses role checks: an administrator with no role assignments. An administrator with some
   * is a restricted administrator, whom roles govern like any user (reference 6.3).
   */
  isSysAdmin: boolean;
  /** An administrator's account (is_sys_admin), restricted or not: it logs in at system/admin/session. */
  isAdminAccount: boolean;
  isActive: boolean;
  /** Tokens issued before this (epoch seconds) are refused. */
  tokensValidAfter: number;
  /** Role per app id. */
  appRoles: ReadonlyMap<number, number>;
}
