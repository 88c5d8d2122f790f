import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { INVISIBLE } from '../../platform/text.js';
import { createCatalogueRepo } from './repo.js';

/**
 * An organisation's own catalogue entry, as an operator gives it in a JSON file (`prep org catalog add`): checked
 * field by field, as the API would check a body, so that a wrong file is refused by name rather than stored as
 * "undefined" or as a round no interview could have.
 */
export class CatalogueEntryError extends Error {}

type Entry = Record<string, unknown>;
/** What an interview's length may be (`duration_minutes` of POST /v1/interviews): a round type gives its default. */
export const ROUND_MINUTES = { min: 5, max: 120 } as const;

function text(e: Entry, field: string, max: number, where: string): string {
  const v = e[field];
  if (typeof v !== 'string' || v.trim() === '' || v.length > max || INVISIBLE.test(v)) {
    throw new CatalogueEntryError(`${where}: ${field} is text of 1 to ${max} characters without control characters (got ${JSON.stringify(v)?.slice(0, 80)})`);
  }
  return v.trim();
}

function optionalText(e: Entry, field: string, max: number, where: string, fallback: string | null): string | null {
  return e[field] === undefined || e[field] === null ? fallback : text(e, field, max, where);
}

/** The slug and, for messages, where the entry is. */
function slugOf(e: unknown, index: number): { entry: Entry; slug: string; where: string } {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new CatalogueEntryError(`entry ${index}: an entry is a JSON object`);
  const slug = (e as Entry).slug;
  if (typeof slug !== 'string' || !/^[a-z0-9][a-z0-9-]{0,79}$/.test(slug)) throw new CatalogueEntryError(`entry ${index}: each entry needs a kebab-case slug (got ${JSON.stringify(slug)})`);
  return { entry: e as Entry, slug, where: `entry ${index} (${slug})` };
}

export function roundTypeEntry(e: unknown, index: number) {
  const { entry, slug, where } = slugOf(e, index);
  const minutes = entry.duration_minutes;
  if (!Number.isInteger(minutes) || (minutes as number) < ROUND_MINUTES.min || (minutes as number) > ROUND_MINUTES.max) {
    throw new CatalogueEntryError(`${where}: duration_minutes is a whole number from ${ROUND_MINUTES.min} to ${ROUND_MINUTES.max} (got ${JSON.stringify(minutes)})`);
  }
  return { slug, name: text(entry, 'name', 120, where), description: optionalText(entry, 'description', 2000, where, '')!, duration_minutes: minutes as number };
}

export function companyEntry(e: unknown, index: number) {
  const { entry, slug, where } = slugOf(e, index);
  return {
    slug, name: text(entry, 'name', 120, where), industry: optionalText(entry, 'industry', 60, where, 'software')!,
    size: optionalText(entry, 'size', 60, where, 'startup')!, headquarters: optionalText(entry, 'headquarters', 120, where, null),
  };
}

export function jobEntry(e: unknown, index: number) {
  const { entry, slug, where } = slugOf(e, index);
  const skills = entry.skills ?? [];
  if (!Array.isArray(skills) || skills.length > 50 || !skills.every((s) => typeof s === 'string' && s.trim() !== '' && s.length <= 60 && !INVISIBLE.test(s))) {
    throw new CatalogueEntryError(`${where}: skills is a list of at most 50 names of 1 to 60 characters`);
  }
  return {
    slug, title: text(entry, 'title', 200, where), company_id: optionalText(entry, 'company_id', 36, where, null),
    level: optionalText(entry, 'level', 40, where, 'mid')!, location: optionalText(entry, 'location', 120, where, null),
    employment_type: optionalText(entry, 'employment_type', 40, where, 'full_time')!, description: optionalText(entry, 'description', 20_000, where, '')!,
    skills: skills.map((s: string) => s.trim()),
  };
}

export const ENTRY_KINDS = ['round-type', 'company', 'job'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * Adds an organisation's own entries of one kind, all or none: every entry is checked first (a job's `company_id`
 * must be a company the organisation sees), then all are written in one transaction; a slug it already has is
 * refused by name.
 */
export async function addOwnCatalogueEntries(database: Db, organizationId: string, kind: EntryKind, parsed: unknown, now: number): Promise<number> {
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0 || list.length > 1000) throw new CatalogueEntryError('a file holds 1 to 1,000 entries');
  const repo = createCatalogueRepo(database);
  const check = kind === 'round-type' ? roundTypeEntry : kind === 'company' ? companyEntry : jobEntry;
  const entries = list.map((e, i) => check(e, i));
  const slugs = new Set<string>();
  for (const e of entries) {
    if (slugs.has(e.slug)) throw new CatalogueEntryError(`the file names ${e.slug} twice`);
    slugs.add(e.slug);
  }
  await database.kysely.transaction().execute(async (tx) => {
    for (const e of entries) {
      try {
        if (kind === 'round-type') await repo.addRoundType(organizationId, e as ReturnType<typeof roundTypeEntry>, now, tx);
        else if (kind === 'company') await repo.addCompany(organizationId, e as ReturnType<typeof companyEntry>, now, tx);
        else {
          const job = e as ReturnType<typeof jobEntry>;
          if (job.company_id !== null && !(await repo.visibleCompany(tx, organizationId, job.company_id))) {
            throw new CatalogueEntryError(`${job.slug}: company_id ${job.company_id} is no company of this organisation or the shared catalogue`);
          }
          await repo.addJob(organizationId, job, now, tx);
        }
      } catch (error) {
        if (isUniqueViolation(error)) throw new CatalogueEntryError(`${e.slug}: the organisation already has a ${kind} with this slug`);
        throw error;
      }
    }
  });
  return entries.length;
}
