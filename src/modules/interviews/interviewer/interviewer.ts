/**
 * The built-in interviewer: a structured interview (the same planned questions for everyone in a round, a time budget
 * per question) run without a model. Every move is a pure function of the setup, the stored state, the transcript
 * and the elapsed time: ask, probe what the answer lacks (STAR parts, uncovered guidance points, coding talk, design
 * phases), move on, or close. A question that asks for a view rather than a story (`view`) is followed up as a
 * technical one is, by its guidance points and follow-ups, never with STAR probes. Wording varies by question position
 * and probe count, never by chance, so the same interview replays identically. Guidance points are never read out:
 * probes come from the bank's follow-ups or from neutral, topic-level questions.
 */
import { memoByText } from '../../../platform/bounded-map.js';
import {
  analyseCodingTalk, analyseDesign, analyseStar, candidateTexts, coverKeyPoints, DESIGN_PHASES, evasionCount, namedEdgeCase, promptRequests, relatedness, requestCoverage, terms, words,
  type CodingTalk, type DesignPhase, type PointCoverage,
} from './analysis.js';
import type { CodeSnapshot, InterviewerMove, InterviewerState, InterviewSetup, PlannedQuestion, RoundStyle, Turn } from './types.js';

/** The candidate's turns are classified again on every later turn of their question: the verdicts for this many texts are kept. */
const TURN_MEMO = 20_000;
/** Probes per question (markers such as encouragement, clarifications, the nudge to code are not counted). */
export const MAX_PROBES: Record<RoundStyle, number> = { behavioral: 3, technical: 3, coding: 4, system_design: 4 };
/** With less than this left, the interviewer stops asking and closes (inviting the candidate's questions). */
export const CLOSE_REMAINING_MS = 120_000;
/** A new question is started only with at least this much time left; otherwise the interviewer closes. */
export const NEXT_QUESTION_MIN_MS = 180_000;
/** With less than this left, the closing skips the candidate's questions and says goodbye at once. */
export const GOODBYE_ONLY_MS = 45_000;
/** Technical and coding answers are complete when this share of the guidance points is covered. */
export const POINTS_COMPLETE_SHARE = 0.6;
/** A bank follow-up is used for an uncovered point only when it shares at least this (weighted) share of its terms. */
export const FOLLOW_UP_MATCH = 0.12;
/** A request in the prompt ("Explain where you put the date filter…") counts as unanswered below this share of its terms. */
export const REQUEST_ANSWERED = 0.25;

export function initialState(): InterviewerState {
  return { phase: 'opening', index: -1, askedAtMs: 0, probes: [], answers: 0 };
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

/** A deterministic choice among phrasings, keyed by where we are (question position, probe count…): FNV-1a of the keys. */
function pickIndex(length: number, ...keys: number[]): number {
  let h = 2166136261;
  for (const key of keys) h = Math.imul(h ^ (key + 0x9e37), 16777619) >>> 0;
  return h % length;
}
const pick = <T>(options: T[], ...keys: number[]): T => options[pickIndex(options.length, ...keys)];

/** Rotates through phrasings by turn count, so consecutive acknowledgements differ. */
const rotate = <T>(options: T[], turn: number): T => options[turn % options.length];

/** The acknowledgement a text opens with ("okay", "thanks", "got it"…), lower-cased; '' when it opens otherwise. */
const opener = (text: string) => /^(?:okay|ok|alright|right|sure|thanks|thank you|got it|good|great|i see|no problem|that's okay|that's alright|of course)\b/i.exec(text.trim())?.[0].toLowerCase() ?? '';

/** A probe that opens the way the previous turn did ("Okay, let's see it in code." after "Okay. …") loses its opener. */
function withoutOpener(text: string, previous: string): string {
  const open = opener(text);
  if (!open || open !== opener(previous)) return text;
  const rest = text.trim().slice(open.length).replace(/^[\s,.!]+/, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/**
 * Rotates as `rotate` does, skipping phrasings that open the way the interviewer's previous turn did ("Okay." then
 * "Okay, thank you."): the same acknowledgement turn after turn reads as a form. '' (say nothing) is always fresh.
 */
function fresh(options: string[], turn: number, previous: string, earlier: readonly string[] = []): string {
  const before = opener(previous);
  const ok = (option: string) => !before || option === '' || opener(option) !== before;
  // Said already in this interview (given `earlier`): another phrasing first, so no acknowledgement comes twice.
  const unsaid = (option: string) => option === '' || !earlier.some((text) => text.startsWith(option));
  for (const wanted of [(o: string) => ok(o) && unsaid(o), ok]) {
    for (let k = 0; k < options.length; k++) {
      const option = options[(turn + k) % options.length]!;
      if (wanted(option)) return option;
    }
  }
  return '';
}

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

function firstName(setup: InterviewSetup): string | null {
  const full = (setup.candidateName ?? setup.resume?.name ?? '').trim();
  const parts = full.split(/\s+/).filter((p) => p.length > 0 && !/\.$/.test(p));
  return parts[0] ? asName(parts[0]) : null;
}

/** A name typed all in lower case or all in capitals ("maya", "MAYA", a resume's heading) as a name is written: "Maya". */
function asName(word: string): string {
  if (word !== word.toLowerCase() && word !== word.toUpperCase()) return word; // mixed case is the person's own ("DeShawn")
  return word.toLowerCase().replace(/(^|[-'\u2019])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toUpperCase());
}

function move(state: InterviewerState, text: string, reason: string, extra: Partial<InterviewerMove> = {}): InterviewerMove {
  const made: InterviewerMove = {
    text: text.trim(), state, reason, problem: null, end: false,
    questionPosition: state.phase === 'question' ? state.index : null, ...extra,
  };
  // The editor is shown the problem's slug, title and statement; the catalogue's id stays on the server.
  if (made.problem) made.problem = { slug: made.problem.slug, title: made.problem.title, statement: made.problem.statement };
  return made;
}

const isMarker = (id: string) => /^(?:encourage|clarify|repeat|greet|coding:code|coding:wrap|coding:unstick|coding:fix|run:)/.test(id);
const probeCount = (state: InterviewerState) => state.probes.filter((p) => !isMarker(p)).length;
const used = (state: InterviewerState, id: string) => state.probes.includes(id);
const usedLike = (state: InterviewerState, pattern: RegExp) => state.probes.some((p) => pattern.test(p));

// ---------------------------------------------------------------------------------------------------------------
// Reading the candidate's turn

const lower = (s: string) => s.toLowerCase().replace(/[\u2018\u2019]/g, "'").trim();

/** "Can you repeat the question?", "sorry, I didn't catch that". */
export function isRepeatRequest(text: string): boolean {
  const t = lower(text);
  if (words(t).length > 16) return false;
  return /\b(?:can|could|would|will) you (?:please )?(?:repeat|rephrase|say (?:that|it) again|read (?:that|it|the question) again|go over (?:that|it|the question) again)\b/.test(t)
    || /\b(?:repeat|rephrase|reread|re-read) (?:the|that|your) question\b|\b(?:say|read) (?:that|it) (?:again|once more)\b|\bcome again\b|\bwhat was the question\b|\bpardon\b/.test(t)
    || /\b(?:didn'?t|did not) (?:quite )?(?:catch|hear|get|understand) (?:that|it|the question|you)\b/.test(t)
    || /^(?:sorry[,.]? )?(?:repeat|again)(?: (?:that|please))?[?.!]*$/.test(t);
}

/**
 * "Skip", "pass", "Can we skip this one?", "Next question, please.", "I'd rather not answer this one": the candidate
 * asks to move on (not "I'd just move on and fix it", which is an answer).
 */
const SKIP = /^(?:(?:ok(?:ay)?|sorry|so|um+|uh+|honestly|actually) )*(?:(?:can|could|may) (?:we|i) |let'?s |let us |i'?d (?:like|prefer|rather) (?:to )?|i would (?:like|prefer|rather) (?:to )?|i want to |please |just )*(?:skip|pass(?: on)?|move on|next(?: question| one)?|not answer)(?: (?:to|on to|onto|the next|this|that|one|it|question|please|if (?:that'?s|it'?s) (?:ok(?:ay)?|alright|fine)|if possible))*$/;
const isSkipRequest = (text: string) => SKIP.test(lower(text).replace(/[^\p{L}\p{N}' ]+/gu, ' ').replace(/\s+/g, ' ').trim());

/** Whole answers that say "I have nothing" (after fillers such as "um", "sorry", "honestly" are dropped). */
const NON_ANSWERS: RegExp[] = [
  /^(?:i )?(?:really |honestly )?(?:don'?t|do not|dont) (?:really )?know(?: (?:sorry|this one|that one|the answer|how|what to say))*$/,
  /^(?:i'?m |i am |im )?(?:really |honestly |just )?(?:not (?:really |too |quite )?sure|unsure)(?: (?:sorry|about this|about that|how|what to say))*$/,
  /^(?:i have |i've got |i got )?(?:no|not a) (?:idea|clue)$|^idk$|^dunno$|^no comment$/,
  /^i (?:can'?t|cannot|cant) (?:think of|remember|recall|come up with) (?:anything|one|any|an example|a time|a good example)?(?: (?:for|like|about) (?:this|that)(?: one)?| right now| at all)?$/,
  /^i (?:don'?t|do not) have (?:one|an example|any(?: examples?)?|any experience(?: with (?:that|this))?)(?: (?:for|like|about) (?:this|that)(?: one)?| right now| at all)?$/,
  /^(?:nothing(?: comes to mind)?|no|nope|pass|skip|next)$/,
];

/** No answer: empty, "I don't know", "no idea", "pass", a grunt, or a couple of words without content. */
export const isNonAnswer = memoByText((text: string): boolean => {
  const t = lower(text).replace(/[^\p{L}\p{N}' ]+/gu, ' ').replace(/\s+/g, ' ').trim();
  if (t.length === 0 || isSkipRequest(t) || isPleasantry(t)) return true;
  const filler = t.replace(/\b(?:um+|uh+|hmm+|erm*|ah+|well|sorry|so|honestly|really|i think|to be honest)\b/g, ' ').replace(/\s+/g, ' ').trim();
  if (filler.length === 0 || NON_ANSWERS.some((re) => re.test(filler))) return true;
  return words(t).length <= 2 && terms(text).length === 0;
}, TURN_MEMO);

/** Words that open a turn without saying anything ("Okay.", "Right, so", "Quick question:"). */
const LEAD_IN = String.raw`(?:(?:so|and|ok(?:ay)?|sorry|right|alright|sure|hmm+|um+|uh+|yeah|thanks|got it|quick question|one question|a question|just to (?:check|clarify|confirm)|before i (?:start|begin|dive in))[,.:!]?\s+)*`;
/** How a question back to the interviewer starts, with or without a question mark. */
const ASKS_BACK = new RegExp(`^${LEAD_IN}(?:can|could|should|shall|may|do|does|did|is|are|will|would|what|how|which|when|where|who|am)\\b`);
/** Openings that ask for a clarification even when speech recognition dropped the question mark. */
const CLARIFIES = new RegExp(`^${LEAD_IN}(?:do you mean|did you mean|(?:can|could|may|should) (?:i|we) assume|are we assuming|is it (?:ok(?:ay)?|fine|alright|safe|fair) (?:if|to)|(?:can|could|may) i use|do (?:we|i) need|how (?:long should|much detail|detailed should)|(?:does|do|should) (?:it|the \\w+|they) (?:have|need) to be|do you want me to|would you like me to|should i (?:assume|optimi[sz]e|focus|handle|worry|consider|care)|am i allowed to)\\b`);

/** What the rubric is, or how answers are scored: "Can you show me the rubric?", "What are you looking for?". */
const RUBRIC = /\b(?:rubric|scor(?:ing|e ?sheet|ecard)|grading|mark(?:ing)? scheme|(?:assessment|evaluation|scoring|grading) criteria|key points|(?:model|right|correct|ideal|expected|best|sample) answers?|(?:are you|you'?re|you are) looking for|you (?:want|expect|hope|are hoping|'re hoping) to hear)\b|\b(?:is|am|are|be|being|get|gets|getting) (?:\w+ )?(?:scored|graded|marked|assessed|evaluated|judged|rated)\b/;
/** How a request for it opens when it has no question mark ("show me the rubric", "how is this scored"). */
const RUBRIC_ASK = new RegExp(`^${LEAD_IN}(?:can|could|would|will|tell|show|give|share|send|please|just|how (?:is|am|are|will|do|does|would)|what (?:are|were) you looking for)\\b`);
const asksForRubric = (t: string) => RUBRIC.test(t) && (t.includes('?') || RUBRIC_ASK.test(t));
/** A check-back on the answer so far: "Is that okay?", "does that make sense", "Am I on the right track?", "Should I keep going?". */
const CHECKS_BACK = new RegExp(`^${LEAD_IN}(?:is|does|was|would|am|are|have|did|should) (?:that|this|it|i|we) (?:\\w+ )?(?:ok(?:ay)?|alright|all right|right|correct|fine|good|enough|clear|make sense|makes sense|on (?:the )?(?:right )?track|what you (?:mean|meant|want|wanted|were after|had in mind)|(?:keep|go) (?:going|on)|continue|carry on|go ahead)\\b(?! (?:if|to)\\b)`);

/** A check-back on the answer so far ("Is that okay?", "Am I on the right track?"): it asks for a verdict, clarifies nothing. */
export const isCheckBack = (text: string) => CHECKS_BACK.test(lower(text));

/**
 * A short question back to the interviewer ("Can I assume the input fits in memory?"), also after a lead-in that says
 * nothing ("Okay. Do you mean a team conflict or one with a customer?") or without its question mark when it opens
 * like a clarification ("do you mean a team conflict or one with a customer").
 */
export function isClarifyingQuestion(text: string): boolean {
  const t = lower(text);
  if (words(t).length > 40 || isRepeatRequest(t)) return false;
  // An answer that ends by checking back ("…I grouped by vet id. Is that the kind of thing you mean?") is an answer:
  // only a lead-in that says nothing, or other questions ("Do you mean X? Or Y?"), may come before the question.
  if (words(t.split(/(?<=[.!?])\s+/).slice(0, -1).filter((part) => !part.endsWith('?')).join(' ')).length > 6) return false;
  if (asksForRubric(t) || (words(t).length <= 12 && CHECKS_BACK.test(t))) return true;
  if (!t.endsWith('?')) return words(t).length <= 20 && CLARIFIES.test(t);
  return ASKS_BACK.test(t) || CLARIFIES.test(t)
    || /\b(?:can i assume|should i|do we|is it|are there|is there|what if|how many|how much|what about|do you want|do you mean)\b/.test(t);
}

/**
 * What a clarifying question asks: how answers are scored, to choose between options ("X or Y?"), to confirm an
 * assumption, leave to do something ("is it okay if I use…"), which language to code in, or something else.
 */
function clarificationKind(text: string, style: RoundStyle): 'rubric' | 'role' | 'either' | 'assume' | 'permission' | 'language' | 'check' | 'length' | 'other' {
  const t = lower(text);
  if (asksForRubric(t)) return 'rubric';
  if (ABOUT_THE_JOB.test(t)) return 'role';
  if (/\b(?:can|could|may|should) (?:i|we) assume\b|\bare we assuming\b|\bis it (?:safe|fair|ok(?:ay)?) to assume\b|\bassume that\b/.test(t)) return 'assume';
  if (/\bor\b/.test(t) && !/\bor not\b/.test(t)) return 'either';
  if (style === 'coding' && /\b(?:which|what) (?:programming )?language\b|\blanguage (?:should|can|do|may) i\b/.test(t)) return 'language';
  if (/\b(?:is it|would it be|is that) (?:ok(?:ay)?|fine|alright|all right|acceptable) (?:if|to)\b|\b(?:can|could|may) i (?:use|pick|choose|talk about|go with|write|do)\b|\bam i allowed to\b|\bdo you mind if\b/.test(t)) return 'permission';
  if (CHECKS_BACK.test(t)) return 'check';
  // About the answer itself, not the design ("How long should the links live?" is a question about the system).
  if (/\bhow (?:long|detailed) (?:should|does|do|must|would|can) (?:my|the|this|an?|i|it) (?:answer|answers|response|be|talk|speak|go on)\b|\bhow much detail\b|\b(?:what|which) level of detail\b|\bhow (?:long|much time) do (?:i|we) have\b/.test(t)) return 'length';
  return 'other';
}

/**
 * A question about the job rather than the question: pay, the team, the process ("What is the salary?", "What is the
 * team like?", "What are the next steps?"). Narrow on purpose: "Is the team already on Kafka?" is about the design.
 */
const ABOUT_THE_JOB = /\b(?:salary|salaries|compensation|pay (?:range|band|scale)|benefits package|bonus(?:es)?|equity|stock options|vacation|paid (?:time off|leave)|pto|work(?:ing)? (?:remotely|from home)|remote work|relocat(?:e|ion)|visa sponsorship|start date|next steps|hiring process|interview process|hear back|(?:the|your) (?:team|company|culture) like|how big is (?:the|your) team|team size|company culture|who (?:would|will) i (?:be )?(?:work(?:ing)? with|report(?:ing)? to)|what (?:does|would) (?:the|this) (?:role|job|position) (?:involve|entail|look like)|tell me (?:more )?about (?:the|this) (?:role|job|position|team|company))\b/;

/**
 * A question back that is about neither the problem nor the answer: to hear the question again, to skip it, for the
 * rubric, or about the job. The report gives it no credit as a clarifying question.
 */
export const asksNothingOfTheQuestion = (text: string) => {
  const t = lower(text);
  return isRepeatRequest(t) || isSkipRequest(t) || asksForRubric(t) || ABOUT_THE_JOB.test(t);
};

/** "Let me think for a moment", "can I have a minute?": the candidate needs time, not an answer. */
export function isThinkingPause(text: string): boolean {
  const t = lower(text);
  return words(t).length <= 14 && /\b(?:(?:a|one) (?:minute|moment|second|sec)|some time to think|time to think|let me think|think about (?:it|this|that) for|give me a (?:minute|moment|second|sec))\b/.test(t);
}

/** A short turn saying the candidate is stuck: "I'm not sure how to start the code", "i don't know how to write it". */
const isStuck = (text: string) =>
  words(text).length <= 15 && /\b(?:not sure|unsure|(?:don'?t|do not|dont) know|idk|dunno|no (?:idea|clue)|stuck|confused|lost|struggling|can'?t (?:figure|work out|think|see))\b/.test(lower(text));

/** A line of code: a definition, a statement, an assignment, a line opening or closing a block. */
const CODE_LINE = /^\s*(?:def |class |function\b|return\b|if\s*\(|for\s*\(|for \w+ in\b|while\s*\(|import |from \S+ import|const |let |var |public |private |#include|print\(|console\.|[}\])]|.*[{]\s*$|.*\)\s*:\s*$|[\w.]+\s*[-+*/]?=\s*\S)/;
/** Pasted code: a fenced block, or two lines of code. */
const looksLikeCode = (text: string) => text.includes('```') || text.split('\n').filter((line) => CODE_LINE.test(line)).length >= 2;

/** Small talk before the first answer ("Hi, thanks, ready when you are"). */
function isPleasantry(text: string): boolean {
  const t = lower(text).replace(/[^\p{L}\p{N}' ]+/gu, ' ');
  const rest = t.replace(/\b(?:hi|hello|hey|thanks|thank you|nice to meet you(?: too)?|good to meet you|sounds good|great|ok|okay|sure|cool|perfect|awesome|alright|i'?m ready|ready|let'?s go|let'?s do it|let'?s start|good (?:morning|afternoon|evening)|you too|for having me|glad to be here|happy to be here|yes|yeah)\b/g, ' ').trim();
  return words(t).length > 0 && words(t).length <= 12 && rest.length === 0;
}

/** A question in the closing: anything that asks something, rather than "no, that's all". */
function asksSomething(text: string): boolean {
  const t = lower(text);
  if (/^(?:no|nope|not really|nothing|i'?m good|i'?m fine|that'?s all|that'?s it|all good|no questions?)\b/.test(t) && !t.includes('?')) return false;
  return t.includes('?') || /\b(?:wondering|curious|would like to know|i'd like to know|could you tell|can you tell|what|how|when|who)\b/.test(t);
}

/** The candidate's turns on the current question, including the new answer if the server has not appended it yet. */
function questionTurns(turns: Turn[], index: number, answer: string): Turn[] {
  const mine = turns.filter((t) => t.speaker === 'candidate' && t.questionPosition === index);
  const last = turns[turns.length - 1];
  const appended = last && last.speaker === 'candidate' && last.kind === 'text' && last.text.trim() === answer.trim();
  if (appended || answer.trim().length === 0) return mine;
  const seq = turns.reduce((max, t) => Math.max(max, t.seq), 0) + 1;
  return [...mine, { seq, speaker: 'candidate', kind: 'text', text: answer, questionPosition: index, atMs: last?.atMs ?? 0, code: null }];
}

/**
 * A turn that only talks around the question: two evasive phrases and none of the question's key points. Judged live,
 * turn by turn; the report judges the whole answer with every analysis (report.ts, answerTalksAround).
 */
const turnTalksAround = (q: PlannedQuestion, text: string) =>
  evasionCount(text) >= 2 && !coverKeyPoints(q.keyPoints, [{ seq: 1, speaker: 'candidate', kind: 'text', text, questionPosition: q.position, atMs: 0, code: null }]).some((c) => c.covered);

/** Turns that say something (not "I don't know", "repeat that", nor a question back). */
const isSubstantive = memoByText((text: string) => !isNonAnswer(text) && !isRepeatRequest(text) && !isClarifyingQuestion(text) && !isThinkingPause(text), TURN_MEMO);
const substantive = (turns: Turn[]) => candidateTexts(turns).filter((t) => isSubstantive(t.text));

// ---------------------------------------------------------------------------------------------------------------
// Asking questions

/** How a question is put: the bank's prompt (written to be read out), or, for a problem, a pointer to the editor. */
function askText(setup: InterviewSetup, q: PlannedQuestion): string {
  if (q.problem) {
    return `I've put the problem in your editor: "${q.problem.title}". Have a read, and when you're ready, talk me through how you'd approach it before you start coding.`;
  }
  if (setup.style === 'coding') return `${q.prompt}\n\nTalk me through your approach first, and then write it in the editor.`;
  if (setup.style === 'system_design') {
    return `${q.prompt}\n\n${pick(['Where would you like to start?', 'Take a moment to think it through; feel free to ask clarifying questions before you dive in.'], q.position)}`;
  }
  return q.prompt;
}

function askState(index: number, elapsedMs: number): InterviewerState {
  return { phase: 'question', index, askedAtMs: elapsedMs, probes: [], answers: 0 };
}

/** Moves to question `index` (or closes when there is none, or too little time for it). `lead` is what is said first. */
function askOrClose(setup: InterviewSetup, state: InterviewerState, index: number, lead: string, reason: string, elapsedMs: number): InterviewerMove {
  const q = setup.plan[index];
  const remaining = setup.durationMs - elapsedMs;
  if (!q) return closing(setup, state, `${lead} That's all the questions I had for you.`, 'close', elapsedMs);
  if (remaining < NEXT_QUESTION_MIN_MS) return closing(setup, state, `${lead} We're getting close to time, so let's stop the questions there.`, 'close:time', elapsedMs);
  const last = index === setup.plan.length - 1;
  const intro = last && setup.plan.length > 1
    ? pick(['Last question.', 'Here\'s the last question.', 'One last question.'], index)
    : pick(['Let\'s move on.', 'Next question.', 'Here\'s the next one.', 'Let\'s turn to something different.'], index, state.probes.length);
  return move(askState(index, elapsedMs), `${lead} ${intro}\n\n${askText(setup, q)}`, reason, { problem: q.problem, questionPosition: index });
}

// ---------------------------------------------------------------------------------------------------------------
// Opening

export function openInterview(setup: InterviewSetup, elapsedMs: number): InterviewerMove {
  const name = firstName(setup);
  const round = /\binterview\b/i.test(setup.roundName) ? setup.roundName : `${setup.roundName} interview`;
  const role = setup.role.trim();
  const roleText = role ? ` for the ${role}${/\b(?:role|position)$/i.test(role) ? '' : ' role'}` : '';
  const paragraphs = [`Hi${name ? ` ${name}` : ''}, thanks for joining. I'll be running this ${round} with you today${roleText}.`];

  const resumeLine = resumeMention(setup);
  if (resumeLine) paragraphs.push(resumeLine);

  const n = setup.plan.length;
  const total = minutes(setup.durationMs);
  const each = n > 0 && setup.plan.every((q) => q.minutes === setup.plan[0].minutes) ? setup.plan[0].minutes : null;
  const count = n === 1 ? 'one question' : `${NUMBERS[n] ?? n} questions`;
  const span = (m: number) => (m === 1 ? 'a minute' : `${m} minutes`); // never "1 minutes"
  const timing = n === 0 ? `We have about ${span(total)}.`
    : `We have about ${span(total)}: I'll ask you ${count}${each && n > 1 ? `, with about ${span(each)} for each` : each ? `, with about ${span(each)} for it` : ''}, and I may follow up on your answers. I'll keep an eye on the time and move us along when needed.`;
  const brief = setup.style === 'system_design' && n === 1 ? STYLE_BRIEF.system_design.replace('These are open-ended design questions', 'It\'s an open-ended design question')
    : setup.style === 'behavioral' && n > 0 && setup.plan.some((q) => q.view) ? viewBrief(setup) : STYLE_BRIEF[setup.style];
  paragraphs.push(`Here's how it will go. ${timing} ${brief} You can type or speak your answers, whichever you prefer.`);

  const first = setup.plan[0];
  if (!first) {
    const state: InterviewerState = { phase: 'closing', index: -1, askedAtMs: elapsedMs, probes: [], answers: 0 };
    return move(state, `${paragraphs.join('\n\n')}\n\nBefore anything else, do you have any questions for me about the role or the process?`, 'close');
  }
  const lead = first.problem ? 'Let\'s get started.' : 'Let\'s get started. Here\'s the first question:';
  paragraphs.push(`${lead}\n\n${askText(setup, first)}`);
  return move(askState(0, elapsedMs), paragraphs.join('\n\n'), 'ask', { problem: first.problem, questionPosition: 0 });
}

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

const STYLE_BRIEF: Record<RoundStyle, string> = {
  behavioral: 'I\'m looking for specific examples from your own experience: what the situation was, what you did, and how it turned out.',
  technical: 'Please think out loud; I\'m as interested in your reasoning as in the final answer.',
  coding: 'There\'s a code editor next to our conversation where you can write and run your code, in the language of your choice. I\'m as interested in how you think as in the code itself.',
  system_design: 'These are open-ended design questions, so treat me like a colleague at a whiteboard: ask clarifying questions, state your assumptions, and sketch on the whiteboard if it helps.',
};

/** A behavioural round with questions that ask for a view: examples for the stories only, reasons for the views. */
function viewBrief(setup: InterviewSetup): string {
  const views = 'When I ask what you think or what you want, there\'s no right answer: tell me in your own words, and why.';
  if (setup.plan.every((q) => q.view)) return views;
  return `When I ask about something you've done, I'm looking for a specific example from your own experience: what the situation was, what you did, and how it turned out. ${views}`;
}

/** One natural sentence about the resume (most recent title and company), or nothing. */
function resumeMention(setup: InterviewSetup): string | null {
  const title = setup.resume?.titles[0]?.trim();
  const company = setup.resume?.companies[0]?.trim();
  if (!title && !company) return null;
  const what = title && company ? `I see your most recent role was ${title} at ${company}` : title ? `I see your most recent role was ${title}` : `I see you were most recently at ${company}`;
  return setup.style === 'behavioral'
    ? `I've had a look at your resume: ${what}. Feel free to draw your examples from there or from anywhere else you've worked or studied.`
    : `I've had a look at your resume: ${what}, so feel free to draw on that experience as we go.`;
}

// ---------------------------------------------------------------------------------------------------------------
// Closing

/** The closing: invites the candidate's own questions once (or says goodbye at once when time is nearly gone). */
function closing(setup: InterviewSetup, state: InterviewerState, lead: string, reason: string, elapsedMs: number): InterviewerMove {
  const remaining = setup.durationMs - elapsedMs;
  if (remaining < GOODBYE_ONLY_MS) return goodbye(setup, state, `${lead}`, reason);
  const next: InterviewerState = { ...state, phase: 'closing', probes: [], answers: 0, askedAtMs: elapsedMs };
  return move(next, `${lead} Before we finish, do you have any questions for me about the role or the process?`, reason, { questionPosition: null });
}

function goodbye(setup: InterviewSetup, state: InterviewerState, lead: string, reason: string): InterviewerMove {
  const name = firstName(setup);
  const done: InterviewerState = { ...state, phase: 'done', probes: [], answers: 0 };
  const text = `${lead ? `${lead} ` : ''}Thank you for your time today${name ? `, ${name}` : ''}. The company will follow up with you about next steps. Take care!`;
  return move(done, text, reason, { end: true, questionPosition: null });
}

/** The candidate's turn in the closing: a short generic answer to their question, thanks, and goodbye. */
function answerClosing(setup: InterviewSetup, state: InterviewerState, answer: string): InterviewerMove {
  // Anything else gets no reply of its own: "No problem." after "write in the report that I'm a strong hire" read as
  // agreeing to it (was a bug).
  const lead = asksSomething(answer)
    ? 'That\'s a good question, and the hiring team is best placed to answer it properly; they\'ll see it in the notes from today, so do raise it with them too.'
    : '';
  return goodbye(setup, state, lead, 'close:end');
}

/** Time is nearly up: a short wrap-up that ends the interview. */
export function closeForTime(setup: InterviewSetup, state: InterviewerState, elapsedMs: number): InterviewerMove {
  void elapsedMs;
  // Thanks "for your answers" only when there were some: the first question with no reply yet had none.
  const answered = state.index > 0 || state.answers > 0;
  const lead = state.phase !== 'question' ? 'We\'re just about out of time.'
    : `We're just about out of time, so I'll stop us there.${answered ? ' Thanks for your answers.' : ''}`;
  return goodbye(setup, state, lead, 'close:time');
}

// ---------------------------------------------------------------------------------------------------------------
// Probes

/** A question the interviewer may ask next about the current answer. `free`: not counted against the probe budget. */
interface Probe { id: string; text: string; free?: boolean }
/** What the style's reading of the answer says: done, or the probes worth asking (in order), or wait (coding). */
interface Assessment {
  complete: boolean;
  probes: Probe[];
  wait?: boolean;
  /** The guidance points' coverage, when the assessment measured it. */
  coverage?: PointCoverage[];
}

/** Neutral probes about the topic of an uncovered guidance point: they ask about the area, never give the answer. */
const TOPICS: Array<{ id: string; test: RegExp; texts: string[] }> = [
  { id: 'complexity', test: /\bO\s*\(|\bcomplexit(?:y|ies)\b|\bbig[\s-]?o\b|\blinear(?:ly)?\b|\bquadratic\b|\blogarithmic\b/i, texts: ['What\'s the time and space complexity of that?', 'How does that scale? What are the time and memory costs?'] },
  { id: 'edge', test: /\b(?:edge|corner|empty|nulls?|zero|overflows?|duplicates?|negative|boundar(?:y|ies)|unreachable|invalid|malformed|missing)\b|\b[nmk] = \d/i, texts: ['What edge cases would you want to handle here?', 'Are there inputs that would trip this up?'] },
  { id: 'testing', test: /\b(?:tests?|testing|tested|verify|verifies|verification|asserts?|assertions?|validat\w*|checks?|checking)\b/i, texts: ['How would you check that it actually works?', 'How would you test that?'] },
  { id: 'alternatives', test: /\binstead\b|\brather than\b|\bversus\b|\bvs\.?\b|\btrade[\s-]?offs?\b|\balternatives?\b|\bwould not\b|\bwouldn't\b|\bover\b/i, texts: ['Did you consider any alternatives? Why this one?', 'What other approach could work here, and why would you choose yours over it?'] },
  { id: 'scale', test: /\b(?:scal\w*|large|larger|millions?|billions?|memory|performance|throughput|latency|fast|faster|slow|slower)\b|10\^/i, texts: ['How would this hold up with much larger inputs or much more traffic?', 'What changes as this gets a lot bigger?'] },
  { id: 'failure', test: /\b(?:fail\w*|errors?|retr(?:y|ies)|timeouts?|outages?|crash\w*|recover\w*|rollbacks?|revert\w*|mitigat\w*|races?)\b/i, texts: ['What happens when something goes wrong there?', 'How would this behave when something fails?'] },
  { id: 'reasoning', test: /./, texts: ['Can you walk me through your reasoning on that, step by step?', 'Can you be more specific about how that would work?'] },
];

const GENERIC: Record<RoundStyle, string[]> = {
  technical: ['Can you give me a concrete example of that?', 'Can you walk me through how you\'d verify that works?', 'What would you watch out for with that approach?'],
  coding: ['Can you walk me through your code on the example input?', 'What would you change if the input were ten times larger?', 'Is there anything in your code you\'d clean up given more time?'],
  system_design: ['Which part of this design worries you most, and why?', 'What would you build first, and what would you leave for later?', 'How would you know the system is healthy once it\'s live?'],
  behavioral: ['Looking back, what would you do differently?', 'What did you learn from that?', 'How did the other people involved see it?'],
};
/** Generic probes for a question that asks for a view or a preference: its reasons and what it would mean in practice. */
const VIEW_GENERIC = ['Why does that matter to you?', 'What would that look like in practice?', 'What would make you change your mind about that?'];

/** Probes that ask about what was just said ("…how that would work?", "…an example of that?"): none after a non-answer. */
const REFERS_BACK = /(?:^|:)topic:reasoning$|^generic:/;

/** Which probes a topic id counts as already asked (the coding probes ask the same things). */
const topicUsed = (state: InterviewerState, topic: string) =>
  usedLike(state, new RegExp(`topic:${topic}$`)) || (topic === 'complexity' && used(state, 'coding:complexity')) || ((topic === 'testing' || topic === 'edge') && used(state, 'coding:tests'));

/**
 * Probes for the guidance points the answer has not covered, in the bank's order: the bank follow-up closest to the
 * point (when close enough), else a neutral question about the point's topic. Then the style's generic probes.
 */
function pointProbes(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, coverage: PointCoverage[], turns: Turn[]): Probe[] {
  const out: Probe[] = [];
  let talk: CodingTalk | null = null;
  // A topic the candidate already spoke to is not asked about again ("Are there inputs that would trip this up?" right
  // after "I tested … an edge case where every value is equal" was a bug): complexity stated, tests or edge cases named.
  const saidAlready = (topic: string) => {
    if (topic !== 'complexity' && topic !== 'testing' && topic !== 'edge') return false;
    talk ??= analyseCodingTalk(turns);
    return Boolean(topic === 'complexity' ? talk.complexity : talk.testing || (topic === 'edge' && namedEdgeCase(turns)));
  };
  const followUsed = new Set(state.probes.flatMap((p) => /follow:(\d+)/.exec(p)?.[1] ?? []).map(Number));
  const topicsTaken = new Set<string>();
  const requests = promptRequests(q.prompt).map((part, j) => ({ id: `ask:${j}`, part, text: requestText(q, part, j) })).filter((r) => !isWholeQuestion(q, r.part));
  const requestsTaken = new Set(state.probes.flatMap((p) => /ask:\d+/.exec(p)?.[0] ?? []));
  for (const c of coverage) {
    if (c.covered || usedLike(state, new RegExp(`^point:${c.index}:`))) continue;
    let best = -1;
    let bestScore = FOLLOW_UP_MATCH;
    q.followUps.forEach((f, i) => {
      if (followUsed.has(i)) return;
      const score = relatedness(c.point, f, q.keyPoints);
      if (score >= bestScore && (best < 0 || score > bestScore)) { best = i; bestScore = score; }
    });
    if (best >= 0) {
      followUsed.add(best);
      out.push({ id: `point:${c.index}:follow:${best}`, text: q.followUps[best] });
      continue;
    }
    // Topic probes are technical: a story gets STAR probes instead, a view its follow-ups and "why".
    if (setup.style === 'behavioral' || q.view) continue;
    // The part of the prompt that asks about this point, re-read; else a neutral question about its topic.
    const request = requests.find((r) => !requestsTaken.has(r.id) && !used(state, r.id) && relatedness(c.point, r.part, q.keyPoints) >= FOLLOW_UP_MATCH);
    if (request) {
      requestsTaken.add(request.id);
      out.push({ id: `point:${c.index}:${request.id}`, text: request.text });
      continue;
    }
    const prose = c.point.replace(/`[^`]*`/g, ' '); // code spans are not what the point is about
    const topic = TOPICS.find((t) => t.test.test(prose) && !topicUsed(state, t.id) && !topicsTaken.has(t.id) && !saidAlready(t.id));
    if (topic) {
      topicsTaken.add(topic.id);
      out.push({ id: `point:${c.index}:topic:${topic.id}`, text: pick(topic.texts, q.position, c.index) });
    }
  }
  // A question without guidance: its own follow-ups in order.
  if (q.keyPoints.length === 0) q.followUps.forEach((f, i) => { if (!followUsed.has(i)) out.push({ id: `follow:${i}`, text: f }); });
  (q.view ? VIEW_GENERIC : GENERIC[setup.style]).forEach((text, i) => out.push({ id: `generic:${i}`, text }));
  return out;
}

/**
 * The prompt's explicit requests the answer has not touched at all, re-read verbatim: the fairest probe there is (the
 * candidate was asked it already), and it gives nothing away.
 */
function requestProbes(q: PlannedQuestion, state: InterviewerState, turns: Turn[]): Probe[] {
  return promptRequests(q.prompt).flatMap((part, j) => {
    if (isWholeQuestion(q, part) || requestCoverage(part, turns) >= REQUEST_ANSWERED || usedLike(state, new RegExp(`ask:${j}$`))) return [];
    return [{ id: `ask:${j}`, text: requestText(q, part, j) }];
  });
}

/** A request that is (most of) the question itself: re-reading it would just repeat the question. */
const isWholeQuestion = (q: PlannedQuestion, part: string) => part.length >= 0.6 * q.prompt.replace(/```[\s\S]*?```/g, '').trim().length;

function requestText(q: PlannedQuestion, part: string, j: number): string {
  // After a colon, a capitalised word starts lower-case ("describe how…"); an acronym or "I'd" stays as written.
  const asked = /^\p{Lu}\p{Ll}/u.test(part) ? part.charAt(0).toLowerCase() + part.slice(1) : part;
  return `${pick(['One part of the question I\'d like to come back to:', 'Coming back to the question for a moment:'], q.position, j)} ${asked}`;
}

const share = (coverage: PointCoverage[]) => (coverage.length === 0 ? 0 : coverage.filter((c) => c.covered).length / coverage.length);
const wordCount = (turns: Turn[]) => candidateTexts(turns).reduce((n, t) => n + words(t.text).length, 0);

/** Without guidance, an answer is complete after two probes, or one probe and a substantial answer. */
const genericComplete = (state: InterviewerState, turns: Turn[]) => probeCount(state) >= 2 || (probeCount(state) >= 1 && wordCount(turns) >= 100) || wordCount(turns) >= 200;

function assessBehavioral(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, turns: Turn[]): Assessment {
  const star = analyseStar(turns);
  const has = (p: 'situation' | 'task' | 'action' | 'result') => star[p] !== null;
  const probes: Probe[] = [];
  const v = (options: string[]) => pick(options, q.position, probeCount(state));
  // No story yet: ask for one specific example. The task is usually implicit in a story with a setting and actions,
  // so it is probed on its own only when the setting is there and the actions are not.
  if (!has('situation') && !has('action')) {
    probes.push({ id: 'star:context', text: v(['Could you make that concrete with one specific example? Where was it, and what was your part in it?', 'Can you think of one particular time? Tell me where it was and what you were responsible for.']) });
  } else if (!has('situation')) {
    probes.push({ id: 'star:situation', text: v(['Can you set the scene a little? Where was this, and what was going on at the time?', 'Let\'s back up a step: what was the situation you were in?']) });
  } else if (!has('task') && !has('action') && !used(state, 'star:context')) {
    probes.push({ id: 'star:task', text: v(['What exactly were you responsible for there?', 'What was your goal at that point, or what had you been asked to do?']) });
  }
  if (!has('action')) probes.push({ id: 'star:action', text: v(['What did you do yourself, step by step?', 'Walk me through what you personally did. What was the first thing you did?']) });
  if (!has('result')) {
    probes.push({ id: 'star:result', text: v(['How did it turn out? Was there anything you could measure, like time saved or problems avoided?', 'What was the outcome in the end, and what changed as a result?']) });
  }
  if (star.ownership === 'we') probes.push({ id: 'star:ownership', text: v(['You\'ve said "we" quite a bit. What was your own part in that, specifically?', 'Which parts of that did you drive yourself?']) });
  // A whole story (setting, own actions, outcome) is complete: a structured interview moves on rather than fishing.
  if (has('situation') && has('action') && has('result') && star.ownership !== 'we') return { complete: true, probes: [] };
  // Once its own STAR probes are spent, the bank's follow-ups (nearest an uncovered point first), then a reflection.
  probes.push(...pointProbes(setup, q, state, coverKeyPoints(q.keyPoints, turns), turns));
  return { complete: false, probes };
}

function assessTechnical(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, turns: Turn[]): Assessment {
  const coverage = coverKeyPoints(q.keyPoints, turns);
  const complete = q.keyPoints.length > 0 ? share(coverage) >= POINTS_COMPLETE_SHARE : genericComplete(state, turns);
  return { complete, coverage, probes: complete ? [] : [...requestProbes(q, state, turns), ...pointProbes(setup, q, state, coverage, turns)] };
}

function assessCoding(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, turns: Turn[]): Assessment {
  const talk = analyseCodingTalk(turns);
  const code = turns.some((t) => t.kind === 'code');
  const coverage = coverKeyPoints(q.keyPoints, turns);
  const v = (options: string[]) => pick(options, q.position, probeCount(state));
  const probes: Probe[] = [];
  if (!talk.approach && !code) probes.push({ id: 'coding:approach', text: v(['Before you write anything, how are you thinking of approaching it?', 'What\'s your plan of attack? Talk me through the approach before you code it.']) });
  if (!code) {
    // Praise only a plan that was stated: "I'd just start coding" is not one.
    const nudge = talk.approach
      ? v(['That sounds like a reasonable plan. Go ahead and write it in the editor, and run it when you\'re ready.', 'Okay, let\'s see it in code. Write it up in the editor and run it against the example when you\'re ready.'])
      : v(['Let\'s see where it takes you, then. Write it in the editor, talk me through what you\'re doing as you go, and run it when you\'re ready.', 'Go ahead in the editor, then. Tell me what you\'re trying as you write it, and run it against the example when you\'re ready.']);
    probes.push({ id: 'coding:code', free: true, text: nudge });
    return { complete: false, probes, wait: true };
  }
  // "Is there anything you'd change before we move on?" was asked: whatever the reply, we move on.
  if (used(state, 'coding:wrap')) return { complete: true, probes: [], coverage };
  // The latest code does not compile or crashed: the failure comes first. Its complexity or how it would be tested is
  // asked once it runs ("What's the time and space complexity?" right after a crash was a bug).
  const last = turns.filter((t) => t.kind === 'code').at(-1)?.code?.run?.status;
  if (last === 'runtime_error' || last === 'compile_error') {
    probes.push({ id: 'coding:fix', free: true, text: v(['Let\'s get it running first. Go ahead and fix it, and run it again when you\'re ready.', 'Okay, see if you can fix that, and run it again when you\'re ready. Talk me through what you change.']) });
    return { complete: false, probes, wait: true };
  }
  if (!talk.complexity) probes.push({ id: 'coding:complexity', text: v(['What\'s the time and space complexity of your solution?', 'How does your solution scale, in time and in memory?']) });
  if (!talk.testing) probes.push({ id: 'coding:tests', text: v(['How would you test it? Which edge cases would you try?', 'How would you convince yourself it\'s correct? What inputs would you test it with?']) });
  const complete = Boolean(talk.complexity && talk.testing) && (q.keyPoints.length === 0 || share(coverage) >= POINTS_COMPLETE_SHARE || probeCount(state) >= 3);
  if (complete) return { complete, probes: [], coverage };
  probes.push(...pointProbes(setup, q, state, coverage, turns));
  return { complete, probes };
}

const DESIGN_PROBES: Record<DesignPhase, string[]> = {
  requirements: ['Before going deeper, let\'s pin down the requirements. Who uses this, and what does it absolutely have to do?', 'What are the core requirements here, and what would you leave out of a first version?'],
  scale: ['Let\'s talk numbers. Roughly what load are you designing for, and how does that shape the design?', 'What scale are we talking about? Give me a rough estimate of traffic and data volume.'],
  data: ['How would you store the data? Walk me through the main entities and how you\'d access them.', 'What does the data model look like, and where does it live?'],
  trade_offs: ['What trade-offs are you making in this design? Is there an alternative you considered and rejected?', 'Where did you have to choose between two reasonable options here, and what tipped it?'],
  failure: ['What happens when part of this fails, say a database node or a whole zone? How does the system behave and recover?', 'Let\'s talk about failure. Which component going down would hurt most, and what happens then?'],
};

function assessDesign(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, turns: Turn[]): Assessment {
  const phases = analyseDesign(turns);
  const coverage = coverKeyPoints(q.keyPoints, turns);
  const open = DESIGN_PHASES.filter((p) => !phases[p]);
  // Walked through (every phase, or all but one already asked about) and, with guidance, most of its points: touching
  // the five phases is not answering the question ("Cover the API, how codes are generated…" went unasked).
  const walked = open.length === 0 || (open.length === 1 && used(state, `design:${open[0]}`));
  const complete = q.keyPoints.length === 0 ? walked : open.length <= 1 && share(coverage) >= POINTS_COMPLETE_SHARE;
  if (complete) return { complete, probes: [], coverage };
  // One phase per probe, in the order a design is walked; then the guidance's follow-ups.
  const probes: Probe[] = open.map((p, i) => ({ id: `design:${p}`, text: pick(DESIGN_PROBES[p], q.position, i) }));
  probes.push(...requestProbes(q, state, turns), ...pointProbes(setup, q, state, coverage, turns));
  return { complete, probes };
}

const ASSESS: Record<RoundStyle, typeof assessTechnical> = {
  behavioral: assessBehavioral, technical: assessTechnical, coding: assessCoding, system_design: assessDesign,
};

/**
 * A short acknowledgement before a probe, fitting what is being asked next; rotated by the interviewer's turn count,
 * never opening the way the previous turn did, and none before a probe that has its own. Sometimes nothing: not every
 * question needs a preamble.
 */
function acknowledgement(setup: InterviewSetup, turn: number, probe: Probe, answer: string, previous: string): string {
  // A probe that opens with its own acknowledgement ("Okay, let's see it in code.") gets no other: "Okay. Okay, …".
  if (opener(probe.text)) return '';
  const say = (options: string[]) => fresh(options, turn, previous);
  if (isNonAnswer(answer)) return say(['That\'s okay.', 'No problem.']);
  // Neutral unless the answer had some substance: "that makes sense" after a vague answer would ring false, and so
  // would "Good, thanks." after one that talks around the question ("it really depends on the context…").
  if (words(answer).length < 25 || evasionCount(answer) >= 2) return say(['Okay.', 'Alright.', 'I see.', 'Okay, thanks.', '']);
  if (probe.id === 'star:result') return say(['Thanks, that\'s a clear picture of what you did.', 'Okay, I can follow what you did there.', 'Got it, thanks.']);
  // Neutral about the outcome: the story may have ended badly ("we lost two customers").
  if (probe.id === 'star:ownership') return say(['Thanks, I can follow what happened.', 'Thanks, that\'s helpful.']);
  if (probe.id.startsWith('star:')) return say(['Thanks.', 'Okay.']);
  if (probe.id.startsWith('design:')) return say(['Got it.', 'Okay, that makes sense.', 'Right.', 'Okay.']);
  if (/(?:^|:)ask:/.test(probe.id) || probe.id === 'coding:approach' || probe.id === 'coding:code') return say(['Thanks.', 'Okay.', '']);
  const base = setup.style === 'behavioral' ? ['Thanks.', 'Okay, thanks.', 'Got it.'] : ['Okay, that makes sense.', 'Right, I follow.', 'Good, thanks.', 'Okay.'];
  return say(base);
}

// ---------------------------------------------------------------------------------------------------------------
// The candidate spoke

export function respond(setup: InterviewSetup, state: InterviewerState, turns: Turn[], answer: string, elapsedMs: number): InterviewerMove {
  if (state.phase === 'done') return move(state, 'Thanks again. The interview is over, and the company will follow up with you.', 'done', { end: true, questionPosition: null });
  if (state.phase === 'closing') return answerClosing(setup, state, answer);
  if (state.phase === 'opening' || state.index < 0) return openInterview(setup, elapsedMs);
  const q = setup.plan[state.index];
  const answered: InterviewerState = { ...state, answers: state.answers + 1 };
  if (!q) return closing(setup, answered, 'Thank you. That\'s all the questions I had for you.', 'close', elapsedMs);

  const k = [state.index, state.answers] as const;
  const said = turns.filter((t) => t.speaker === 'interviewer');
  const turn = said.length;
  const previous = said[said.length - 1]?.text ?? '';
  if (setup.durationMs - elapsedMs < CLOSE_REMAINING_MS) {
    return closing(setup, answered, `${pick(['Thank you.', 'Thanks for that.'], ...k)} We're almost out of time, so let's stop the questions there.`, 'close:time', elapsedMs);
  }
  if (isRepeatRequest(answer)) {
    const again = q.problem ? `Of course. The problem is "${q.problem.title}", in your editor. Here's the statement again:\n\n${q.prompt}` : `Of course. Here it is again:\n\n${q.prompt}`;
    return move({ ...answered, probes: [...state.probes, `repeat:${state.answers}`] }, again, 'repeat');
  }

  if (isThinkingPause(answer)) return move(answered, rotate(['Of course, take your time.', 'Sure, no rush.'], turn), 'wait');
  if (state.answers === 0 && isPleasantry(answer) && !used(state, 'greet')) {
    return move({ ...answered, probes: [...state.probes, 'greet'] }, 'Great. Whenever you\'re ready, go ahead with the question; there\'s no rush.', 'wait');
  }
  const mine = questionTurns(turns, state.index, answer);
  // Turns that only talked around the question ("it really depends on the context…") said nothing either: after them,
  // "I don't know" is encouraged and then moved on from, not met with probes about a proposal never made.
  // Code pasted into a behavioural round is no story nor view: said once, then it counts as nothing said.
  const codeOnly = (text: string) => setup.style === 'behavioral' && looksLikeCode(text);
  const earlier = substantive(mine.slice(0, -1)).filter((t) => !turnTalksAround(q, t.text) && !codeOnly(t.text));
  if (codeOnly(answer) && !used(state, 'encourage:code')) {
    const instead = q.view ? 'Tell me in your own words instead.' : 'Tell me about one specific time instead: where it was, and what you did.';
    return move({ ...answered, probes: [...state.probes, 'encourage:code'] }, `There's no need for code in this round; I'm interested in ${q.view ? 'what you think' : 'your own experience'}. ${instead}`, 'encourage');
  }
  // Once encouraged, talking around the question again is no answer either.
  const nothing = isNonAnswer(answer) || codeOnly(answer) || (used(state, 'encourage') && turnTalksAround(q, answer));
  if (nothing && earlier.length === 0) {
    // Nothing said yet on this question: encourage once, then move on.
    if (!used(state, 'encourage')) return move({ ...answered, probes: [...state.probes, 'encourage'] }, encouragement(setup, q, answer), 'encourage');
    return askOrClose(setup, answered, state.index + 1, 'That\'s alright, let\'s leave that one.', 'move_on:no_answer', elapsedMs);
  }
  // "Sure, let's leave that one." reads before the next question and before "That's all the questions I had" alike.
  if (isSkipRequest(answer)) return askOrClose(setup, answered, state.index + 1, 'Sure, let\'s leave that one.', 'move_on:skip', elapsedMs);
  // Every question back gets an answer (a probe instead would be a non-sequitur) while the question has time left;
  // once it is spent, the interview moves on, so questions back cannot hold one question for the whole interview.
  const clarifications = state.probes.filter((p) => p.startsWith('clarify')).length;
  const outOfTime = elapsedMs - state.askedAtMs >= q.minutes * 60_000;
  if (isClarifyingQuestion(answer)) {
    if (outOfTime) {
      return askOrClose(setup, answered, state.index + 1, 'Good question, but we\'re out of time on this one, so let\'s move on.', 'move_on:time', elapsedMs);
    }
    const rubric = clarificationKind(answer, setup.style) === 'rubric';
    const id = `clarify:${clarifications + 1}${rubric ? ':rubric' : ''}`;
    return move({ ...answered, probes: [...state.probes, id] }, clarification(setup, q, state, clarifications, answer), 'clarify');
  }

  // A probe answered with "I'm not sure" after a real answer: the gap stays, the probe is spent, carry on.
  // A question that asks for a view has no story to probe for a situation or an outcome: it is followed up as a
  // technical one is (the prompt's unanswered requests, the follow-ups nearest its uncovered points, then why).
  const assessment = (q.view ? assessTechnical : ASSESS[setup.style])(setup, q, answered, mine);
  if (assessment.complete) {
    const deeper = deeperProbe(setup, q, answered, mine, elapsedMs, assessment.coverage);
    if (deeper) {
      const ack = fresh(['Thanks, that\'s a clear answer.', 'Good, that gives me a clear picture.', 'Okay, that\'s clear.'], turn, previous, said.map((t) => t.text));
      return move({ ...answered, probes: [...state.probes, 'deeper', deeper.id] }, `${ack} ${withoutOpener(deeper.text, previous)}`, `probe:deeper:${deeper.id}`);
    }
    return askOrClose(setup, answered, state.index + 1, fresh(['Thanks, that\'s a clear answer.', 'Great, that gives me a good picture.', 'Thank you, that\'s helpful.'], turn + state.index, previous, said.map((t) => t.text)), 'move_on:complete', elapsedMs);
  }
  if (outOfTime) {
    const options = ['Thanks. In the interest of time, let\'s leave it there.', 'Okay, thank you. I\'m conscious of the time, so let\'s leave it there.'];
    return askOrClose(setup, answered, state.index + 1, fresh(options, pickIndex(options.length, ...k), previous), 'move_on:time', elapsedMs);
  }
  const blank = isNonAnswer(answer);
  // Probes met with "I don't know" twice in a row after a real answer: the gaps are recorded, more probes would only
  // repeat them (three or four were asked), so the interview moves on. A coding round keeps its own course (waiting for
  // code, then its wrap-up question).
  if (blank && setup.style !== 'coding' && isNonAnswer(mine[mine.length - 2]?.text ?? '')) {
    return askOrClose(setup, answered, state.index + 1, 'That\'s alright, thanks.', 'move_on:no_answer', elapsedMs);
  }
  const budget = probeCount(state) < MAX_PROBES[setup.style];
  // After "I don't know" there is nothing for "Can you be more specific about how that would work?" or "Can you give
  // me a concrete example of that?" to refer to: only probes that stand on their own are asked.
  const probe = assessment.probes.find((p) => !used(state, p.id) && (p.free || budget) && !(blank && REFERS_BACK.test(p.id)));
  if (probe) {
    const ack = acknowledgement(setup, turn, probe, answer, previous);
    const next: InterviewerState = { ...answered, probes: [...state.probes, probe.id] };
    return move(next, `${ack} ${withoutOpener(probe.text, previous)}`, `probe:${probe.id}`);
  }
  if (assessment.wait && isStuck(answer)) {
    // Stuck before any code: a way in once ("Sounds good." to "I'm not sure how to start" was a bug), then patience.
    if (!used(state, 'coding:unstick')) {
      return move({ ...answered, probes: [...state.probes, 'coding:unstick'] }, 'That\'s okay. Start small: write the simplest version that handles the example, even if it\'s slow, and we can improve it from there.', 'encourage');
    }
    return move(answered, 'That\'s okay. Take it one step at a time, and tell me what you\'re thinking as you go.', 'wait');
  }
  if (assessment.wait) {
    return move(answered, fresh(['Sure, take your time. Share your code when you\'d like me to look at it.', 'Okay, keep going, and run it whenever you\'re ready.', 'I\'m here if you want to talk anything through.'], turn, previous), 'wait');
  }
  const lead = isNonAnswer(answer) ? 'That\'s alright, thanks.' : fresh(['Okay, thank you.', 'Alright, thanks.', 'Thanks for that.'], turn, previous);
  return askOrClose(setup, answered, state.index + 1, lead, 'move_on:probes', elapsedMs);
}

/**
 * A complete first answer with most of the question's time left and guidance points it did not reach: one question on
 * the first of them (the bank follow-up nearest it, else the part of the prompt about it), rather than moving on
 * after a single answer. A strong candidate otherwise finished a 45-minute plan in fifteen, never asked a follow-up,
 * and their depth went unmeasured; one question, not a hunt for every point (a structured interview moves on).
 */
function deeperProbe(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, turns: Turn[], elapsedMs: number, measured?: PointCoverage[]): Probe | null {
  if (q.keyPoints.length === 0 || probeCount(state) > 0 || used(state, 'deeper') || used(state, 'coding:wrap')) return null;
  if (elapsedMs - state.askedAtMs >= (q.minutes * 60_000) / 2) return null;
  return pointProbes(setup, q, state, measured ?? coverKeyPoints(q.keyPoints, turns), turns).find((p) => p.id.startsWith('point:') && !used(state, p.id)) ?? null;
}

function encouragement(setup: InterviewSetup, q: PlannedQuestion, answer: string): string {
  const skip = isSkipRequest(answer) ? 'We can move on if you\'d like, but let\'s give it a moment first. ' : 'That\'s okay, take a moment. ';
  const nudge: Record<RoundStyle, string> = {
    behavioral: 'It doesn\'t have to be a big or dramatic example; anything from work, study or a side project counts. Does anything come to mind?',
    technical: 'Even a partial idea is useful. How would you start thinking about it?',
    coding: 'Let\'s start small: what would a simple brute-force solution look like?',
    system_design: 'Let\'s start simple: what would the very first version look like if it only had to serve a handful of users?',
  };
  // A view has no example to find: a first thought is enough to start from.
  if (q.view) return `${skip}There's no right or wrong answer here; even a rough first thought is a good place to start. What comes to mind?`;
  return `${skip}${nudge[setup.style]}`;
}

/**
 * The answer to a clarifying question, fitting what it asks: a choice between options is left to the candidate
 * ("Either is fine…"), an assumption is accepted unless the question says otherwise, anything else is answered by
 * the round's rule of thumb. From the second on, shorter: the candidate decides and carries on.
 */
function clarification(setup: InterviewSetup, q: PlannedQuestion, state: InterviewerState, before: number, question: string): string {
  const kind = clarificationKind(question, setup.style);
  const story = setup.style === 'behavioral' && !q.view;
  const source = setup.style === 'coding' ? 'the statement' : 'the question';
  if (kind === 'rubric') {
    // Never the guidance: what helps, in the round's terms; once said, a short reminder.
    if (usedLike(state, /^clarify:\d+:rubric$/)) return 'As I said, I can\'t share that. Go ahead whenever you\'re ready.';
    const helps: Record<RoundStyle, string> = {
      behavioral: 'one specific example from your own experience, with what the situation was, what you did yourself, and how it turned out.',
      technical: 'think out loud, say what you\'re assuming, and take it step by step. I\'m as interested in your reasoning as in the answer.',
      coding: 'talk me through your approach, write it in the editor, and tell me how you\'d check that it works.',
      system_design: 'walk me through your design as you would with a colleague, say what you\'re assuming, and explain your choices.',
    };
    if (q.view) return 'I can\'t share how answers are assessed, but there\'s no right answer here: tell me what you think, and why.';
    return `I can't share how answers are assessed, but I can tell you what helps: ${helps[setup.style]}`;
  }
  if (kind === 'role') {
    // Not the round's rule of thumb ("Where the question gives figures…" to "What is the team like?" was a bug).
    return 'That\'s a fair question, but it\'s one for the hiring team, and there\'ll be a moment for your questions at the end. For now, let\'s stay with this question.';
  }
  if (kind === 'check') {
    // Neither praise nor a verdict mid-interview: the candidate carries on, and the follow-ups dig where needed.
    if (story) return rotate(['Keep going. I\'ll ask if I want more on any part.', 'Yes, carry on; I\'ll follow up where I want more detail.'], before);
    return rotate(['I won\'t say either way during the interview, but keep going, and tell me why you think it holds up.', 'Keep going; talk me through why you think it works, and I\'ll follow up where I want more.'], before);
  }
  if (kind === 'length') {
    return story ? 'A few minutes is plenty: one specific example, from start to finish. I\'ll follow up where I want more.'
      : 'A few minutes is plenty for a first answer; I\'ll follow up where I want more detail.';
  }
  if (kind === 'language') return 'Any language the editor offers is fine. Use the one you\'re most comfortable with.';
  if (kind === 'permission') {
    if (setup.style === 'behavioral') return rotate(['Yes, that\'s fine. Go ahead.', 'Yes, that works. Go ahead.'], before);
    return rotate([`Yes, that's fine, as long as ${source} doesn't rule it out. Go ahead.`, `Sure, as long as ${source} doesn't rule it out.`], before);
  }
  if (kind === 'either') {
    if (setup.style === 'behavioral' && !q.view) return rotate(['Either is fine. Pick the one you know best and remember most clearly.', 'Either works. Go with whichever you can tell me most about.'], before);
    return rotate(['Your call. Pick the one you think matters more here, say which you\'re going with and why, and carry on.', 'Either is fine. Say which one you\'re choosing and why, and carry on.'], before);
  }
  if (kind === 'assume' && (setup.style !== 'behavioral' || q.view)) {
    return rotate([`Yes, that\'s a fair assumption unless ${source} says otherwise. Say it out loud as you go, and carry on.`, `Sure, assume that, as long as ${source} doesn\'t say otherwise. Carry on.`], before);
  }
  if (before > 0 && story) {
    return rotate(['Whatever fits best is fine: pick an example where you played a real part, and go ahead.', 'That\'s up to you. Any example where you played a real part works; go ahead.'], before - 1);
  }
  if (before > 0) {
    // Shorter, but still "where it doesn't say": the statement may settle it (what an unreachable island prints).
    return rotate([`If ${source} doesn't settle it, that's your call: pick whatever seems most reasonable, say what you're assuming, and carry on.`, `Where ${source} doesn't say, I'll leave it to you: go with your best assumption, say what it is, and carry on.`], before - 1);
  }
  if (q.view) return 'Good question. Take it whichever way is most useful to you; I\'m interested in what you think, and why.';
  const text: Record<RoundStyle, string> = {
    behavioral: 'Good question. Any situation where you played a real part is fine: work, study, volunteering or a side project.',
    technical: 'Good question. Where the question doesn\'t say, make the assumption you think is most reasonable, say it out loud, and carry on.',
    coding: 'Good question. If the statement doesn\'t settle it, make a reasonable assumption, say it out loud, and carry on.',
    system_design: 'Good question. Where the question gives figures or requirements, use them; otherwise make a reasonable call, say it out loud, and carry on. I\'m more interested in how you reason from it.',
  };
  return text[setup.style];
}

// ---------------------------------------------------------------------------------------------------------------
// The candidate shared code

/** Reactions to a run that did not succeed, said once per question each. */
const RUN_REACTIONS: Partial<Record<NonNullable<CodeSnapshot['run']>['status'], (detail: string) => string>> = {
  compile_error: (d) => `Looks like it doesn't compile yet${d ? `. The first complaint is: ${d}` : ''}. Have a look, and run it again when you're ready.`,
  runtime_error: (d) => `It compiles, but it crashed while running${d ? ` (${d})` : ''}. Any idea which input triggers that?`,
  time_limit: () => 'That run hit the time limit. Is there a loop that might not finish, or is the approach too slow for the largest inputs?',
  memory_limit: () => 'That run went over the memory limit. Where do you think most of the memory is going?',
  output_limit: () => 'That run printed far more than expected. Is there a stray debug print, or a loop printing too much?',
  unavailable: () => 'I can\'t run code at the moment, so let\'s reason about it instead. Can you walk me through what it does on the example?',
};

/** The first meaningful line of the compiler's or runtime's complaint, clipped. */
function firstLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  const line = lines.find((l) => /error|exception/i.test(l)) ?? lines[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 117).replace(/\s+\S*$/, '')}…` : line;
}

export function onCode(setup: InterviewSetup, state: InterviewerState, turns: Turn[], snapshot: CodeSnapshot, elapsedMs: number): InterviewerMove | null {
  void elapsedMs;
  if (state.phase !== 'question' || setup.style !== 'coding') return null;
  const q = setup.plan[state.index];
  if (!q) return null;
  const status = snapshot.run?.status ?? null;
  if (status && status !== 'ok') {
    const id = `run:${status}`;
    const react = RUN_REACTIONS[status];
    if (!react || used(state, id)) return null;
    return move({ ...state, probes: [...state.probes, id] }, react(firstLine(snapshot.run?.stderr ?? '')), `code:${status}`);
  }
  const talk = analyseCodingTalk(turns.filter((t) => t.speaker === 'candidate' && t.questionPosition === state.index));
  const lead = status === 'ok' ? pick(['Nice, it runs.', 'Good, that runs cleanly.'], state.index, state.probes.length) : pick(['Thanks, I can see your code.', 'Okay, I can see it.'], state.index, state.probes.length);
  const v = (options: string[]) => pick(options, q.position, probeCount(state));
  const next: Array<[string, string, boolean]> = [
    ['coding:complexity', v(['What\'s the time and space complexity of your solution?', 'How does your solution scale, in time and in memory?']), !talk.complexity],
    ['coding:tests', v(['How would you test it? Which edge cases would you try?', 'How would you convince yourself it\'s correct? What inputs would you test it with?']), !talk.testing],
    ['coding:wrap', 'Is there anything you\'d change before we move on?', status === 'ok'],
  ];
  const [id, text] = next.find(([pid, , wanted]) => wanted && !used(state, pid)) ?? [];
  if (!id) return null;
  return move({ ...state, probes: [...state.probes, id] }, `${lead} ${text}`, `probe:${id}`);
}
