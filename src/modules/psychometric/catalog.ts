import type { Kysely } from 'kysely';
import type { Database, PsychometricTestsTable } from '../../db/schema.js';
import { newId } from '../../platform/ids.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';
import type { Db } from '../../db/database.js';
import { readFileSync } from 'node:fs';
import { InstrumentError, readInstruments, validateInstrument, type Instrument } from './instrument.js';

/** What a stored test's `definition` column holds. */
export type Definition = Pick<Instrument, 'languages' | 'choices' | 'scales' | 'items' | 'norms'>;

export interface PsychometricTest extends Omit<PsychometricTestsTable, 'definition'> {
  definition: Definition;
  /** null: untimed (every psychometric test is). */
  duration_minutes: null;
  instrument: Instrument;
}

/**
 * The psychometric catalogue: the shared instruments (organisation null) and an organisation's own. A stored
 * definition never changes (a revised instrument is a new slug), so parsed definitions are kept per process.
 */
export function createPsychometricCatalog(database: Db) {
  const db = database.kysely;
  const parsed = new Map<string, PsychometricTest>();
  const visible = (organizationId: string) => db.selectFrom('psychometric_tests').selectAll()
    .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]));
  const pageOf = keysetPager(database, (organizationId: string) => visible(organizationId));

  function hydrate(row: PsychometricTestsTable): PsychometricTest {
    const cached = parsed.get(row.id);
    if (cached) return cached;
    const definition = JSON.parse(row.definition) as Definition;
    const test: PsychometricTest = {
      ...row, definition, duration_minutes: null,
      instrument: { slug: row.slug, name: row.name, description: row.description, estimated_minutes: row.estimated_minutes, source: row.source, ...definition },
    };
    parsed.set(row.id, test);
    return test;
  }

  return {
    async list(organizationId: string, page: PageRequest) {
      const result = await pageOf(page, organizationId);
      return { ...result, data: result.data.map(hydrate) };
    },
    async get(tx: Kysely<Database>, organizationId: string, id: string): Promise<PsychometricTest | undefined> {
      const cached = parsed.get(id);
      if (cached && (cached.organization_id === null || cached.organization_id === organizationId)) return cached;
      const row = await tx.selectFrom('psychometric_tests').selectAll().where('id', '=', id)
        .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)])).executeTakeFirst();
      return row ? hydrate(row) : undefined;
    },
  };
}

export type PsychometricCatalog = ReturnType<typeof createPsychometricCatalog>;

async function insertInstrument(db: Kysely<Database>, organizationId: string | null, instrument: Instrument, now: number): Promise<string> {
  const { languages, choices, scales, items, norms } = instrument;
  const id = newId();
  await db.insertInto('psychometric_tests').values({
    id, organization_id: organizationId, slug: instrument.slug, name: instrument.name, description: instrument.description,
    estimated_minutes: instrument.estimated_minutes, source: instrument.source,
    definition: JSON.stringify({ languages, choices, scales, items, norms } satisfies Definition), created_at: now,
  }).execute();
  return id;
}

/** An organisation's own instrument, from a file in the catalogue format (as catalog/psychometric/mini-ipip.json). */
export async function addOrganizationInstrument(db: Kysely<Database>, organizationId: string, file: string, now = Date.now()): Promise<string> {
  let instrument: Instrument;
  try {
    instrument = JSON.parse(readFileSync(file, 'utf8')) as Instrument;
  } catch (error) {
    throw new InstrumentError(`${file}: ${(error as Error).message}`);
  }
  validateInstrument(instrument, file);
  const taken = await db.selectFrom('psychometric_tests').select('id').where('organization_id', '=', organizationId).where('slug', '=', instrument.slug).executeTakeFirst();
  if (taken) throw new InstrumentError(`${file}: the organisation already has a test with slug ${instrument.slug} (a revised instrument takes a new slug)`);
  return insertInstrument(db, organizationId, instrument, now);
}

/** Adds the shared instruments of catalog/psychometric/ that the database does not have yet (by slug). */
export async function loadPsychometricCatalogue(db: Kysely<Database>, now = Date.now()): Promise<number> {
  let added = 0;
  for (const instrument of readInstruments()) {
    const existing = await db.selectFrom('psychometric_tests').select('id').where('organization_id', 'is', null).where('slug', '=', instrument.slug).executeTakeFirst();
    if (existing) continue;
    await insertInstrument(db, null, instrument, now);
    added++;
  }
  return added;
}
