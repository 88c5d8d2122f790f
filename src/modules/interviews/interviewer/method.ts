import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readTaxonomy, validateQuestions, type QuestionFile, type Taxonomy } from '../../question-bank/content.js';
import type { RoundStyle } from './types.js';

/**
 * A round type's method: how the built-in interviewer runs it and how the report rates it. Authored in
 * `catalog/interviews/rounds.json`, a JSON array of:
 *
 *   {
 *     "slug":             a round type slug of catalog/round-types.json, or "default" (an organisation's own round types),
 *     "style":            "behavioral" | "technical" | "coding" | "system_design",
 *     "categories":       question-bank category slugs to draw from, preferred first (may be empty when "questions" is given),
 *     "question_minutes": whole minutes a question is budgeted (1–60),
 *     "competencies":     3 to 5 of {
 *       "slug":        snake_case, unique in the round,
 *       "name", "description",
 *       "measure":     one of MEASURES (below): the deterministic measurement the report rates it by,
 *       "anchors":     {"1": …, "5": …}: a behaviourally anchored rating scale, each anchor an observable behaviour
 *     },
 *     "questions"?:      the round's own questions, in the bank's format and under its rules (AUTHORING.md),
 *     "opening_question"?: the slug of one of them that every interview of the round asks first, whatever its
 *                        difficulty (a hiring-manager screen always asks why this role),
 *     "view_questions"?: slugs of its own questions that ask for a view or a preference ("where do you want your
 *                        career to go"), not a past story: the interviewer follows them up with their key points and
 *                        follow-ups instead of STAR probes, and the STAR measures leave their answers out
 *   }
 *
 * Measures (report.ts implements each; every one scores the asked questions 0–1 and maps the mean to a rating):
 * The STAR measures rate the answers to questions that ask for a story: a view question's answer is left out of them
 * (and a measure with no story question asked is not rated); the other measures rate every question.
 * - star_situation_task       behavioural answers: situation and task stated (STAR analysis).
 * - star_action_ownership     behavioural answers: action stated, and told in the first person ("I", not "we").
 * - star_result               behavioural answers: result stated, and quantified (a number, percentage or date).
 * - key_point_coverage        share of each question's key points (the bank's guidance) the answers cover.
 * - depth_follow_ups          answers to the interviewer's follow-ups: substantive, reasoned ("because…"), new ground.
 * - communication             answer length in a useful range, little filler, signposting ("first… then…").
 * - design_requirements_scale design answers: requirements clarified, scale estimated (with numbers).
 * - design_data               design answers: data model discussed, with concrete storage concerns (keys, indexes…).
 * - design_trade_offs_failure design answers: trade-offs weighed, failure modes covered.
 * - code_correctness          each problem's final code: the share of the problem's tests it passes (by its runs when untested).
 * - code_complexity_testing   coding talk: complexity stated, code tested, edge cases named.
 * - problem_solving_approach  an approach stated (before coding), a clarifying question or assumption, alternatives.
 */
export const MEASURES = [
  'star_situation_task', 'star_action_ownership', 'star_result', 'key_point_coverage', 'depth_follow_ups', 'communication',
  'design_requirements_scale', 'design_data', 'design_trade_offs_failure', 'code_correctness', 'code_complexity_testing',
  'problem_solving_approach',
] as const;
export type Measure = (typeof MEASURES)[number];

export const STYLES: readonly RoundStyle[] = ['behavioral', 'technical', 'coding', 'system_design'];
export const RATINGS = ['1', '2', '3', '4', '5'] as const;
export type RatingKey = (typeof RATINGS)[number];

export interface Competency {
  slug: string;
  name: string;
  description: string;
  measure: Measure;
  anchors: Record<RatingKey, string>;
}

export interface RoundMethod {
  slug: string;
  style: RoundStyle;
  categories: string[];
  question_minutes: number;
  competencies: Competency[];
  questions?: QuestionFile[];
  opening_question?: string;
  /** Slugs of own questions that ask for a view or a preference rather than a past story. */
  view_questions?: string[];
}

export const DEFAULT_METHOD = 'default';

export class RoundMethodError extends Error {}

const roundsFile = () => fileURLToPath(new URL('../../../../catalog/interviews/rounds.json', import.meta.url));

const isText = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.trim().length >= min && v.length <= max;

/**
 * Checks every rule above; the first broken one is thrown, naming the round. Own questions are checked with the
 * bank's own validator (a round's questions count as a category of their own) and must be unique across rounds.
 */
export function validateRoundMethods(parsed: unknown, taxonomy: Taxonomy): RoundMethod[] {
  if (!Array.isArray(parsed)) throw new RoundMethodError('rounds.json: a JSON array of round methods');
  const categories = new Set(taxonomy.categories.map((c) => c.slug));
  const slugs = new Set<string>();
  const ownQuestions: Array<{ category: string; question: QuestionFile }> = [];
  parsed.forEach((m: any, i) => {
    const at = `rounds.json[${i}]${m && typeof m.slug === 'string' ? ` (${m.slug})` : ''}`;
    const fail = (message: string): never => { throw new RoundMethodError(`${at}: ${message}`); };
    if (!m || typeof m !== 'object' || Array.isArray(m)) fail('a method is a JSON object');
    const extra = Object.keys(m).filter((k) => !['slug', 'style', 'categories', 'question_minutes', 'competencies', 'questions', 'opening_question', 'view_questions'].includes(k));
    if (extra.length > 0) fail(`unknown field ${extra[0]}`);
    if (typeof m.slug !== 'string' || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(m.slug)) fail('slug: kebab-case');
    if (slugs.has(m.slug)) fail('slug twice');
    slugs.add(m.slug);
    if (!STYLES.includes(m.style)) fail(`style: one of ${STYLES.join(', ')}`);
    if (!Array.isArray(m.categories) || new Set(m.categories).size !== m.categories.length) fail('categories: distinct category slugs');
    const unknown = m.categories.find((c: unknown) => typeof c !== 'string' || !categories.has(c));
    if (unknown !== undefined) fail(`unknown category ${String(unknown)}`);
    if (!Number.isInteger(m.question_minutes) || m.question_minutes < 1 || m.question_minutes > 60) fail('question_minutes: an integer 1 to 60');
    if (!Array.isArray(m.competencies) || m.competencies.length < 3 || m.competencies.length > 5) fail('competencies: 3 to 5');
    const competencySlugs = new Set<string>();
    m.competencies.forEach((c: any, j: number) => {
      const where = (message: string) => fail(`competencies[${j}]: ${message}`);
      if (!c || typeof c !== 'object') where('an object');
      const extraKeys = Object.keys(c).filter((k) => !['slug', 'name', 'description', 'measure', 'anchors'].includes(k));
      if (extraKeys.length > 0) where(`unknown field ${extraKeys[0]}`);
      if (typeof c.slug !== 'string' || !/^[a-z]+(_[a-z]+)*$/.test(c.slug)) where('slug: snake_case');
      if (competencySlugs.has(c.slug)) where(`slug ${c.slug} twice`);
      competencySlugs.add(c.slug);
      if (!isText(c.name, 1, 80)) where('name: 1 to 80 characters');
      if (!isText(c.description, 10, 400)) where('description: 10 to 400 characters');
      if (!MEASURES.includes(c.measure)) where(`measure: one of ${MEASURES.join(', ')}`);
      if (!c.anchors || typeof c.anchors !== 'object' || Object.keys(c.anchors).sort().join() !== RATINGS.join()) where('anchors: exactly "1" to "5"');
      for (const r of RATINGS) if (!isText(c.anchors[r], 10, 400)) where(`anchors.${r}: 10 to 400 characters`);
    });
    if (m.questions !== undefined) {
      if (!Array.isArray(m.questions) || m.questions.length === 0) fail('questions: a non-empty array when present');
      for (const question of m.questions) ownQuestions.push({ category: `round:${m.slug}`, question });
    }
    if (m.categories.length === 0 && !m.questions) fail('no categories and no questions: nothing to ask');
    if (m.opening_question !== undefined && !(m.questions ?? []).some((q: any) => q?.slug === m.opening_question)) {
      fail('opening_question: the slug of one of the round\'s own questions');
    }
    if (m.view_questions !== undefined) {
      const own = new Set((m.questions ?? []).map((q: any) => q?.slug));
      if (!Array.isArray(m.view_questions) || m.view_questions.length === 0 || new Set(m.view_questions).size !== m.view_questions.length
        || m.view_questions.some((s: unknown) => typeof s !== 'string' || !own.has(s))) {
        fail('view_questions: distinct slugs of the round\'s own questions, at least one');
      }
    }
  });
  if (!slugs.has(DEFAULT_METHOD)) throw new RoundMethodError(`rounds.json: no "${DEFAULT_METHOD}" method`);
  // A round's own questions are a category of their own for the bank's validator (which also refuses `problem`).
  const own: Taxonomy = { ...taxonomy, categories: [...taxonomy.categories, ...[...slugs].map((s) => ({ slug: `round:${s}`, name: s, description: s }))] };
  validateQuestions(ownQuestions, own, new Set(), 'rounds.json questions');
  return parsed as RoundMethod[];
}

/** Every method of catalog/interviews/rounds.json, validated. */
export function readRoundMethods(taxonomy: Taxonomy = readTaxonomy()): RoundMethod[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(roundsFile(), 'utf8'));
  } catch (error) {
    throw new RoundMethodError(`rounds.json: not readable JSON (${(error as Error).message})`);
  }
  return validateRoundMethods(parsed, taxonomy);
}

let cache: Map<string, RoundMethod> | null = null;

/** The method of a round type; an organisation's own round types (and any unknown slug) get the default method. */
export function methodFor(slug: string): RoundMethod {
  cache ??= new Map(readRoundMethods().map((m) => [m.slug, m]));
  return cache.get(slug) ?? cache.get(DEFAULT_METHOD)!;
}
