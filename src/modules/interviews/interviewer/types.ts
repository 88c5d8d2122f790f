/**
 * The shapes the built-in interviewer, the answer analysis and the report share. Pure data: nothing here touches
 * the database, the network or the clock (times are passed in as elapsed milliseconds).
 */

/** How a round is run (a round type's method in catalog/interviews/rounds.json). */
export type RoundStyle = 'behavioral' | 'technical' | 'coding' | 'system_design';

/** A coding problem put in the candidate's editor (coding rounds). */
export interface PlannedProblem {
  /**
   * The coding catalogue's id of the problem: its slug alone can name another (an organisation's own problem of a
   * shared problem's slug, or another organisation's). Server-side only; absent from plans made before it was kept.
   */
  id?: string;
  slug: string;
  title: string;
  /** Markdown statement, as the coding catalogue has it. */
  statement: string;
}

/** One question of an interview's plan, in order. */
export interface PlannedQuestion {
  /** 0-based position in the plan. */
  position: number;
  source: 'bank' | 'customer';
  /** The question bank's id; null for the customer's own questions. */
  questionId: string | null;
  title: string;
  /** What the interviewer asks (may hold Markdown lists and code spans, as the bank writes them). */
  prompt: string;
  /** The bank's guidance: what a strong answer covers. Empty for a customer question without guidance. */
  keyPoints: string[];
  /** The bank's follow-up questions. Empty for a customer question without guidance. */
  followUps: string[];
  /** Time budget for this question, whole minutes (at least 1). */
  minutes: number;
  problem: PlannedProblem | null;
  /**
   * True when the question asks for a view or a preference ("where do you want your career to go"), not a past story:
   * followed up with its key points and follow-ups rather than STAR probes, and left out of the STAR measures.
   * Absent: a story (or, outside behavioural rounds, whatever the round's style asks for).
   */
  view?: boolean;
}

/** What the interviewer knows of the candidate from the parsed resume (null: no resume). */
export interface ResumeFacts {
  name: string | null;
  /** Most recent first. */
  titles: string[];
  companies: string[];
  skills: string[];
}

export interface InterviewSetup {
  style: RoundStyle;
  /** e.g. "Behavioral Interview". */
  roundName: string;
  /** The role being interviewed for, as the customer gave it. */
  role: string;
  /** 1 (entry) … 5 (principal). */
  difficulty: number;
  candidateName: string | null;
  resume: ResumeFacts | null;
  plan: PlannedQuestion[];
  durationMs: number;
}

/** The outcome of one code run during the interview (null when the snapshot was not run). */
export interface CodeRun {
  status: 'ok' | 'compile_error' | 'runtime_error' | 'time_limit' | 'memory_limit' | 'output_limit' | 'unavailable';
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timeMs: number | null;
}

/**
 * A problem's final code (the last snapshot at its question) judged after the interview on the problem's own cases,
 * examples and hidden ones, as a coding submission is. `passed`/`total` null: it could not be judged (`note` says why).
 */
export interface ProblemTests {
  questionPosition: number;
  problem: string;
  /** The snapshot's transcript turn. */
  turn: number;
  language: string;
  passed: number | null;
  total: number | null;
  /** ACCEPTED, the first failing case's verdict, or COMPILE_ERROR; null when not judged. */
  verdict: string | null;
  note: string | null;
}

/** A code snapshot the candidate sent during the interview. */
export interface CodeSnapshot {
  /** Transcript turn it is recorded as. */
  seq: number;
  language: string;
  source: string;
  run: CodeRun | null;
}

/** One transcript turn, as the analysis and the report read it. */
export interface Turn {
  /** 1-based, gapless per interview, in the order said. */
  seq: number;
  speaker: 'interviewer' | 'candidate';
  /** text: said or typed; code: a code snapshot (text is a one-line notice); board: a whiteboard image (text a notice). */
  kind: 'text' | 'code' | 'board';
  text: string;
  /** The plan position being discussed when the turn was said; null in the opening and closing. */
  questionPosition: number | null;
  /** Elapsed interview time when said, ms. */
  atMs: number;
  code: CodeSnapshot | null;
}

/**
 * The built-in interviewer's memory between turns: stored with the interview after every turn (in the transaction
 * that stores the turn), so a restart continues where it was. JSON-serialisable; keep it small.
 */
export interface InterviewerState {
  phase: 'opening' | 'question' | 'closing' | 'done';
  /** Current plan position (phase 'question'); -1 before the first question. */
  index: number;
  /** Elapsed ms when the current question was asked. */
  askedAtMs: number;
  /** Probe ids already used for the current question (e.g. "star:result", "point:3", "design:scale", "follow:1"). */
  probes: string[];
  /** Number of candidate turns given to the current question. */
  answers: number;
}

/** What the interviewer says next and where that leaves it. */
export interface InterviewerMove {
  text: string;
  state: InterviewerState;
  /** The plan position this turn belongs to (null in opening/closing). */
  questionPosition: number | null;
  /** Why this move (for the model interviewer's instructions and for tests): e.g. "ask", "probe:star:result", "move_on:time", "close". */
  reason: string;
  /** The candidate's editor should show this problem (coding rounds, when a question with a problem is asked). */
  problem: PlannedProblem | null;
  /** True when this turn closes the interview (the server then ends it). */
  end: boolean;
}
