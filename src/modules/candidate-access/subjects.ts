import type { Kysely } from 'kysely';
import type { Database, SubjectKind } from '../../db/schema.js';
import type { ModuleName, Tenant } from '../../platform/context.js';
import { ApiError } from '../../platform/errors.js';
import { SUBJECT_KINDS } from '../../platform/kinds.js';

/** Where a subject stands, as far as handing a candidate access to it goes. */
export type SubjectState = 'open' | 'lapsed' | 'cancelled' | 'finished';

export interface SubjectContext {
  candidate: { id: string; name: string } | null;
  /** What the candidate is about to take: a coding test, an interview round, … */
  round: { id: string; name: string; description: string | null };
  status: string;
  /** Time allowed once started; null when untimed. */
  duration_seconds: number | null;
}

/**
 * One kind of thing a session token can be bound to. Each assessment module registers its kind;
 * session tokens, launch links and the session context work the same way for all of them.
 */
export interface SubjectProvider {
  kind: SubjectKind;
  module: ModuleName;
  /** The POST /v1/sessions field that binds this kind. */
  field: string;
  /** The subject's state in this tenant, or null when there is no such subject there. */
  state(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<SubjectState | null>;
  context(tenant: Tenant, id: string): Promise<SubjectContext | null>;
}

export type SubjectRegistry = Map<SubjectKind, SubjectProvider>;

/** The POST /v1/sessions fields, one per kind (the kinds whose modules have not landed answer 404). */
export const SUBJECT_FIELDS = Object.fromEntries(Object.entries(SUBJECT_KINDS).map(([kind, k]) => [kind, k.sessionField])) as Record<SubjectKind, string>;

/** Refuses access to a subject that is not open, with the contract's code for each state. */
export function assertOpen(state: SubjectState): void {
  if (state === 'lapsed') throw new ApiError('assignment_expired');
  if (state === 'cancelled') throw new ApiError('session_cancelled');
  if (state === 'finished') throw new ApiError('session_already_finalized');
}
