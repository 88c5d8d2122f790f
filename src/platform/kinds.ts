/**
 * The one registry of assessment kinds (the contract's subject_kind values): for each, the module that gates it,
 * the credit it spends, the POST /v1/sessions field that binds a token to it, and its completion event. Adding a
 * kind starts with one entry here; sessions, auth, credits and webhooks read it.
 */
export const SUBJECT_KINDS = {
  interview: { module: 'interviews', credit: 'interview', sessionField: 'interview_id', completedEvent: 'interview.completed' },
  coding: { module: 'coding', credit: 'coding', sessionField: 'coding_session_id', completedEvent: 'coding.completed' },
  prompt_engineering: { module: 'prompt_engineering', credit: 'prompt_engineering', sessionField: 'prompt_engineering_session_id', completedEvent: 'prompt_engineering.completed' },
  psychometric: { module: 'psychometric', credit: 'psychometric', sessionField: 'psychometric_session_id', completedEvent: 'psychometric.completed' },
} as const;

export type SubjectKind = keyof typeof SUBJECT_KINDS;
export const SUBJECT_KIND_NAMES = Object.keys(SUBJECT_KINDS) as SubjectKind[];
