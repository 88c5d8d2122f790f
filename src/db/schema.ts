/**
 * Table shapes as Kysely sees them. Conventions, the same on both engines:
 * ids are UUIDv7 strings; times are epoch milliseconds (bigint); flags are 0/1 integers;
 * JSON is stored as text. Every tenant table carries organization_id and livemode.
 */
import type { ColumnType } from 'kysely';
export type Flag = 0 | 1;

export interface OrganizationsTable {
  id: string;
  name: string;
  api_enabled: Flag;
  /** Interviews that may run at once (bookable slots are counted against it). */
  max_concurrent_interviews: ColumnType<number, number | undefined, number>;
  created_at: number;
}

export interface OrganizationModulesTable {
  organization_id: string;
  module: string;
  enabled: Flag;
  updated_at: number;
}

export interface MembersTable {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  type: 'secret' | 'publishable';
  name: string | null;
  key_hash: string;
  key_hint: string;
  rate_limit: number | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  replaced_by: string | null;
  created_by_key_id: string | null;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  livemode: Flag;
  key: string;
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: number;
  locked_until: number;
}

export interface CreditLedgerTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  kind: string;
  amount: number;
  entry_type: 'grant' | 'reserve' | 'commit' | 'release';
  reservation_id: string | null;
  reference: string | null;
  created_at: number;
}

export interface CreditLocksTable {
  organization_id: string;
  livemode: Flag;
  kind: string;
  version: number;
  /** The sum of this balance's ledger entries, kept in the same transaction as each entry. */
  balance: number;
}

export interface SandboxQuotaTable {
  organization_id: string;
  period: string;
  used: number;
}

export interface BrandingTable {
  organization_id: string;
  livemode: Flag;
  company_name: string | null;
  logo_url: string | null;
  primary_color: string | null;
  accent_color: string | null;
  background_color: string | null;
  text_color: string | null;
  updated_at: number;
}

export interface CandidatesTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  email: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface RoundTypesTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  description: string;
  duration_minutes: number;
  created_at: number;
}

export interface CompaniesTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  industry: string;
  size: string;
  headquarters: string | null;
  created_at: number;
}

export interface JobsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  title: string;
  company_id: string | null;
  level: string;
  location: string | null;
  employment_type: string;
  description: string;
  skills: string;
  created_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
  created_at: number;
}

export interface SigningKeysTable {
  kid: string;
  public_jwk: string;
  private_key: string;
  created_at: number;
  retired_at: number | null;
}

export interface DomainsTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  origin: string;
  created_by_key_id: string | null;
  created_at: number;
}

export type { SubjectKind } from '../platform/kinds.js';
import type { SubjectKind } from '../platform/kinds.js';

export interface SessionTokensTable {
  jti: string;
  organization_id: string;
  livemode: Flag;
  subject_kind: SubjectKind;
  subject_id: string;
  origin: string;
  source: 'secret_key' | 'launch' | 'refresh';
  root_jti: string | null;
  /** The secret key that minted the session (kept on its refreshes): revoking the key ends it. Null from a launch link. */
  key_id: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface LaunchLinksTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  subject_kind: SubjectKind;
  subject_id: string;
  token_hash: string;
  redirect_url: string | null;
  /** The secret key that minted the link: revoking the key ends it (and the sessions exchanged from it). */
  key_id: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface CodingProblemsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  title: string;
  difficulty: 'easy' | 'medium' | 'hard';
  skills: string;
  statement: string;
  input_format: string;
  output_format: string;
  constraints: string;
  examples: string;
  /** JSON [{ name, input, output, large }]: never leaves the service. */
  hidden_cases: string;
  /** JSON { language: source } of reference solutions, or null (an organisation's problem without one). */
  reference_solutions: string | null;
  expected_complexity: string;
  comparator: string;
  time_limit_ms: number;
  memory_limit_mb: number;
  created_at: number;
}

export interface CodingTestsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  description: string;
  difficulty: 'easy' | 'medium' | 'hard';
  skills: string;
  duration_minutes: number | null;
  /** Submissions allowed per problem. */
  attempts_per_problem: number;
  created_at: number;
}

export interface CodingTestSlotsTable {
  id: string;
  test_id: string;
  position: number;
  title: string;
}

export interface CodingSlotProblemsTable {
  slot_id: string;
  problem_id: string;
  position: number;
}

export type CodingSessionStatus = 'assigned' | 'started' | 'in_progress' | 'completed' | 'timed_out' | 'cancelled';

export interface PsychometricTestsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  description: string;
  estimated_minutes: number;
  source: string;
  /** JSON instrument definition (see modules/psychometric/instrument.ts). */
  definition: string;
  created_at: number;
}

export interface PsychometricSessionsTable extends AssessmentSessionColumns {
  language: string;
  /** JSON array of item ids in the order this session shows them. */
  item_order: string;
  /** One character per item of the test, in the test's item order: '0' unanswered, '1'–'5' (psychometric/answers.ts). */
  answers: string;
}

export interface PsychometricReportsTable {
  session_id: string;
  organization_id: string;
  livemode: Flag;
  test_id: string;
  raw_scores: string;
  report: string;
  created_at: number;
}

export interface PromptEngineeringTasksTable {
  id: string;
  organization_id: string | null;
  slug: string;
  title: string;
  skill: string;
  difficulty: string;
  brief: string;
  /** JSON TaskDefinition (see modules/prompt-engineering/content.ts). */
  definition: string;
  digest: string;
  created_at: number;
  updated_at: number;
}

export interface PromptEngineeringAssessmentsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  description: string;
  duration_minutes: number;
  /** JSON array of task ids, in order. */
  task_ids: string;
  digest: string;
  created_at: number;
  updated_at: number;
}

export interface PromptEngineeringSessionsTable extends AssessmentSessionColumns {
  /** Set by finalize: no more attempts; the report follows once every attempt is graded. */
  finalize_requested_at: number | null;
}

export type PromptAttemptStatus = 'queued' | 'running' | 'graded' | 'error';

export interface PromptAttemptsTable {
  id: string;
  session_id: string;
  organization_id: string;
  livemode: Flag;
  task_id: string;
  prompt: string;
  status: PromptAttemptStatus;
  execution: 'executed' | 'unavailable' | null;
  execution_reason: string | null;
  /** JSON AttemptResults. */
  results: string | null;
  score: number | null;
  hidden_passed: number | null;
  hidden_total: number;
  /** JSON CraftAnalysis. */
  craft: string;
  craft_score: number;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  graded_at: number | null;
}

export interface PromptAttemptOutputsTable {
  attempt_id: string;
  case_name: string;
  output: string;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number;
  created_at: number;
}

export type InterviewStatus = 'scheduled' | 'in_progress' | 'paused' | 'ended' | 'completed' | 'cancelled' | 'expired' | 'failed';

export interface InterviewsTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  candidate_id: string | null;
  round_type_id: string;
  round_slug: string;
  round_name: string;
  difficulty: number;
  role: string;
  resume_id: string | null;
  company_id: string | null;
  language: string;
  status: InterviewStatus;
  duration_seconds: number;
  scheduled_at: number | null;
  join_by: number;
  joined_at: number | null;
  credit_reference: string | null;
  elapsed_ms: number;
  running_since: number | null;
  deadline_at: number | null;
  paused_at: number | null;
  ended_at: number | null;
  end_reason: string | null;
  completed_at: number | null;
  failure_reason: string | null;
  overall_score: number | null;
  next_seq: number;
  interviewer: string;
  recording_key: string | null;
  invitation: string | null;
  created_at: number;
  updated_at: number;
}

export interface InterviewQuestionsTable {
  interview_id: string;
  position: number;
  source: 'bank' | 'customer';
  question_id: string | null;
  title: string;
  prompt: string;
  guidance: string;
  minutes: number;
  problem: string | null;
  created_at: number;
}

export interface InterviewTurnsTable {
  interview_id: string;
  seq: number;
  speaker: 'interviewer' | 'candidate';
  kind: 'text' | 'code' | 'board';
  text: string;
  question_position: number | null;
  client_id: string | null;
  data: string | null;
  at_ms: number;
  created_at: number;
}

export interface InterviewReportsTable {
  interview_id: string;
  organization_id: string;
  livemode: Flag;
  transcript: string;
  report: string;
  created_at: number;
}

export interface PromptEngineeringReportsTable {
  session_id: string;
  organization_id: string;
  livemode: Flag;
  outcome: string;
  report: string;
  created_at: number;
}

/** The columns every assessment kind's session table has (the shared lifecycle reads and writes these). */
export interface AssessmentSessionColumns {
  id: string;
  organization_id: string;
  livemode: Flag;
  candidate_id: string | null;
  /** The test assigned (a coding test, a psychometric instrument, …). */
  test_id: string;
  status: 'assigned' | 'started' | 'in_progress' | 'completed' | 'timed_out' | 'cancelled';
  duration_seconds: number | null;
  credit_reservation_id: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  deadline_at: number | null;
  ended_at: number | null;
}

export interface CodingSessionsTable extends AssessmentSessionColumns {
  status: CodingSessionStatus;
  /** Set by finalize: no more runs or submissions; the report follows. */
  finalize_requested_at?: number | null;
}

export interface CodingSessionProblemsTable {
  session_id: string;
  position: number;
  slot_title: string;
  problem_id: string;
  attempts_used: number;
  scored: Flag;
}

export interface ProctoringEventsTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  subject_kind: SubjectKind;
  subject_id: string;
  type: string;
  meta: string | null;
  created_at: number;
}

export interface BackgroundJobsTable {
  id: string;
  kind: string;
  payload: string;
  /** The organisation the job works for (claims share the slots between organisations); null: the service's own work. */
  organization_id: string | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  run_at: number;
  attempts: number;
  max_attempts: number;
  unique_key: string | null;
  locked_by: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  url: string;
  description: string | null;
  enabled_events: string;
  disabled: Flag;
  secret: string;
  /** JSON `[{secret, expires_at}]`: rotated-out secrets (encrypted) that still sign until their grace ends. */
  retired_secrets: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface EventsTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  type: string;
  payload: string;
  status: DeliveryStatus;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  status_code: number | null;
  response_body: string | null;
  response_ms: number | null;
  error: string | null;
  succeeded: Flag;
  created_at: number;
}

export type SubmissionStatus = 'queued' | 'running' | 'judged' | 'error';

export interface CodingSubmissionsTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  session_id: string;
  problem_id: string;
  language: string;
  source: string;
  status: SubmissionStatus;
  /** PENDING until judged. */
  verdict: string;
  /** JSON: compile outcome and per-case results (hidden cases: name, verdict, time and memory only). */
  results: string | null;
  cases_passed: number;
  cases_total: number;
  hidden_passed: number;
  hidden_total: number;
  /** CPU ms summed over the large cases (null until judged, or when the problem has none). */
  large_time_ms: number | null;
  max_time_ms: number | null;
  max_memory_kb: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  judged_at: number | null;
}

export interface CodingReportsTable {
  session_id: string;
  organization_id: string;
  livemode: Flag;
  /** completed | timed_out | abandoned */
  outcome: string;
  report: string;
  created_at: number;
}

export interface CodingReferenceTimingsTable {
  problem_id: string;
  language: string;
  /** CPU ms of the reference solution summed over the problem's large cases. */
  large_time_ms: number;
  measured_at: number;
}

export interface QuestionBankTaxonomyTable {
  /** '' for Prep's catalogue and installation-wide imports, else the organisation whose import named the topic. */
  owner: string;
  kind: 'category' | 'topic';
  slug: string;
  name: string;
  description: string | null;
}

export interface QuestionBankQuestionsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  title: string;
  title_key: string;
  prompt: string | null;
  category: string;
  difficulty: 'easy' | 'medium' | 'hard';
  difficulty_rank: number;
  /** JSON {key_points, follow_ups}: interviewers only. */
  guidance: string | null;
  problem_id: string | null;
  source: 'prep' | 'organization' | 'imported';
  link: string | null;
  created_at: number;
  updated_at: number;
}

export interface QuestionBankQuestionTopicsTable {
  question_id: string;
  topic: string;
}

export interface QuestionBankImportedStatsTable {
  owner: string;
  question_id: string;
  company_slug: string;
  company_name: string;
  bucket: string;
  frequency: number;
  acceptance: number | null;
  source_file: string;
  imported_at: number;
}

export interface QuestionBankFtsTable {
  question_id: string;
  title: string;
  body: string;
}

export interface StoredFilesTable {
  key: string;
  organization_id: string;
  livemode: Flag;
  candidate_id: string | null;
  purpose: 'resume_upload' | 'resume';
  file_name: string | null;
  first_party: Flag;
  expires_at: number | null;
  created_at: number;
}

export interface ResumesTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  candidate_id: string;
  upload_key: string;
  file_key: string;
  content_type: string;
  size: number;
  pages: number;
  sha256: string;
  parsed: string;
  sections: string;
  score_id: string | null;
  created_at: number;
}

export interface ResumeScoresTable {
  id: string;
  resume_id: string;
  organization_id: string;
  livemode: Flag;
  brief_fingerprint: string;
  score: string;
  event_id: string | null;
  created_at: number;
}

export interface Database {
  organizations: OrganizationsTable;
  organization_modules: OrganizationModulesTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  credit_ledger: CreditLedgerTable;
  credit_locks: CreditLocksTable;
  sandbox_quota: SandboxQuotaTable;
  branding: BrandingTable;
  candidates: CandidatesTable;
  round_types: RoundTypesTable;
  companies: CompaniesTable;
  jobs: JobsTable;
  settings: SettingsTable;
  signing_keys: SigningKeysTable;
  domains: DomainsTable;
  session_tokens: SessionTokensTable;
  launch_links: LaunchLinksTable;
  coding_problems: CodingProblemsTable;
  coding_tests: CodingTestsTable;
  coding_test_slots: CodingTestSlotsTable;
  coding_slot_problems: CodingSlotProblemsTable;
  coding_sessions: CodingSessionsTable;
  psychometric_tests: PsychometricTestsTable;
  psychometric_sessions: PsychometricSessionsTable;
  psychometric_reports: PsychometricReportsTable;
  prompt_engineering_tasks: PromptEngineeringTasksTable;
  prompt_engineering_assessments: PromptEngineeringAssessmentsTable;
  prompt_engineering_sessions: PromptEngineeringSessionsTable;
  prompt_attempts: PromptAttemptsTable;
  prompt_attempt_outputs: PromptAttemptOutputsTable;
  prompt_engineering_reports: PromptEngineeringReportsTable;
  interviews: InterviewsTable;
  interview_questions: InterviewQuestionsTable;
  interview_turns: InterviewTurnsTable;
  interview_reports: InterviewReportsTable;
  coding_session_problems: CodingSessionProblemsTable;
  coding_submissions: CodingSubmissionsTable;
  coding_reports: CodingReportsTable;
  coding_reference_timings: CodingReferenceTimingsTable;
  question_bank_taxonomy: QuestionBankTaxonomyTable;
  question_bank_questions: QuestionBankQuestionsTable;
  question_bank_question_topics: QuestionBankQuestionTopicsTable;
  question_bank_imported_stats: QuestionBankImportedStatsTable;
  question_bank_fts: QuestionBankFtsTable;
  proctoring_events: ProctoringEventsTable;
  stored_files: StoredFilesTable;
  resumes: ResumesTable;
  resume_scores: ResumeScoresTable;
  background_jobs: BackgroundJobsTable;
  webhook_endpoints: WebhookEndpointsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
