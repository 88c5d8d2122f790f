import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import { toUnixSeconds, type Clock } from '../../platform/clock.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { normaliseEmail } from '../organizations/service.js';
import type { OrganizationRepo } from '../organizations/repo.js';
import type { CandidateRepo, CandidateRow, ListedCandidate } from './repo.js';

/**
 * A step of erasing a candidate, run in the erasure's transaction. Modules that keep a candidate's data
 * (resumes, sessions, recordings) register one, so DELETE /v1/candidates/{id} removes it everywhere. `locksFirst`:
 * row locks the step takes that the module's other writers take before the candidate's (the credit balance an
 * assignment locks first), taken before the candidate's row, so an erasure and an assignment racing it wait for each
 * other instead of deadlocking.
 */
export type CandidateEraser = ((tx: Kysely<Database>, tenant: Tenant, candidateId: string) => Promise<void>) & {
  locksFirst?: (tx: Kysely<Database>, tenant: Tenant) => Promise<void>;
};

/**
 * Never in a person's name: control characters (line breaks and tabs too: a name is one line, in an invitation's
 * text among others), line and paragraph separators, and bidi embeddings, overrides and isolates (they reorder what
 * the reader sees of the name and of the text after it). Joiners stay: they are part of Persian and Indic names and of emoji.
 */
const NOT_IN_A_NAME = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
/**
 * Something that shows: not white space, an invisible format character (a zero-width space), a blank "letter" (the
 * Hangul fillers, the blank braille pattern) nor a mark on its own.
 */
const VISIBLE = /[^\s\p{Cf}\p{M}\u115F\u1160\u3164\uFFA0\u2800]/u;

/** The name as stored (trimmed), or 400 naming `name`. */
function personName(name: string): string {
  if (NOT_IN_A_NAME.test(name) || !VISIBLE.test(name)) {
    throw new ApiError('parameter_invalid', {
      param: 'name', message: 'Invalid parameter name: must show at least one character, on one line, without control characters or bidi overrides.',
    });
  }
  return name.trim();
}

export function presentCandidate(row: ListedCandidate) {
  return {
    object: 'candidate' as const,
    id: row.id,
    email: row.email,
    name: row.name,
    livemode: row.livemode === 1,
    created_at: toUnixSeconds(row.created_at),
    updated_at: toUnixSeconds(row.updated_at),
  };
}

export function createCandidateService(deps: {
  db: Kysely<Database>; clock: Clock; repo: CandidateRepo; organizations: Pick<OrganizationRepo, 'isMemberEmail'>; erasers: CandidateEraser[];
}) {
  const { db, clock, repo, organizations, erasers } = deps;

  /** The email a candidate may have: not a platform account's, not another candidate's here. */
  async function checkEmail(tx: Kysely<Database>, tenant: Tenant, email: string, self?: string) {
    if (await organizations.isMemberEmail(tx, email)) throw new ApiError('email_is_platform_account', { param: 'email' });
    const existing = await repo.findByEmail(tx, tenant, email);
    if (existing && existing.id !== self) {
      throw new ApiError('candidate_email_taken', { param: 'email', message: `Candidate ${existing.id} already has this email address.` });
    }
  }

  async function mustGet(tx: Kysely<Database>, tenant: Tenant, id: string) {
    const row = await repo.get(tx, tenant, id);
    if (!row) throw notFound('candidate', id);
    return row;
  }

  async function inTransaction<T>(work: (tx: Kysely<Database>) => Promise<T>, email: string): Promise<T> {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError('candidate_email_taken', { param: 'email', message: `A candidate with the email ${email} already exists.` });
      throw error;
    }
  }

  return {
    list: (tenant: Tenant, page: PageRequest, email?: string) => repo.list(tenant, page, email === undefined ? undefined : normaliseEmail(email)),

    get: (tenant: Tenant, id: string) => mustGet(db, tenant, id),

    async create(tenant: Tenant, input: { email: string; name: string }) {
      const email = normaliseEmail(input.email);
      const name = personName(input.name);
      return inTransaction(async (tx) => {
        await checkEmail(tx, tenant, email);
        const now = clock.now();
        const row: CandidateRow = {
          id: newId(), organization_id: tenant.organizationId, livemode: livemodeFlag(tenant),
          email, name, created_at: now, updated_at: now,
        };
        await repo.insert(tx, row);
        return row;
      }, email);
    },

    async update(tenant: Tenant, id: string, input: { email?: string; name?: string }) {
      const email = input.email === undefined ? undefined : normaliseEmail(input.email);
      const name = input.name === undefined ? undefined : personName(input.name);
      return inTransaction(async (tx) => {
        await repo.lock(tx, tenant, id); // a concurrent correction or erasure commits first: this one reads what it left
        const row = await mustGet(tx, tenant, id);
        if (email !== undefined && email !== row.email) await checkEmail(tx, tenant, email, id);
        const changes = { email: email ?? row.email, name: name ?? row.name, updated_at: clock.now() };
        await repo.update(tx, tenant, id, changes);
        return { ...row, ...changes };
      }, email ?? '');
    },

    /** Erases the person: the record, what modules hold of them, and remembered responses naming them. */
    async erase(tenant: Tenant, id: string) {
      await db.transaction().execute(async (tx) => {
        for (const erase of erasers) await erase.locksFirst?.(tx, tenant);
        await repo.lock(tx, tenant, id); // whatever is being created for the candidate commits before, or fails after
        await mustGet(tx, tenant, id);
        for (const erase of erasers) await erase(tx, tenant, id);
        await repo.forgetIdempotentResponses(tx, tenant, id);
        await repo.delete(tx, tenant, id);
      });
    },
  };
}

export type CandidateService = ReturnType<typeof createCandidateService>;
