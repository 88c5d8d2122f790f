import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { INVISIBLE } from '../../platform/text.js';
import { DIFFICULTIES, difficultyRank, questionId, slugify, titleKey, type Bucket, type Difficulty } from './content.js';
import { saveQuestion } from './store.js';

/**
 * `prep bank import DIR`: the company-wise CSV layout many teams keep (see docs/question-bank-import.md). One folder
 * per company, one file per window; rows keep their title, link and statistics only (content is never fetched),
 * matched to existing questions by title. Each file is checked whole first and written in one transaction: a file
 * with one bad row writes nothing. Writing only what differs makes a second import of the same folder a no-op.
 */
const WINDOW_FILES: Array<[RegExp, Bucket | 'older']> = [
  [/^thirty days$/, '30d'], [/^three months$/, '90d'], [/^six months$/, '180d'], [/^more than six months$/, 'older'], [/^all$/, 'all'],
];
const COLUMNS = ['difficulty', 'title', 'frequency', 'acceptance rate', 'link'];
/** A company's All file lists a few thousand rows (well under 1 MiB): 16 MiB is a wrong file, refused unread. */
export const WINDOW_FILE_MAX_BYTES = 16 * 1024 * 1024;
const ROW_TOPICS_MAX = 20;
/** A topic's or a company's name holds a letter or digit, as a title does: punctuation alone slugifies to nothing. */
const HAS_WORD = /[\p{L}\p{N}]/u;

export interface ImportedRow { line: number; difficulty: Difficulty; title: string; frequency: number; acceptance: number | null; link: string | null; topics: string[] }
export interface FileOutcome {
  file: string;
  company: string;
  bucket: Bucket | null;
  status: 'imported' | 'rejected' | 'skipped';
  rows: number;
  changed: number;
  errors: Array<{ line: number; message: string }>;
  note?: string;
}
export interface ImportSummary { companies: number; files: FileOutcome[]; questions_created: number; statistics_changed: number }

/** `1. Thirty Days.csv`, `02 - All.csv` → its window, or null for a file that is not one. */
export function windowOf(fileName: string): Bucket | 'older' | null {
  if (!/\.csv$/i.test(fileName)) return null;
  const base = fileName.replace(/\.csv$/i, '').replace(/^\s*\d+\s*[.)_-]?\s*/, '').replace(/[_-]+/g, ' ').trim().toLowerCase().replace(/\s+/g, ' ');
  return WINDOW_FILES.find(([re]) => re.test(base))?.[1] ?? null;
}

/** `=HYPERLINK("url","label")` as a spreadsheet exports it → {url, label}; any other cell as itself. */
export function unwrapHyperlink(cell: string): { url: string; label: string } | null {
  const m = /^\s*=\s*HYPERLINK\(\s*"((?:[^"]|"")*)"\s*(?:[,;]\s*"((?:[^"]|"")*)"\s*)?\)\s*$/i.exec(cell);
  if (!m) return null;
  const url = m[1].replace(/""/g, '"');
  return { url, label: m[2] === undefined ? url : m[2].replace(/""/g, '"') };
}

/** Parses and checks one window file; rows come back only when every row is good. */
export function parseWindowFile(text: string): { rows: ImportedRow[]; errors: Array<{ line: number; message: string }> } {
  // A record is named by the line it starts on: the parser counts to where it ends (a quoted cell may hold line
  // breaks), so the start is the line after the previous record's end, past the empty lines it skipped.
  let ended = { lines: 0, empty: 0 };
  const startOf = (info: { lines: number; empty_lines: number }) => ended.lines + 1 + info.empty_lines - ended.empty;
  let records: Array<{ record: string[]; line: number }>;
  try {
    // relax_quotes: a spreadsheet's unquoted =HYPERLINK("…") cell keeps its quotes instead of failing the file.
    records = parse(text, {
      bom: true, info: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true, trim: true,
      on_record: (value, info) => {
        const line = startOf(info);
        ended = { lines: info.lines, empty: info.empty_lines };
        return { record: (value as unknown as { record: string[] }).record, line } as never; // with `info`, value is {record, info}
      },
    }) as never;
  } catch (error) {
    const e = error as Error & { code?: string; lines?: number; empty_lines?: number };
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') {
      return { rows: [], errors: [{ line: startOf({ lines: 0, empty_lines: e.empty_lines ?? ended.empty }), message: 'not valid CSV: a quote opened in this row is never closed' }] };
    }
    return { rows: [], errors: [{ line: e.lines ?? 1, message: `not valid CSV: ${e.message}` }] };
  }
  if (records.length === 0) return { rows: [], errors: [{ line: 1, message: 'empty file: the header row is missing' }] };
  const header = records[0].record.map((h) => h.trim().toLowerCase());
  const topicsAt = header.length === 6 && header[5] === 'topics';
  if (header.slice(0, 5).join() !== COLUMNS.join() || (header.length !== 5 && !topicsAt)) {
    return { rows: [], errors: [{ line: records[0].line, message: 'the header must be Difficulty,Title,Frequency,Acceptance Rate,Link[,Topics]' }] };
  }
  const rows: ImportedRow[] = [];
  const errors: Array<{ line: number; message: string }> = [];
  for (const { record, line } of records.slice(1)) {
    const bad = (message: string) => errors.push({ line, message });
    if (record.length !== header.length) { bad(`${record.length} columns, expected ${header.length}`); continue; }
    const cells = record.map((c) => unwrapHyperlink(c));
    const difficulty = record[0].toLowerCase() as Difficulty;
    const title = (cells[1]?.label ?? record[1]).trim();
    const decimal = (cell: string) => (/^(\d+(\.\d*)?|\.\d+)$/.test(cell) ? Number(cell) : Number.NaN);
    const frequency = decimal(record[2]!);
    const acceptance = record[3] === '' ? null : decimal(record[3]!);
    const link = (cells[4]?.url ?? record[4]).trim() || null;
    if (!DIFFICULTIES.includes(difficulty)) { bad(`difficulty ${JSON.stringify(record[0])}: EASY, MEDIUM or HARD`); continue; }
    if (title.length === 0 || title.length > 200 || titleKey(title) === '') { bad('title: 1 to 200 characters with a letter or digit'); continue; }
    if (INVISIBLE.test(title)) { bad('title: no control or invisible characters, UTF-8 text (was the file saved in another encoding?)'); continue; }
    if (record[2] === '' || !Number.isFinite(frequency) || frequency < 0 || frequency > 100) { bad(`frequency ${JSON.stringify(record[2])}: a number from 0 to 100`); continue; }
    if (acceptance !== null && (!Number.isFinite(acceptance) || acceptance < 0 || acceptance > 1)) { bad(`acceptance rate ${JSON.stringify(record[3])}: a number from 0 to 1`); continue; }
    // \S lets control and format characters through (a NUL, a bidi override): a link holds none of them.
    if (link !== null && (!/^https?:\/\/\S+$/i.test(link) || link.length > 2000 || INVISIBLE.test(link))) { bad(`link ${JSON.stringify(link.slice(0, 80))}: an http(s) URL`); continue; }
    const topics = topicsAt ? record[5].split(',').map((t) => t.trim()).filter((t) => t.length > 0) : [];
    if (topics.length > ROW_TOPICS_MAX) { bad(`topics: at most ${ROW_TOPICS_MAX} per row (${topics.length} given)`); continue; }
    if (topics.some((t) => t.length > 60)) { bad('topics: names of at most 60 characters'); continue; }
    if (topics.some((t) => INVISIBLE.test(t))) { bad('topics: no control or invisible characters, UTF-8 text (was the file saved in another encoding?)'); continue; }
    if (!topics.every((t) => HAS_WORD.test(t))) { bad('topics: names with a letter or digit'); continue; }
    rows.push({ line, difficulty, title, frequency, acceptance, link, topics });
  }
  return errors.length > 0 ? { rows: [], errors } : { rows, errors };
}

export async function importCompanyFolders(db: Kysely<Database>, dir: string, options: { organizationId: string | null; now?: number }): Promise<ImportSummary> {
  const now = options.now ?? Date.now();
  const owner = options.organizationId ?? '';
  // Real folders and files only: a symbolic link is never followed.
  const companies = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const summary: ImportSummary = { companies: companies.length, files: [], questions_created: 0, statistics_changed: 0 };
  const taken = new Map<string, string>(); // company slug + bucket -> the file that filled it
  for (const company of companies) {
    for (const entry of readdirSync(path.join(dir, company), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = `${company}/${entry.name}`;
      const window = entry.isFile() ? windowOf(entry.name) : null;
      const outcome: FileOutcome = { file, company, bucket: null, status: 'skipped', rows: 0, changed: 0, errors: [] };
      summary.files.push(outcome);
      if (window === null) { outcome.note = 'not a window file (Thirty Days, Three Months, Six Months, All)'; continue; }
      if (window === 'older') { outcome.note = 'More Than Six Months: not a window Prep keeps (30d, 90d, 180d, all)'; continue; }
      outcome.bucket = window;
      // The folder's name is the company's name, shown by /companies: held to a title's rules.
      if (INVISIBLE.test(company) || !HAS_WORD.test(company)) {
        outcome.status = 'rejected';
        outcome.errors = [{ line: 0, message: 'company folder name: a letter or digit, no control or invisible characters, UTF-8 text (it is the company\'s name)' }];
        continue;
      }
      const slot = `${slugify(company)}\u0000${window}`;
      const earlier = taken.get(slot);
      if (earlier !== undefined) {
        outcome.status = 'rejected';
        outcome.errors = [{ line: 0, message: `${earlier} already gave this company's ${window} figures` }];
        continue;
      }
      taken.set(slot, file);
      let text: string;
      try {
        const size = statSync(path.join(dir, file)).size;
        if (size > WINDOW_FILE_MAX_BYTES) {
          outcome.status = 'rejected';
          outcome.errors = [{ line: 0, message: `${size} bytes: a window file is at most ${WINDOW_FILE_MAX_BYTES / 1024 / 1024} MiB` }];
          continue;
        }
        text = readFileSync(path.join(dir, file), 'utf8');
      } catch (error) {
        outcome.status = 'rejected';
        outcome.errors = [{ line: 0, message: `unreadable: ${(error as Error).message}` }];
        continue;
      }
      const { rows, errors } = parseWindowFile(text);
      outcome.rows = rows.length;
      if (errors.length > 0) { outcome.status = 'rejected'; outcome.errors = errors; continue; }
      const written = await writeFile(db, rows, { owner, organizationId: options.organizationId, company, bucket: window, file, now });
      outcome.status = 'imported';
      outcome.changed = written.changed;
      summary.questions_created += written.created;
      summary.statistics_changed += written.changed;
    }
  }
  return summary;
}

async function writeFile(
  db: Kysely<Database>, rows: ImportedRow[],
  at: { owner: string; organizationId: string | null; company: string; bucket: Bucket; file: string; now: number },
): Promise<{ created: number; changed: number }> {
  const companySlug = slugify(at.company);
  return db.transaction().execute(async (tx) => {
    let created = 0;
    let changed = 0;
    // The topics this import may name: the shared ones and those of its owner's earlier imports (an organisation's
    // topics are its own: another's never show to it, nor do its to another), the shared entry first.
    const topics = new Map((await tx.selectFrom('question_bank_taxonomy').select(['slug', 'name', 'owner']).where('kind', '=', 'topic')
      .where('owner', 'in', [...new Set(['', at.owner])]).execute())
      .sort((a, b) => (a.owner === '' ? 1 : 0) - (b.owner === '' ? 1 : 0))
      .flatMap((t) => [[t.name.toLowerCase(), t.slug], [t.slug, t.slug]] as Array<[string, string]>));
    // The company's figures for this window as stored: compared row by row, and what the file no longer lists goes.
    const slot = (q: any) => q.where('owner', '=', at.owner).where('company_slug', '=', companySlug).where('bucket', '=', at.bucket);
    const stored = new Map((await slot(tx.selectFrom('question_bank_imported_stats')
      .select(['question_id', 'frequency', 'acceptance', 'company_name', 'source_file'])).execute() as Array<{ question_id: string; frequency: number; acceptance: number | null; company_name: string; source_file: string }>)
      .map((r) => [r.question_id, r]));
    // A title listed twice in one file counts once: the first row wins.
    const seen = new Set<string>();
    const kept = new Set<string>();
    for (const row of rows) {
      const key = titleKey(row.title);
      if (seen.has(key)) continue;
      seen.add(key);
      let question = await tx.selectFrom('question_bank_questions').select(['id', 'source', 'organization_id']).where('title_key', '=', key)
        .where((eb) => (at.organizationId === null ? eb('organization_id', 'is', null) : eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', at.organizationId)])))
        .orderBy((eb) => eb.case().when('source', '=', 'imported').then(1).else(0).end()).orderBy('id').executeTakeFirst();
      const slugs: string[] = [];
      for (const name of row.topics) {
        let slug = topics.get(name.toLowerCase());
        if (slug === undefined) {
          slug = slugify(name);
          // A name that slugifies to a topic it may name is that topic ("Hash  Table" is hash-table).
          if (!topics.has(slug)) {
            await tx.insertInto('question_bank_taxonomy').values({ owner: at.owner, kind: 'topic', slug, name, description: null })
              .onConflict((oc) => oc.doNothing()).execute();
            topics.set(slug, slug);
          }
          topics.set(name.toLowerCase(), slug);
        }
        if (!slugs.includes(slug)) slugs.push(slug);
      }
      if (question && question.source === 'imported' && question.organization_id === at.organizationId && slugs.length > 0) {
        // A title seen first without topics (an All file without the column) takes them from a later file.
        await tx.insertInto('question_bank_question_topics').values(slugs.map((topic) => ({ question_id: question!.id, topic })))
          .onConflict((oc) => oc.columns(['question_id', 'topic']).doNothing()).execute();
      }
      if (!question) {
        const id = questionId(at.organizationId, `imported:${key}`);
        await saveQuestion(tx, {
          id, organization_id: at.organizationId, slug: slugify(row.title), title: row.title, title_key: key, prompt: null, category: 'coding',
          difficulty: row.difficulty, difficulty_rank: difficultyRank(row.difficulty), guidance: null, problem_id: null, source: 'imported',
          link: row.link, created_at: at.now, updated_at: at.now,
        }, slugs);
        question = { id, source: 'imported', organization_id: at.organizationId };
        created++;
      }
      kept.add(question.id);
      const before = stored.get(question.id);
      const values = { company_name: at.company, frequency: row.frequency, acceptance: row.acceptance, source_file: at.file };
      if (before && before.frequency === values.frequency && before.acceptance === values.acceptance && before.company_name === values.company_name && before.source_file === values.source_file) continue;
      if (before) {
        await slot(tx.updateTable('question_bank_imported_stats').set({ ...values, imported_at: at.now })).where('question_id', '=', question.id).execute();
      } else {
        await tx.insertInto('question_bank_imported_stats')
          .values({ owner: at.owner, question_id: question.id, company_slug: companySlug, bucket: at.bucket, ...values, imported_at: at.now }).execute();
      }
      changed++;
    }
    // The file is the company's whole list for the window: figures of titles it no longer lists go.
    const gone = [...stored.keys()].filter((id) => !kept.has(id));
    for (let i = 0; i < gone.length; i += 500) {
      await slot(tx.deleteFrom('question_bank_imported_stats')).where('question_id', 'in', gone.slice(i, i + 500)).execute();
    }
    return { created, changed: changed + gone.length };
  });
}
