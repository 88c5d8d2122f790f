import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, InterviewQuestionsTable } from '../../db/schema.js';
import type { RoundMethod } from './interviewer/method.js';
import type { PlannedProblem, PlannedQuestion } from './interviewer/types.js';
import type { InterviewRepo } from './repo.js';

/** A question of the customer's own, as POST /v1/interviews and …/questions take it. */
export interface CustomerQuestion {
  prompt: string;
  title?: string;
  key_points?: string[];
  follow_ups?: string[];
  /** "view": it asks for a view or a preference, not a past story (default "story"). */
  asks?: 'story' | 'view';
}

export const CUSTOMER_QUESTIONS_MAX = 10;
/** The opening and the closing take this much of the interview, minutes. */
const OPENING_AND_CLOSING_MINUTES = 4;

/** The bank's three difficulties for the interview's 1–5: 1–2 easy, 3 medium, 4–5 hard. */
export const bankRank = (difficulty: number) => (difficulty <= 2 ? 1 : difficulty === 3 ? 2 : 3);

/** Minutes for each of `count` questions in an interview of `durationMinutes` (at least one each). */
export function minutesPerQuestion(durationMinutes: number, count: number): number {
  const usable = durationMinutes > OPENING_AND_CLOSING_MINUTES + 1 ? durationMinutes - OPENING_AND_CLOSING_MINUTES : Math.max(1, durationMinutes - 1);
  return Math.max(1, Math.floor(usable / Math.max(1, count)));
}

/** How many questions of the bank an interview holds besides the customer's own (at least one question in all). */
export function bankQuestionCount(method: RoundMethod, durationMinutes: number, customerCount: number): number {
  const usable = Math.max(1, durationMinutes - OPENING_AND_CLOSING_MINUTES);
  const fit = Math.max(1, Math.floor(usable / method.question_minutes));
  return Math.max(customerCount === 0 ? 1 : 0, fit - customerCount);
}

/**
 * A bank question that sets out a scenario and asks what the candidate would do (its prompt opens "*Situational
 * question…*", as AUTHORING.md asks): there is no past story to probe, so the interview follows it up as a view.
 */
export const isSituational = (prompt: string) => /^\s*\*Situational question\b/i.test(prompt);

const wordsOf = (text: string) => new Set(text.toLowerCase().split(/[^\p{L}\p{N}+#]+/u).filter((w) => w.length > 2));
const tieBreak = (seed: string, slug: string) => createHash('sha256').update(`${seed}|${slug}`).digest('hex');

export interface PlanRequest {
  organizationId: string;
  method: RoundMethod;
  roundSlug: string;
  difficulty: number;
  role: string;
  companySlug: string | null;
  /** The parsed resume's skills: they tilt a technical round's topics (never a behavioural one's: its questions are the same for everyone). */
  resumeSkills: string[];
  durationMinutes: number;
  customer: CustomerQuestion[];
}

/**
 * The plan: questions drawn from the bank for the round (its categories, or the round's own questions), nearest the
 * difficulty, preferring the company's questions and topics matching the role (and, in technical rounds, the
 * resume), then the customer's own. Deterministic: the same request draws the same questions, as a structured
 * interview asks everyone in a round the same ones.
 */
export async function drawPlan(tx: Kysely<Database>, repo: InterviewRepo, request: PlanRequest): Promise<PlannedQuestion[]> {
  const { method } = request;
  const count = bankQuestionCount(method, request.durationMinutes, request.customer.length);
  const target = bankRank(request.difficulty);
  const interests = wordsOf([request.role, ...(method.style === 'behavioral' ? [] : request.resumeSkills)].join(' '));
  const company = request.companySlug ? await repo.companyQuestionIds(tx, request.organizationId, request.companySlug) : new Set<string>();
  const seed = `${request.roundSlug}|${request.difficulty}|${request.role.toLowerCase()}`;

  type Candidate = {
    questionId: string | null; slug: string; title: string; prompt: string; keyPoints: string[]; followUps: string[]; problemId: string | null; rank: number;
    topics: string; category: number; own: boolean; view: boolean;
  };
  const pool: Candidate[] = [];
  const rows = await repo.bankQuestions(tx, request.organizationId, method.categories);
  for (const r of rows) {
    const guidance = JSON.parse(r.guidance!) as { key_points: string[]; follow_ups: string[] };
    pool.push({
      questionId: r.id, slug: r.slug, title: r.title, prompt: r.prompt!, keyPoints: guidance.key_points, followUps: guidance.follow_ups,
      problemId: r.problem_id, rank: r.difficulty_rank, topics: r.topics ?? '', category: method.categories.indexOf(r.category), own: false,
      view: isSituational(r.prompt!),
    });
  }
  for (const q of method.questions ?? []) {
    pool.push({
      questionId: null, slug: q.slug, title: q.title, prompt: q.prompt, keyPoints: q.guidance.key_points, followUps: q.guidance.follow_ups,
      problemId: null, rank: bankRank({ easy: 1, medium: 3, hard: 5 }[q.difficulty]), topics: q.topics.join(','), category: 0, own: true,
      view: (method.view_questions ?? []).includes(q.slug),
    });
  }
  const usable = method.style === 'coding' && pool.some((c) => c.problemId) ? pool.filter((c) => c.problemId) : pool;
  const score = (c: Candidate) => {
    const topicWords = wordsOf(`${c.topics.replace(/[-,]/g, ' ')} ${c.title}`);
    const overlap = [...interests].filter((w) => topicWords.has(w)).length;
    // A round's own questions come first, whatever the difficulty: they are what the round is for, and a structured
    // interview asks the same ones each time; its opening question (a hiring-manager screen's "why this role") before
    // them all, at any difficulty.
    return (c.own ? 100 : 0) + (c.own && c.slug === method.opening_question ? 100 : 0) - 2 * Math.abs(c.rank - target) + (c.questionId && company.has(c.questionId) ? 3 : 0) + Math.min(2, overlap) - 0.5 * Math.max(0, c.category);
  };
  const ranked = usable.map((c) => ({ c, s: score(c), t: tieBreak(seed, c.slug) }))
    .sort((a, b) => b.s - a.s || (a.t < b.t ? -1 : a.t > b.t ? 1 : 0)).slice(0, count).map((x) => x.c);

  const total = ranked.length + request.customer.length;
  const minutes = minutesPerQuestion(request.durationMinutes, total);
  const plan: PlannedQuestion[] = [];
  for (const c of ranked) {
    plan.push({
      position: plan.length, source: 'bank', questionId: c.questionId, title: c.title, prompt: c.prompt, keyPoints: c.keyPoints,
      followUps: c.followUps, minutes, problem: c.problemId ? await problemOf(tx, repo, c.problemId) : null, ...(c.view ? { view: true } : {}),
    });
  }
  for (const q of request.customer) plan.push(customerQuestion(q, plan.length, minutes));
  return plan;
}

export function customerQuestion(q: CustomerQuestion, position: number, minutes: number): PlannedQuestion {
  const firstLine = q.prompt.trim().split('\n')[0];
  return {
    position, source: 'customer', questionId: null, title: q.title ?? (firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine),
    prompt: q.prompt.trim(), keyPoints: q.key_points ?? [], followUps: q.follow_ups ?? [], minutes, problem: null,
    ...(q.asks === 'view' ? { view: true } : {}),
  };
}

async function problemOf(tx: Kysely<Database>, repo: InterviewRepo, id: string): Promise<PlannedProblem | null> {
  const p = await repo.problem(tx, id);
  if (!p) return null;
  const statement = [p.statement, `**Input:** ${p.input_format}`, `**Output:** ${p.output_format}`, `**Constraints:** ${p.constraints}`].join('\n\n');
  return { id: p.id, slug: p.slug, title: p.title, statement };
}

/**
 * A question's guidance is stored as JSON `{key_points, follow_ups}`, with `view: true` when the question asks for a
 * view (a JSON member rather than a column: no migration, and rows stored before it read as stories).
 */
export function toRows(interviewId: string, plan: PlannedQuestion[], now: number): InterviewQuestionsTable[] {
  return plan.map((q) => ({
    interview_id: interviewId, position: q.position, source: q.source, question_id: q.questionId, title: q.title, prompt: q.prompt,
    guidance: JSON.stringify({ key_points: q.keyPoints, follow_ups: q.followUps, ...(q.view ? { view: true } : {}) }), minutes: q.minutes,
    problem: q.problem ? JSON.stringify(q.problem) : null, created_at: now,
  }));
}

export function fromRows(rows: InterviewQuestionsTable[]): PlannedQuestion[] {
  return rows.map((r) => {
    const g = JSON.parse(r.guidance) as { key_points: string[]; follow_ups: string[]; view?: boolean };
    return {
      position: r.position, source: r.source, questionId: r.question_id, title: r.title, prompt: r.prompt, keyPoints: g.key_points,
      followUps: g.follow_ups, minutes: r.minutes, problem: r.problem ? JSON.parse(r.problem) as PlannedProblem : null,
      ...(g.view === true ? { view: true } : {}),
    };
  });
}
