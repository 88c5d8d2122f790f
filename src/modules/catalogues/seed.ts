import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/ids.js';

interface RoundTypeSeed { slug: string; name: string; description: string; duration_minutes: number }
interface CompanySeed { slug: string; name: string; industry: string; size: string; headquarters: string | null }
interface JobSeed {
  slug: string; title: string; company_slug: string | null; level: string; location: string | null;
  employment_type: string; description: string; skills: string[];
}

function readCatalog<T>(file: string): T[] {
  return JSON.parse(readFileSync(new URL(`../../../catalog/${file}`, import.meta.url), 'utf8')) as T[];
}

/**
 * Inserts the shared catalogue entries (organization_id null) that are not there yet, matched by slug.
 * Safe to run again: `prep seed` does after the catalog files gain entries.
 */
export async function seedCatalogues(db: Kysely<any>, now = Date.now()): Promise<number> {
  let inserted = 0;
  const existing = async (table: string): Promise<Map<string, string>> => {
    const rows = await db.selectFrom(table).select(['id', 'slug']).where('organization_id', 'is', null).execute();
    return new Map(rows.map((r: { id: string; slug: string }) => [r.slug, r.id]));
  };

  const roundTypes = await existing('round_types');
  for (const r of readCatalog<RoundTypeSeed>('round-types.json')) {
    if (roundTypes.has(r.slug)) continue;
    await db.insertInto('round_types').values({
      id: newId(), organization_id: null, slug: r.slug, name: r.name, description: r.description,
      duration_minutes: r.duration_minutes, created_at: now,
    }).execute();
    inserted++;
  }

  const companies = await existing('companies');
  for (const c of readCatalog<CompanySeed>('companies.json')) {
    if (companies.has(c.slug)) continue;
    const id = newId();
    await db.insertInto('companies').values({
      id, organization_id: null, slug: c.slug, name: c.name, industry: c.industry, size: c.size,
      headquarters: c.headquarters ?? null, created_at: now,
    }).execute();
    companies.set(c.slug, id);
    inserted++;
  }

  const jobs = await existing('jobs');
  for (const j of readCatalog<JobSeed>('jobs.json')) {
    if (jobs.has(j.slug)) continue;
    await db.insertInto('jobs').values({
      id: newId(), organization_id: null, slug: j.slug, title: j.title,
      company_id: j.company_slug ? companies.get(j.company_slug) ?? null : null,
      level: j.level, location: j.location ?? null, employment_type: j.employment_type,
      description: j.description, skills: JSON.stringify(j.skills), created_at: now,
    }).execute();
    inserted++;
  }
  return inserted;
}
