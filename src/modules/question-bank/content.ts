import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { v5 as uuidv5 } from 'uuid';
import { fileURLToPath } from 'node:url';
import { INVISIBLE } from '../../platform/text.js';

/** A question as authored in `catalog/question-bank/questions/<category>.json` (see AUTHORING.md there). */
export interface QuestionFile {
  slug: string;
  title: string;
  difficulty: Difficulty;
  topics: string[];
  prompt: string;
  guidance: Guidance;
  problem?: string;
}

export interface Guidance {
  key_points: string[];
  follow_ups: string[];
}

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];
/** The time windows statistics are kept for. */
export const BUCKETS = ['30d', '90d', '180d', 'all'] as const;
export type Bucket = (typeof BUCKETS)[number];
export const difficultyRank = (d: Difficulty) => DIFFICULTIES.indexOf(d) + 1;

export interface Taxonomy {
  categories: Array<{ slug: string; name: string; description: string }>;
  topics: Array<{ slug: string; name: string }>;
}

export class QuestionFileError extends Error {}

const NAMESPACE = '5b0c7c38-9f52-4a8e-8f0e-2d5a4d1f6b11';
/** A question's id derives from its owner and slug, so reloading the bank keeps every id. */
export const questionId = (owner: string | null, slug: string) => uuidv5(`${owner ?? 'prep'}:${slug}`, NAMESPACE);
/** Titles match across sources ignoring case, punctuation and spacing ("Two Sum" = "two-sum"; "C++" ≠ "C#" ≠ "C"). */
export const titleKey = (title: string) => title.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}+#]+/gu, ' ').trim();
export const slugify = (text: string) => text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim().replace(/ /g, '-').slice(0, 80) || 'untitled';

const bankDir = () => fileURLToPath(new URL('../../../catalog/question-bank/', import.meta.url));

export function readTaxonomy(): Taxonomy {
  return {
    categories: JSON.parse(readFileSync(path.join(bankDir(), 'categories.json'), 'utf8')),
    topics: JSON.parse(readFileSync(path.join(bankDir(), 'topics.json'), 'utf8')),
  };
}

/** The shared bank: every category file, validated, as [category, question] pairs. */
export function readBank(taxonomy: Taxonomy, problemSlugs: ReadonlySet<string>): Array<{ category: string; question: QuestionFile }> {
  const dir = path.join(bankDir(), 'questions');
  const out: Array<{ category: string; question: QuestionFile }> = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const category = file.slice(0, -'.json'.length);
    const questions = parseQuestions(readFileSync(path.join(dir, file), 'utf8'), `questions/${file}`);
    validateQuestions(questions.map((question) => ({ category, question })), taxonomy, problemSlugs, `questions/${file}`);
    for (const question of questions) out.push({ category, question });
  }
  validateUnique(out.map((e) => e.question), 'the bank');
  return out;
}

export function parseQuestions(text: string, where: string): QuestionFile[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new QuestionFileError(`${where}: not JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list as QuestionFile[];
}

const isText = (v: unknown, min: number, max: number) => typeof v === 'string' && v.trim().length >= min && v.length <= max;

/**
 * What prose (a prompt, a key point, a follow-up) never holds: control characters other than tab and line breaks (a
 * NUL cannot even be stored by PostgreSQL), bidi overrides and isolates (they reorder what the reader sees), U+FFFD.
 * Other format characters stay: joiners are part of emoji and of Persian and Indic text.
 */
const HIDDEN_IN_PROSE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\uFFFD]/u;
const isTitle = (v: unknown, max: number) => isText(v, 1, max) && !INVISIBLE.test(v as string);
const isProse = (v: unknown, min: number, max: number) => isText(v, min, max) && !HIDDEN_IN_PROSE.test(v as string);

/** Every rule of AUTHORING.md; the first broken one is thrown, naming the file and the question. */
export function validateQuestions(
  entries: Array<{ category: string; question: QuestionFile }>, taxonomy: Taxonomy, problemSlugs: ReadonlySet<string>, where: string,
): void {
  const categories = new Set(taxonomy.categories.map((c) => c.slug));
  const topics = new Set(taxonomy.topics.map((t) => t.slug));
  entries.forEach(({ category, question: q }, i) => {
    const at = `${where}[${i}]${q && typeof q === 'object' && typeof q.slug === 'string' ? ` (${q.slug})` : ''}`;
    const fail = (message: string): never => { throw new QuestionFileError(`${at}: ${message}`); };
    if (!q || typeof q !== 'object' || Array.isArray(q)) fail('a question is a JSON object');
    const extra = Object.keys(q).filter((k) => !['slug', 'title', 'difficulty', 'topics', 'prompt', 'guidance', 'problem'].includes(k));
    if (extra.length > 0) fail(`unknown field ${extra[0]}`);
    if (!categories.has(category)) fail(`unknown category ${category}; one of ${[...categories].join(', ')}`);
    if (typeof q.slug !== 'string' || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(q.slug) || q.slug.length > 80) fail('slug: kebab-case, at most 80 characters');
    if (!isTitle(q.title, 120)) fail('title: 1 to 120 characters, no line breaks, control or invisible characters');
    if (!DIFFICULTIES.includes(q.difficulty)) fail('difficulty: easy, medium or hard');
    if (!Array.isArray(q.topics) || q.topics.length < 1 || q.topics.length > 5 || new Set(q.topics).size !== q.topics.length) fail('topics: 1 to 5 distinct topic slugs');
    const unknownTopic = q.topics.find((t) => !topics.has(t));
    if (unknownTopic !== undefined) fail(`unknown topic ${String(unknownTopic)} (topics.json lists them)`);
    if (!isProse(q.prompt, 150, 2000)) fail('prompt: 150 to 2,000 characters, no control characters or bidi overrides');
    const g = q.guidance;
    if (!g || typeof g !== 'object' || Object.keys(g).sort().join() !== 'follow_ups,key_points') fail('guidance: {key_points, follow_ups}');
    if (!Array.isArray(g.key_points) || g.key_points.length < 3 || g.key_points.length > 8 || !g.key_points.every((p) => isProse(p, 10, 400))) fail('guidance.key_points: 3 to 8 points of 10 to 400 characters, no control characters or bidi overrides');
    if (!Array.isArray(g.follow_ups) || g.follow_ups.length < 2 || g.follow_ups.length > 5 || !g.follow_ups.every((p) => isProse(p, 10, 400))) fail('guidance.follow_ups: 2 to 5 questions of 10 to 400 characters, no control characters or bidi overrides');
    if (q.problem !== undefined && (category !== 'coding' || !problemSlugs.has(q.problem))) fail(`problem: a coding question may name a coding problem (no problem ${String(q.problem)})`);
  });
  validateUnique(entries.map((e) => e.question), where);
}

function validateUnique(questions: QuestionFile[], where: string): void {
  const slugs = new Set<string>();
  const titles = new Set<string>();
  for (const q of questions) {
    if (slugs.has(q.slug)) throw new QuestionFileError(`${where}: slug ${q.slug} twice`);
    if (titles.has(titleKey(q.title))) throw new QuestionFileError(`${where}: title "${q.title}" twice`);
    slugs.add(q.slug);
    titles.add(titleKey(q.title));
  }
}
