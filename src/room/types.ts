/** The API shapes the room reads (a subset of each response). */

export interface Branding {
  company_name: string;
  logo_url: string | null;
  primary_color: string;
  accent_color: string;
  background_color: string;
  text_color: string;
}

export interface SessionGrant {
  session_token: string;
  expires_at: number;
  refresh_after: number;
  subject_kind: string;
  subject_id: string;
}

export interface SessionContext {
  subject_kind: string;
  subject_id: string;
  status: string;
  livemode: boolean;
  candidate: { id: string; name: string } | null;
  round: { id: string; name: string; description: string | null };
  duration_seconds: number | null;
  branding: Branding;
}

export interface Example { input: string; output: string; explanation?: string }

export interface Problem {
  id: string; title: string; difficulty: string; statement: string; input_format: string; output_format: string;
  constraints: string; examples: Example[]; time_limit_ms: number; memory_limit_mb: number;
}

export interface SessionProblem {
  position: number; slot_title: string; problem: Problem; attempts_used: number; attempts_remaining: number; scored: boolean;
}

export interface Language { id: string; name: string; version: string; file_name: string; starter_template: string }

export type CodingStatus = 'assigned' | 'started' | 'in_progress' | 'completed' | 'timed_out' | 'cancelled';

export interface CodingDetail {
  id: string; status: CodingStatus; duration_seconds: number | null; deadline_at: number | null;
  problems: SessionProblem[]; languages: Language[];
}

export interface Timer { timed: boolean; remaining_seconds: number; status: CodingStatus }

export interface RunCase {
  name: string; verdict: string; input?: string; expected_output?: string; stdout: string; stdout_truncated: boolean;
  stderr: string; stderr_truncated: boolean; exit_code: number | null; time_ms: number; memory_kb: number;
}

export interface RunResult { verdict: string; compile: { ok: boolean; output: string } | null; results: RunCase[] }

export interface Submission {
  id: string; problem_id: string; language: string; status: 'queued' | 'running' | 'judged' | 'error'; verdict: string;
  cases_passed?: number; cases_total?: number; compile?: { ok: boolean; output: string } | null; error?: string | null;
  remaining?: number;
}

export interface PsychometricDetail {
  id: string; status: CodingStatus; language: string; answered_count: number; item_count: number;
  items: Array<{ id: string; text: string }>;
  choices: Array<{ value: number; label: string }>;
  answers: Array<{ item_id: string; value: number }>;
}

export interface PromptTask {
  id: string; title: string; skill: string; difficulty: string; brief: string; variables: string[]; pass_threshold: number;
  attempt_budget: number; attempts_used: number; attempts_remaining: number; best_score: number | null;
  sample_cases: Array<{ name: string; vars: Record<string, string> }>; hidden_case_count: number;
}

export interface PromptDetail { id: string; status: CodingStatus; duration_seconds: number | null; tasks: PromptTask[] }

export interface AssertionResult { type: string; weight: number; passed: boolean; reason: string }

export interface PromptCaseResult {
  name: string; kind: 'sample' | 'hidden'; passed: boolean; points: number; points_possible: number;
  vars?: Record<string, string>; rendered_prompt?: string; output?: string; output_truncated?: boolean; assertions?: AssertionResult[];
}

export interface CraftElement { key: string; name: string; found: boolean; advice: string }

export interface PromptAttempt {
  id: string; task_id: string; status: 'queued' | 'running' | 'graded' | 'error'; execution: 'executed' | 'unavailable' | null;
  execution_reason: string | null; score: number | null; passed: boolean | null; hidden_cases_passed: number | null; hidden_cases_total: number;
  craft: { score: number; elements: CraftElement[] }; cases: PromptCaseResult[]; error: string | null; remaining?: number;
}

/** The answer to POST /v1/interviews/{id}/join: the room's configuration. */
export interface InterviewJoin {
  interview_id: string; status: string; status_code: number; language: string;
  channel: { url: string; protocol: string };
  clock: { duration_seconds: number; remaining_seconds: number; running: boolean };
  code: { languages: string[]; options: Language[] };
  whiteboard: { content_type: 'image/png'; max_bytes: number; max_images: number };
  recording: { enabled: boolean };
  round: { name: string; role: string };
}

export interface InterviewTimer { status: string; running: boolean; duration_seconds: number; elapsed_seconds: number; remaining_seconds: number }

export interface InterviewCodeRun { status: string; exit_code: number | null; stdout: string; stderr: string; time_ms: number }

export interface InterviewCode { turn: number; language: string; run: InterviewCodeRun | null }

export interface BoardUpload { upload_url: string; key: string; max_bytes: number; turn: number }
