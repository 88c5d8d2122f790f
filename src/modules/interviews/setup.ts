import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { methodFor } from './interviewer/method.js';
import type { InterviewSetup, ResumeFacts } from './interviewer/types.js';
import { fromRows } from './plan.js';
import { tenantOfRow, type InterviewRepo, type InterviewRow } from './repo.js';

/** What the interviewer (and the report) know of an interview: the plan, the round's method, the candidate, the resume. */
export async function loadSetup(tx: Kysely<Database>, repo: InterviewRepo, row: InterviewRow): Promise<InterviewSetup> {
  const [questions, candidate, resume] = await Promise.all([
    repo.questions(tx, row.id),
    row.candidate_id ? repo.candidate(tx, tenantOfRow(row), row.candidate_id) : undefined,
    row.resume_id ? repo.resume(tx, row.resume_id) : undefined,
  ]);
  return {
    style: methodFor(row.round_slug).style, roundName: row.round_name, role: row.role, difficulty: row.difficulty,
    candidateName: candidate?.name ?? null, resume: resume ? resumeFacts(resume.parsed) : null, plan: fromRows(questions),
    durationMs: row.duration_seconds * 1000,
  };
}

/** The parsed resume's facts an interviewer may mention: recent titles and companies, skills. */
function resumeFacts(parsedJson: string): ResumeFacts {
  const parsed = JSON.parse(parsedJson) as {
    name?: string | null; experience?: Array<{ title: string | null; company: string | null }>; skills?: Array<{ name: string; canonical: string | null }>;
  };
  // Titles and companies stay aligned by position (the same job), '' where the resume leaves one out.
  const jobs = (parsed.experience ?? []).filter((e) => e.title || e.company).slice(0, 5);
  return {
    name: parsed.name ?? null,
    titles: jobs.map((e) => e.title ?? ''),
    companies: jobs.map((e) => e.company ?? ''),
    skills: (parsed.skills ?? []).map((s) => s.canonical ?? s.name).slice(0, 30),
  };
}
