/**
 * Answer understanding for the built-in interviewer and the report: what a candidate's answer to one question holds
 * (the parts of a STAR story, the bank's guidance points, the phases of a system design, the talk around code).
 * Pure and deterministic: sentence-level cue lexicons and weighted word overlap, no model. Every finding carries a
 * verbatim excerpt of the candidate's words (Evidence), so a report can quote it and a reader can check it.
 */
import { BoundedMap, memoByText } from '../../../platform/bounded-map.js';
import { atCodePoint } from '../../../platform/text.js';
import type { Turn } from './types.js';

/** A verbatim excerpt of one candidate turn: at most 200 characters, cut at word boundaries with "…" where cut; always a substring of the turn's text apart from the ellipses. */
export interface Evidence { seq: number; quote: string }

export type StarPart = 'situation' | 'task' | 'action' | 'result';
export interface StarAnalysis {
  situation: Evidence | null; task: Evidence | null; action: Evidence | null; result: Evidence | null;
  missing: StarPart[];           // in S,T,A,R order
  /** Who acted: "i" (first person singular dominates action statements), "we", "mixed", or "unclear". */
  ownership: 'i' | 'we' | 'mixed' | 'unclear';
}
export interface PointCoverage { index: number; point: string; covered: Evidence | null; /** 0..1 */ score: number }
export type DesignPhase = 'requirements' | 'scale' | 'data' | 'trade_offs' | 'failure';
export const DESIGN_PHASES: DesignPhase[] = ['requirements', 'scale', 'data', 'trade_offs', 'failure'];
export interface CodingTalk { approach: Evidence | null; complexity: Evidence | null; testing: Evidence | null }

/** A quote is at most this long, ellipses included. */
export const QUOTE_MAX_CHARS = 200;
/** A cue lexicon finds a part in a sentence when the sentence's cue weights add up to this (one strong cue, or two weak ones). */
export const CUE_THRESHOLD = 2;
/** A guidance point is covered when this share of its (distinctiveness-weighted) terms is in the answer. */
export const POINT_COVERED_THRESHOLD = 0.35;
/** Sentences longer than this many words (unpunctuated speech) are cut into clauses. */
const LONG_SENTENCE_WORDS = 35;
/**
 * An answer's texts and sentences are read again on every later turn of its question (and by the report): what is
 * worked out from one text alone is kept for this many texts per kind of reading.
 */
const TEXT_MEMO = 20_000;
const SENTENCE_MEMO = 10_000;

/** Lower-cased word tokens (letters/digits, unicode aware). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// ---------------------------------------------------------------------------------------------------------------
// Words: stop words and stemming

/**
 * Words that carry no content for matching: English function words, and the verbs guidance is written with for
 * graders ("Recognises …", "Explains …"), which a candidate's answer would never need to repeat.
 */
const STOP_WORDS = new Set((
  'a about above after again against all also am an and any are aren as at be because been before being below between both but by ' +
  'can cannot could couldn did didn do does doesn doing don down during each either etc few for from further had hadn has hasn have ' +
  'haven having he her here hers herself him himself his how however i if in into is isn it its itself just let lets like me might ' +
  'more most much must mustn my myself need needs no nor not now of off on once one only or other our ours ourselves out over own ' +
  'per rather really same shall she should shouldn so some such than that the their theirs them themselves then there these they ' +
  'this those through to too under until up upon us very via was wasn way we were weren what when where whether which while who ' +
  'whom whose why will with within without won would wouldn yes yet you your yours yourself yourselves eg ie e g vs ' +
  'thing things something anything everything lot lots maybe probably actually basically well okay ok um uh yeah ' +
  // grader verbs and guidance filler
  'recognise recognises recognize recognizes recognising recognizing explain explains explaining mention mentions mentioning ' +
  'describe describes describing show shows showing state states stating give gives giving handle handles handling note notes noting ' +
  'identify identifies identifying use uses using used propose proposes proposing choose chooses choosing offer offers offering ' +
  'name names naming consider considers considering discuss discusses discussing demonstrate demonstrates distinguish distinguishes ' +
  'acknowledge acknowledges understand understands know knows suggest suggests point points clearly correctly explicitly ' +
  'candidate candidates answer interviewer strong good appropriate appropriately specific concrete real version form forms ' +
  'generally usually often simply properly whole entire write exactly precisely explicitly briefly correct'
).split(/\s+/));

export const isStopWord = (w: string) => STOP_WORDS.has(w);

/**
 * Light suffix stripping so "routes"/"route", "building"/"builds", "initialises"/"initialized" meet: British -ise to
 * -ize, then -ies, -es, -s, -ing, -ed, then a final -e. Deliberately crude; both sides go through the same steps.
 */
export function stem(word: string): string {
  let w = word.replace(/'s$/, '');
  if (w.length <= 3 || /\d/.test(w)) return w;
  w = w.replace(/is(e|es|ed|ing|ation|ations)$/, 'iz$1').replace(/ys(e|es|ed|ing)$/, 'yz$1').replace(/(?<=..)ness$/, '');
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w) && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length - 3 >= 4) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length - 2 >= 3) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

/** "mapp" → "map", "runn" → "run" (not "add" → "ad", nor -ll/-ss/-zz). */
function undouble(w: string): string {
  return w.length >= 4 && /([b-df-hj-kmnp-rt-y])\1$/.test(w) ? w.slice(0, -1) : w;
}

// ---------------------------------------------------------------------------------------------------------------
// Sentences and quotes

/** A span of one turn's text: the unit cues are found in and evidence is quoted from. */
export interface Sentence { seq: number; text: string; start: number; end: number }

const sentenceText = (s: Sentence) => s.text.slice(s.start, s.end);
/** Cue matching reads a normalised copy of the same length (so match offsets are offsets into the sentence). */
const normalised = (s: string) => s.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");

/** The candidate's text turns (interviewer turns, code and board notices are not the candidate's words). */
export function candidateTexts(turns: Turn[]): Turn[] {
  return turns.filter((t) => t.speaker === 'candidate' && t.kind === 'text' && t.text.trim().length > 0);
}

/**
 * The sentences of the candidate's turns, in order: split at . ! ? ; followed by a space, at line breaks and list
 * bullets; an over-long unpunctuated run (speech recognition rarely punctuates) is cut into clauses at commas and
 * "and then / so / but / because".
 */
export function sentencesOf(turns: Turn[]): Sentence[] {
  const out: Sentence[] = [];
  for (const turn of candidateTexts(turns)) {
    for (const [start, end] of sentenceSpans(turn.text)) out.push({ seq: turn.seq, text: turn.text, start, end });
  }
  return out;
}

/** Where one text's sentences are: [start, end) offsets. */
const sentenceSpans = memoByText((text: string): ReadonlyArray<readonly [number, number]> => {
  const out: Array<[number, number]> = [];
  const cuts = [0];
  for (const m of text.matchAll(/[.!?;]+(?=\s)|\n+/g)) cuts.push(m.index + m[0].length);
  cuts.push(text.length);
  for (let i = 0; i + 1 < cuts.length; i++) {
    let start = cuts[i];
    let end = cuts[i + 1];
    // Trim whitespace and bullet / numbering markers ("- ", "* ", "• ", "1. ", "2) ").
    const lead = /^\s*(?:(?:[-*•]|\d{1,2}[.)])\s+)?/.exec(text.slice(start, end))!;
    start += lead[0].length;
    while (end > start && /\s/.test(text[end - 1])) end--;
    if (end <= start || !/[\p{L}\p{N}]/u.test(text.slice(start, end))) continue;
    out.push(...clauses(text, start, end));
  }
  return Object.freeze(out);
}, TEXT_MEMO, 16_000);

/** Cuts a long span into clauses of at least a few words each; a short span is returned whole. */
function clauses(text: string, start: number, end: number): Array<[number, number]> {
  const span = text.slice(start, end);
  if (words(span).length <= LONG_SENTENCE_WORDS) return [[start, end]];
  const cuts: number[] = [];
  for (const m of span.matchAll(/,\s+|\s+(?=(?:and then|and so|so|but|because|then|after that|which meant|and (?:i|we|in the end|as a result|eventually|finally))\s)/gi)) cuts.push(m.index + m[0].length);
  const out: Array<[number, number]> = [];
  let from = 0;
  for (const cut of cuts) {
    if (words(span.slice(from, cut)).length >= 6 && words(span.slice(cut)).length >= 4) {
      out.push([start + from, start + trimEnd(span, from, cut)]);
      from = cut;
    }
  }
  out.push([start + from, end]);
  return out;
}

function trimEnd(s: string, from: number, to: number): number {
  while (to > from && /[\s,]/.test(s[to - 1])) to--;
  return to;
}

/**
 * A quote of `text[start, end)`: whole when short enough, else a window of whole words around `focus` with "…" where
 * cut. Always a substring of `text` apart from the ellipses, and at most QUOTE_MAX_CHARS long.
 */
export function excerpt(text: string, start: number, end: number, focus = start): string {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (end - start <= QUOTE_MAX_CHARS) return text.slice(start, end);
  const room = QUOTE_MAX_CHARS - 2;
  let from = Math.max(start, Math.min(focus - 60, end - room));
  if (from > start && !/\s/.test(text[from - 1])) {
    const space = text.slice(from, from + 40).search(/\s/);
    if (space >= 0) from += space;
  }
  from = atCodePoint(text, from);
  while (from < end && /\s/.test(text[from])) from++;
  let to = Math.min(end, from + room);
  if (to < end) {
    const lastSpace = text.slice(from, to + 1).search(/\s\S*$/);
    if (lastSpace > 0) to = from + lastSpace;
    else to = atCodePoint(text, to); // a run without spaces (emoji, an unspaced script): never half an emoji
  }
  while (to > from && /[\s,;:]/.test(text[to - 1])) to--;
  return `${from > start ? '…' : ''}${text.slice(from, to)}${to < end ? '…' : ''}`;
}

const evidenceOf = (s: Sentence, focus?: number): Evidence => ({ seq: s.seq, quote: excerpt(s.text, s.start, s.end, focus === undefined ? s.start : s.start + focus) });

// ---------------------------------------------------------------------------------------------------------------
// Cue lexicons

/** A cue: a pattern over the normalised sentence and its weight (2: enough alone; 1: needs company). */
type Cue = [RegExp, number];

interface CueHit { score: number; focus: number }

/** The weight of the cues a sentence holds (each cue counted once), and where the strongest first appears. */
function cueScore(sentence: string, cues: Cue[]): CueHit {
  let score = 0;
  let focus = -1;
  let focusWeight = 0;
  for (const [pattern, weight] of cues) {
    const m = pattern.exec(sentence);
    if (!m) continue;
    score += weight;
    if (weight > focusWeight) { focus = m.index; focusWeight = weight; }
  }
  return { score, focus: Math.max(0, focus) };
}

/**
 * Reads sentences against a set of lexicons (the parts of STAR, the phases of a design): for each lexicon, the best
 * sentence (earliest on ties) when it reaches the threshold. A sentence's scores are kept.
 */
function lexiconReader<P extends string>(lexicons: Record<P, Cue[]>): (sentences: Sentence[]) => Record<P, Evidence | null> {
  const parts = Object.keys(lexicons) as P[];
  const scores = memoByText((sentence: string) => Object.freeze(parts.map((p) => cueScore(sentence, lexicons[p]))), SENTENCE_MEMO);
  return (sentences) => {
    const best: Array<{ s: Sentence; hit: CueHit } | null> = parts.map(() => null);
    for (const s of sentences) {
      const hits = scores(normalised(sentenceText(s)));
      hits.forEach((hit, i) => {
        if (hit.score >= CUE_THRESHOLD && (!best[i] || hit.score > best[i].hit.score)) best[i] = { s, hit };
      });
    }
    return Object.fromEntries(parts.map((p, i) => [p, best[i] ? evidenceOf(best[i].s, best[i].hit.focus) : null])) as Record<P, Evidence | null>;
  };
}

// Past-tense verbs people use when telling what they did (regular "-ed" verbs are matched by shape).
const IRREGULAR_PAST = 'built|rebuilt|wrote|rewrote|made|took|set|ran|went|led|spoke|told|met|found|brought|drove|gave|got|put|sat|began|chose|drew|kept|sent|spent|broke|caught|held|left|sought|taught|dug|fought|shut|split|cut|rolled|wound|stood|understood|undertook|overcame|did|redid|bought|sold|hired|paid|laid|shipped';
// "-ed" words that are states, wishes or feelings rather than something the speaker did.
const NOT_ACTIONS = new Set(['needed', 'wanted', 'used', 'liked', 'loved', 'enjoyed', 'hoped', 'expected', 'learned', 'tired', 'supposed', 'interested', 'excited', 'worried', 'scared', 'bored', 'based', 'related', 'involved', 'required', 'assigned', 'tasked', 'asked', 'concerned', 'annoyed', 'stressed', 'overwhelmed', 'confused', 'surprised', 'pleased', 'happened', 'seemed', 'belonged', 'owned', 'succeeded']);
// What follows "I would" / "I'd" when it states a wish, a need or an opinion rather than a step ("I would need to know
// more", "I'd rather not commit"): the present-tense counterparts of NOT_ACTIONS.
const WISHES = 'have|be|say|like|guess|think|imagine|need|rather|want|prefer|hope|love|hate|wish|know|expect|feel|suppose|assume';
const ADVERB = '(?:(?:then|also|first|quickly|eventually|finally|immediately|personally|just|actually|basically|really|initially|later|next|ultimately|myself|ourselves|all|together|both)\\s+)?';
/**
 * "<subject> [adverb] <past verb>" statements (states, wishes and feelings excluded), and "I would / I'd / I'll
 * <verb>" for situational answers. Not global: exec and test stay stateless; counting uses a global copy.
 */
const actionStatement = (subject: string) => new RegExp(`\\b${subject}\\s+${ADVERB}(?:(?:${IRREGULAR_PAST})|(?!(?:${[...NOT_ACTIONS].join('|')})\\b)[a-z]{3,}ed|(?:would|'d|will|'ll)\\s+(?!(?:${WISHES})\\b)[a-z]{3,})\\b`);
const I_ACTION = actionStatement('i');
const WE_ACTION = actionStatement('we');

const I_ACTIONS = new RegExp(I_ACTION.source, 'g');
const WE_ACTIONS = new RegExp(WE_ACTION.source, 'g');
/** A past-tense verb that shares the subject before it: "I rolled back the deploy, wrote a script and then added a test". */
const CHAINED = new RegExp(`(?:,\\s*(?:and\\s+)?(?:then\\s+)?|\\s+(?:and\\s+)?then\\s+|\\s+and\\s+)${ADVERB}(?:(?:${IRREGULAR_PAST})|(?!(?:${[...NOT_ACTIONS].join('|')})\\b)[a-z]{3,}ed)\\b`, 'g');
/**
 * How many action statements of the speaker's own, and of the team's, a (normalised) sentence holds; a verb chained to
 * one ("…, wrote a script and added a test") counts for the subject of the action statement before it.
 */
const actionCounts = memoByText((sentence: string) => {
  const subjects = [...[...sentence.matchAll(I_ACTIONS)].map((m) => [m.index, 0] as const), ...[...sentence.matchAll(WE_ACTIONS)].map((m) => [m.index, 1] as const)]
    .sort((a, b) => a[0] - b[0]);
  const counts = [0, 0];
  for (const [, who] of subjects) counts[who]++;
  for (const m of sentence.matchAll(CHAINED)) {
    const before = subjects.filter(([at]) => at < m.index).at(-1);
    if (before) counts[before[1]]++;
  }
  return Object.freeze([counts[0], counts[1]] as const);
}, SENTENCE_MEMO);

const SITUATION: Cue[] = [
  [/\b(?:at|in) my (?:last|previous|current|old|first|second|former) (?:job|company|role|team|employer|internship|position|workplace|startup)\b/, 2],
  [/\b(?:when|while) i was (?:at|working|on|in|a|an|the|leading|interning|studying)\b/, 2],
  [/\b(?:when|after|before|soon after) i (?:joined|started|moved|arrived|took over|inherited)\b/, 2],
  [/\bmy (?:current|new|previous|last|old|first) (?:team|company|job|role|employer|manager|project)\b/, 2],
  [/\b(?:last|this|that|the previous|a few|two|three|several|a couple of) (?:year|years|months?|quarters?|summer|winter|spring|autumn|fall|weeks?|sprints?)(?: ago)?\b/, 2],
  [/\b(?:in|back in|during) (?:19|20)\d\d\b/, 2],
  [/\b(?:there was a time|one time|a while back|a while ago|a few years back)\b/, 2],
  [/\bwe had (?:a|an|this|some|one|two|three|no|to deal)\b/, 2],
  [/\b(?:the|our|my) (?:team|company|project|product|client|customer|system|codebase|service|app|platform|startup|org|organisation|organization|manager|lead|department) (?:was|were|had|used|ran|needed)\b/, 2],
  [/\bi was (?:working|a|an|the|on|at|part of|one of|leading|interning|new)\b/, 2],
  [/\b(?:context|background|situation) (?:was|is)\b/, 2],
  [/\b(?:the|a|one) (?:problem|issue|challenge) was\b/, 1],
  [/\b(?:we were|they were|it was) (?:using|running|building|migrating|behind|under|facing|struggling|losing|getting|about to)\b/, 2],
  [/\b(?:at|in) (?:my|our|a|the) (?:company|startup|team|job|internship|university|school|agency|bank|store)\b/, 1],
  [/\b(?:company|startup|team|project|client|customer|deadline|launch|release|production|incident|outage)\b/, 1],
  [/\b(?:recently|once|previously)\b/, 1],
];

const TASK: Cue[] = [
  [/\bi was (?:responsible|in charge|tasked|asked|assigned|supposed|expected|the owner|the one|on call|hired to|brought in)\b/, 2],
  [/\bmy (?:goal|task|job|role|responsibility|objective|mission|assignment|part|remit) (?:was|is|there was)\b/, 2],
  [/\b(?:the|our) (?:goal|objective|aim|task|ask|mandate|target|challenge) (?:was|is)\b/, 2],
  [/\b(?:i|we) (?:needed|had|have|need|were asked|was asked|wanted) to\b/, 2],
  [/\bi (?:owned|took ownership|volunteered|was trying to|set out to|had to figure out)\b/, 2],
  [/\bmy (?:manager|lead|boss|director|team lead|tech lead|pm|product manager) (?:asked|wanted|needed|gave) me\b/, 2],
  [/\b(?:was|were) (?:supposed|meant|expected) to\b/, 2],
  [/\b(?:deadline|by (?:monday|tuesday|wednesday|thursday|friday|the end of|end of)|within (?:a|one|two|three|four|\d+) (?:days?|weeks?|months?|hours?))\b/, 1],
  [/\b(?:so that|in order to|make sure|ensure)\b/, 1],
];

const ACTION: Cue[] = [
  [I_ACTION, 2],
  [WE_ACTION, 2],
  [/\b(?:so|then|and|first|next|after that) i\b/, 1],
  [/\bmy (?:approach|plan|first step|solution|idea) (?:was|is)\b/, 2],
  [/\bi (?:started|began) (?:by|with|to)\b/, 2],
  [/\bi'm going to\b|\bi am going to\b|\bi'd start\b|\bi would start\b/, 2],
];

const RESULT: Cue[] = [
  [/\b(?:as a result|the end result|end result)\b/, 2],
  // "In the end", "ultimately", "eventually" announce an outcome only when one follows ("in the end the team agreed…",
  // "in the end it was fine"); alone they are as often filler ("at the end of the day it depends…"), context ("in the
  // end of 2022…") or a non-result ("in the end I'm not sure what happened"), so alone they need company.
  [new RegExp(`\\b(?:in the end(?! of\\b)|ultimately|eventually|at the end of the day|in the long run)\\b,?\\s+(?:[a-z']+\\s+){0,4}?(?:(?:${IRREGULAR_PAST})|(?!(?:${[...NOT_ACTIONS].join('|')})\\b)[a-z]{3,}ed|(?:was|were)\\s+(?:(?:all|really|pretty|very|quite|mostly|much)\\s+)?(?:fine|good|great|ok|okay|happy|happier|successful|a success|better|resolved|solved|done|live|stable|faster|smooth|smoother|worth it))\\b`), 2],
  [/\b(?:in the end(?! of\b)|ultimately|eventually|at the end of the day|in the long run)\b/, 1],
  [/\d+(?:[.,]\d+)?\s?(?:%|percent|per cent|x\b|times\b|ms\b|milliseconds|seconds|minutes|hours|days|weeks|months|years|k\b|users|customers|requests|tickets|bugs|incidents|dollars|euros|pounds)/, 2],
  [/[$€£]\s?\d/, 2],
  [/\bcut (?:\w+ )?(?:by|from|in half)\b|\b(?:reduced|increased|improved|saved|dropped|doubled|tripled|halved|grew|boosted|lowered|raised|decreased|sped up|fell|shrank)\b/, 2],
  [/\b(?:shipped|launched|released|delivered|went live|rolled out|deployed|completed|finished|met the deadline|hit the deadline|on time|on schedule|ahead of schedule)\b/, 2],
  [/\b(?:learned|learnt|lesson|taught me|takeaway|next time|do differently|in hindsight|looking back|since then|ever since|from then on)\b/, 2],
  [/\b(?:outcome|result|impact|effect) (?:was|is|were)\b/, 2],
  // Feedback is an outcome when it was good; "I got feedback that…", "I asked for feedback" are the story, not its end.
  [/\b(?:positive|good|great|glowing|excellent|strong|amazing) feedback\b|\bfeedback (?:was|has been|were) (?:very |really |overwhelmingly )?(?:positive|good|great|glowing|excellent)\b/, 2],
  [/\b(?:promoted|praised|thanked|recognized|recognised|never happened again|hasn'?t happened since|happy with|satisfied|adopted|still (?:in use|used|running))\b/, 2],
  [/\b(?:it worked|worked out|paid off|that fixed|which fixed|was fixed|got fixed|resolved|solved|succeeded|success(?:ful)?)\b/, 2],
  [/\b(?:fixed|stable|faster|slower|cheaper|better|fewer|less|more reliable|happy|happier|pleased|relieved|easier|smoother)\b/, 1],
];

/** Phrases that talk around a question instead of answering it ("it really depends on the context"). */
const EVASION = /\b(?:(?:that'?s|it'?s|what) (?:a |such a )?(?:great|good|really good|very good|interesting|tough|difficult|fair) question|(?:it )?(?:all |really |just |always )?depends (?:on|upon)\b|it (?:all |really |just |always )?depends\b|(?:many|different|various|lots of) (?:ways|angles|perspectives|factors|considerations)|a lot of (?:factors|things|variables|considerations)|every (?:situation|team|case|company|project|person|context) is (?:a bit |really |quite )?different|case[- ]by[- ]case|there'?s no (?:one|single|right|perfect|simple) (?:answer|way|solution)|one[- ]size[- ]fits[- ]all|at the end of the day|(?:hard|difficult) to (?:say|tell)|it'?s (?:complicated|nuanced|complex)|in (?:different|many) ways)/gi;
/** How many distinct evasive phrases a text holds (the report's and the interviewer's reading of talking around a question). */
export const evasionCount = (text: string) => new Set((text.match(EVASION) ?? []).map((m) => m.toLowerCase())).size;

// ---------------------------------------------------------------------------------------------------------------
// STAR

const readStar = lexiconReader({ situation: SITUATION, task: TASK, action: ACTION, result: RESULT });

export function analyseStar(turns: Turn[]): StarAnalysis {
  const sentences = sentencesOf(turns);
  const parts = readStar(sentences);
  const missing = (['situation', 'task', 'action', 'result'] as StarPart[]).filter((p) => parts[p] === null);
  return { ...parts, missing, ownership: ownershipOf(sentences) };
}

/**
 * "i" when the speaker's own action statements outnumber the team's two to one, "we" the other way round. Counted in
 * whole sentences as punctuated, not the clauses a long one is cut into: "…i rolled back the deploy then wrote a
 * refund script…" shares one "i".
 */
function ownershipOf(sentences: Sentence[]): StarAnalysis['ownership'] {
  let mine = 0;
  let ours = 0;
  const texts = new Map(sentences.map((s) => [s.seq, s.text]));
  for (const text of texts.values()) {
    for (const sentence of normalised(text).split(/[.!?;]+(?=\s)|\n+/)) {
      const [i, we] = actionCounts(sentence);
      mine += i;
      ours += we;
    }
  }
  if (mine === 0 && ours === 0) return 'unclear';
  if (mine >= 2 * ours) return 'i';
  if (ours >= 2 * mine) return 'we';
  return 'mixed';
}

// ---------------------------------------------------------------------------------------------------------------
// Guidance points

/**
 * The content terms of a text for matching against guidance: technical phrases folded to one token (so "BFS" meets
 * "breadth-first search"), complexity expressions normalised ("O(n + m)" → linear), stop words and grader verbs
 * dropped, light stemming.
 */
export const terms: (text: string) => readonly string[] = memoByText((text) => Object.freeze(computeTerms(text)), TEXT_MEMO);
/** A text's distinct terms. */
const termSet: (text: string) => ReadonlySet<string> = memoByText((text) => new Set(terms(text)), TEXT_MEMO);
const distinctTerms: (text: string) => readonly string[] = memoByText((text) => Object.freeze([...termSet(text)]), TEXT_MEMO);

function computeTerms(text: string): string[] {
  let t = normalised(text).replace(/[\u2010-\u2015]/g, '-');
  t = t.replace(/\bo\s*\(\s*([^()]{1,24}?(?:\([^()]{0,10}\))?[^()]{0,10}?)\s*\)/g, (_, inner: string) => ` ${complexityToken(inner)} complexity `);
  for (const [pattern, replacement] of PHRASES) t = t.replace(pattern, replacement);
  const out: string[] = [];
  for (const raw of t.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    if (raw.length < 2 || isStopWord(raw)) continue;
    const s = stem(raw);
    if (s.length >= 2 && !isStopWord(s)) out.push(s);
  }
  return out;
}

/** O(inner) as a word: the common classes by name, anything else spelt out. */
function complexityToken(inner: string): string {
  const s = inner.replace(/\s+/g, '').replace(/\*\*/g, '^').replace(/²/g, '^2').replace(/·|×/g, '*');
  if (/^1$/.test(s)) return 'constant';
  if (/^log\(?[a-z]\)?$/.test(s)) return 'logarithmic';
  if (/^[a-z](?:\+[a-z])*$/.test(s)) return 'linear';
  if (/log/.test(s)) return 'nlogn';
  if (/^[a-z]\^2$|^[a-z]\*[a-z]$|^\([a-z]\+[a-z]\)\^2$/.test(s)) return 'quadratic';
  return `o_${s.replace(/[^a-z0-9]+/g, '_')}`;
}

/** Phrases folded to one token before splitting into words (synonyms for common CS terms). */
const PHRASES: Array<[RegExp, string]> = [
  [/\bbreadth[\s-]*first(?:[\s-]*search(?:es|ing)?)?\b/g, ' bfs '],
  [/\bdepth[\s-]*first(?:[\s-]*search(?:es|ing)?)?\b/g, ' dfs '],
  [/\bhash[\s-]*(?:map|table|set)s?\b|\bdictionar(?:y|ies)\b|\bdicts?\b|\bhashmaps?\b|\bhashsets?\b|\bassociative arrays?\b/g, ' hashmap '],
  [/\b(?:priority[\s-]*queues?|min[\s-]*heaps?|max[\s-]*heaps?|heaps?)\b/g, ' heap '],
  [/\bdynamic[\s-]*programming\b|\bmemoi[sz]\w*/g, ' dp '],
  [/\bbinary[\s-]*search\w*/g, ' binarysearch '],
  [/\btwo[\s-]*pointers?\b/g, ' twopointer '],
  [/\bsliding[\s-]*windows?\b/g, ' slidingwindow '],
  [/\bunion[\s-]*find\b|\bdisjoint[\s-]*sets?(?:[\s-]*union)?\b|\bdsu\b/g, ' unionfind '],
  [/\btopological(?:ly)?[\s-]*(?:sort\w*|order\w*)|\btoposort\b|\bkahn'?s\b/g, ' toposort '],
  [/\blinked[\s-]*lists?\b/g, ' linkedlist '],
  [/\badjacency[\s-]*(?:lists?|maps?|sets?)\b/g, ' adjacency '],
  [/\bkey[\s-]*value\b/g, ' keyvalue '],
  [/\btime[\s-]*to[\s-]*live\b/g, ' ttl '],
  [/\bleast[\s-]*recently[\s-]*used\b/g, ' lru '],
  [/\bdatabases?\b|\bdbs?\b/g, ' database '],
  [/\bun[\s-]*directed\b|\bbi[\s-]*directional(?:ly)?\b|\btwo[\s-]*ways?\b|\bboth[\s-]*(?:ways|directions)\b|\bin both directions\b/g, ' undirected '],
  [/\b(?:edge|corner|boundary)[\s-]*cases?\b/g, ' edgecase '],
  [/\b(?:unit|integration|end[\s-]*to[\s-]*end|property[\s-]*based)[\s-]*tests?\b/g, ' test '],
  [/\bn\s*log\s*n\b|\bnlogn\b|\blog[\s-]*linear\b|\blinearithmic\b/g, ' nlogn complexity '],
  [/\blinear(?:ly)?[\s-]+(?:time|space|memory|in)\b/g, ' linear complexity '],
  [/\bquadratic(?:ally)?\b/g, ' quadratic complexity '],
  [/\blogarithmic(?:ally)?\b|\blog[\s-]+(?:time|n)\b/g, ' logarithmic complexity '],
  [/\bconstant[\s-]*(?:time|space|memory|extra space)\b/g, ' constant complexity '],
  [/\b(?:time|space|memory)[\s-]*complexit(?:y|ies)\b|\bbig[\s-]*o\b|\bcomplexit(?:y|ies)\b|\bruntime\b/g, ' complexity '],
  [/\bcach(?:e|es|ed|ing)\b/g, ' cache '],
  [/\bshard(?:s|ed|ing)?\b|\bpartition(?:s|ed|ing)?\b/g, ' partition '],
  [/\breplica(?:s|ted|tion|te)?\b/g, ' replica '],
  [/\bidempoten(?:t|cy|ce)\b/g, ' idempotent '],
  [/\b(?:en|de)queu\w*/g, ' queue '],
  [/\bvisited\b|\bseen\b/g, ' visit '],
  [/\bqps\b|\brps\b|\b(?:requests?|writes|reads|queries|clicks) (?:per|a) second\b|\b(?:requests?|writes|reads|clicks)\/s\b/g, ' qps '],
  [/\bjavascript\b/g, ' js '],
  [/\bnot[\s-]+exists\b/g, ' notexists '],
  [/\bnot[\s-]+in\b/g, ' notin '],
  [/\bleft[\s-]+(?:outer[\s-]+)?joins?\b/g, ' leftjoin '],
  [/\binner[\s-]+joins?\b/g, ' innerjoin '],
];

/**
 * The idf of a question's guidance points: the same few sets of points on every turn, kept by the list (a process
 * keeps each interview's setup) and by its content. A point's terms include those of its units (pointUnits): taking an
 * example list out can join the words around it into a folded term the whole point does not have ("Key (e.g. the
 * user id) value store" → "keyvalue"), which had no weight and made the point's score NaN.
 */
function pointsIdf(points: readonly string[]): Map<string, number> {
  let idf = idfByList.get(points);
  if (idf) return idf;
  const key = points.join('\u0001');
  idf = idfByContent.get(key);
  if (!idf) {
    const docs = points.map((p) => { const u = pointUnits(p); return [...distinctTerms(p), ...u.main, ...u.groups.flatMap((g) => g.terms)]; });
    idfByContent.set(key, (idf = idfOver(docs)));
  }
  idfByList.set(points, idf);
  return idf;
}
const idfByList = new WeakMap<readonly string[], Map<string, number>>();
const idfByContent = new BoundedMap<string, Map<string, number>>(2000);

/** Each token's inverse document frequency over these texts' tokens (how distinctive it is among them). */
function idfOver(docs: ReadonlyArray<readonly string[]>): Map<string, number> {
  const df = new Map<string, number>();
  for (const doc of docs) for (const t of new Set(doc)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [t, n] of df) idf.set(t, Math.log(1 + docs.length / n));
  return idf;
}

/**
 * A guidance point as units to find: each content term of its main text, and each list of examples, in parentheses or
 * after "e.g." / "such as" ("(revert, feature flag, hotfix, data correction)"), as one unit that any one of its
 * examples satisfies: the candidate needs one example, not all of them. In parentheses, where the examples are names,
 * an example is named by its head word, the last before any "of", "for", "versus"… ("flag" in "feature flag",
 * "testing" in "testing of critical paths"): the words that only qualify it do not name it alone ("feature" is not a
 * feature flag, nor "data" a data correction). An example of more than three words, and any after "e.g." (often
 * prose: "what users touch on day one"), is matched by any of its words.
 */
interface PointUnits { main: string[]; groups: ExampleList[] }
interface ExampleList {
  /** Every distinct term of the list (its weight is their average). */
  terms: string[];
  /** Each example's head term. */
  heads: string[];
}

function exampleList(list: string, names: boolean): ExampleList {
  const examples = list.split(/,|;|\/|\bor\b|\band\b|\betc\b/i);
  const heads = examples.flatMap((example) => {
    const all = terms(example);
    if (!names || all.length > 3) return all; // a phrase, not a name ("what users touch on day one"): any of its words
    const named = terms(example.split(/\b(?:of|for|with|versus|vs|per|to|from|on|in|at|by|about|that|which|when|where)\b/i)[0]!);
    return named.length > 0 ? [named.at(-1)!] : all.slice(-1);
  });
  return { terms: [...new Set(examples.flatMap((example) => terms(example)))], heads: [...new Set(heads)] };
}

const pointUnits = memoByText((point: string): PointUnits => {
  const groups: ExampleList[] = [];
  // Parentheses after a space (not O(n) or COUNT(*)), and example lists up to the end of their clause.
  const rest = point
    .replace(/(?<=\s)\(([^()]{3,})\)/g, (_, inner: string) => { groups.push(exampleList(inner, true)); return ' '; })
    .replace(/\b(?:e\.g\.|for example|such as)[:,]?\s+([^;.()]+)/gi, (_, list: string) => { groups.push(exampleList(list, false)); return ' '; });
  const inGroups = new Set(groups.flatMap((g) => g.terms));
  return { main: [...new Set(terms(rest))].filter((t) => !inGroups.has(t)), groups: groups.filter((g) => g.terms.length > 0) };
}, TEXT_MEMO);

/**
 * Which guidance points the answer covers. A point's score is the share of its units (terms weighted by how
 * distinctive they are among the question's points; an example list weighted as its average term) found in the best
 * window of up to three consecutive candidate sentences; the point is covered at POINT_COVERED_THRESHOLD, with the
 * best-matching single sentence as evidence.
 */
export function coverKeyPoints(keyPoints: string[], turns: Turn[]): PointCoverage[] {
  const idf = pointsIdf(keyPoints);
  const units = keyPoints.map((point) => pointUnits(point));
  const sentences = sentencesOf(turns);
  const sentenceTerms = sentences.map((s) => termSet(sentenceText(s)));
  return keyPoints.map((point, index) => {
    const { main, groups } = units[index];
    const groupWeight = groups.map((g) => g.terms.reduce((sum, t) => sum + idf.get(t)!, 0) / g.terms.length);
    const total = main.reduce((sum, t) => sum + idf.get(t)!, 0) + groupWeight.reduce((a, b) => a + b, 0);
    // The point's units (its main terms, then its example lists) each sentence holds; a window holds what any of its
    // sentences does. Weights are added in the units' order, as the sum over the window's terms would be.
    const unitWeight = [...main.map((t) => idf.get(t)!), ...groupWeight];
    const holds = sentenceTerms.map((have) => [...main.map((t) => have.has(t)), ...groups.map((g) => g.heads.some((t) => have.has(t)))]);
    const weight = (held: boolean[]) => {
      let mainSum = 0;
      let groupSum = 0;
      for (let k = 0; k < held.length; k++) if (held[k]) k < main.length ? (mainSum += unitWeight[k]) : (groupSum += unitWeight[k]);
      return total === 0 ? 0 : (mainSum + groupSum) / total;
    };
    let score = 0;
    let best = -1;
    let bestSingle = 0;
    for (let i = 0; i < sentences.length; i++) {
      const single = weight(holds[i]);
      if (single > bestSingle) { bestSingle = single; best = i; }
      score = Math.max(score, single);
      const window = [...holds[i]];
      for (let j = i + 1; j < Math.min(sentences.length, i + 3); j++) {
        for (let k = 0; k < window.length; k++) window[k] ||= holds[j][k];
        score = Math.max(score, weight(window));
      }
    }
    score = Math.round(score * 1000) / 1000;
    const covered = score >= POINT_COVERED_THRESHOLD && best >= 0 ? evidenceOf(sentences[best], focusOf(sentences[best], [...main, ...groups.flatMap((g) => g.terms)])) : null;
    return { index, point, covered, score };
  });
}

/** Where the first of the wanted terms appears in a sentence (for the quote's window). */
function focusOf(s: Sentence, wanted: string[]): number {
  const text = normalised(sentenceText(s));
  const want = new Set(wanted);
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) if (want.has(stem(m[0]))) return m.index;
  return 0;
}

/**
 * How close a text (e.g. a bank follow-up) comes to a guidance point: the weighted share of the point's terms it
 * shares, weights from the point set's IDF. Used to pick the follow-up that best probes an uncovered point.
 */
export function relatedness(point: string, text: string, allPoints: string[]): number {
  const idf = pointsIdf(allPoints);
  const wanted = distinctTerms(point);
  const have = termSet(text);
  const total = wanted.reduce((sum, t) => sum + (idf.get(t) ?? 0), 0);
  return total === 0 ? 0 : wanted.reduce((sum, t) => sum + (have.has(t) ? idf.get(t) ?? 0 : 0), 0) / total;
}

/** Verbs a question uses to ask for an explanation (not the main task, such as "write" or "implement"). */
const REQUEST_VERBS = /(?:^|[,;:]\s*(?:and\s+|then\s+)?)(?:please\s+)?(?:explain|describe|say|propose|show|cover|walk (?:me|us) through|compare|justify|estimate|discuss|outline|predict|identify|state|suggest|give|list|name|recommend|decide|choose)\b/i;

/**
 * The parts of a question's prompt that ask for something to be explained ("Explain where you put the date filter and
 * why it matters."; "Which would you choose, and why?"), verbatim, code blocks and Markdown emphasis left out.
 */
export const promptRequests = memoByText((prompt: string): readonly string[] => {
  const text = prompt.replace(/```[\s\S]*?```/g, '\n').replace(/\*\*|__/g, '');
  return Object.freeze(text.split(/(?<=[.?!])\s+|\n+/)
    .map((part) => part.replace(/^\s*(?:[-*•]|\d{1,2}[.)])\s+/, '').trim())
    .filter((part) => part.length > 0 && !/:$/.test(part) && (REQUEST_VERBS.test(part.toLowerCase()) || (part.endsWith('?') && words(part).length >= 4)))
    .filter((part) => termSet(part).size >= 2));
}, TEXT_MEMO, 16_000);

/** The share of a request's content terms found anywhere in the candidate's answer (0..1). */
export function requestCoverage(request: string, turns: Turn[]): number {
  const wanted = distinctTerms(request);
  if (wanted.length === 0) return 1;
  const have = new Set(candidateTexts(turns).flatMap((t) => terms(t.text)));
  return wanted.filter((t) => have.has(t)).length / wanted.length;
}

// ---------------------------------------------------------------------------------------------------------------
// System design and coding talk

const DESIGN: Record<DesignPhase, Cue[]> = {
  requirements: [
    // Not "it depends on the requirements": the stock evasion names the phase without stating one.
    [/\b(?:functional|non[\s-]?functional) requirements?\b|(?<!\bdepends? (?:on|upon) (?:the |your |our |their )?(?:business |user |customer |exact |specific )?)\brequirements?\b/, 2],
    [/\buse[\s-]?cases?\b|\buser stor(?:y|ies)\b|\bmvp\b|\b(?:in|out of) scope\b|\bscope\b/, 2],
    [/\b(?:clarify|clarifying|assume|assuming|assumption)\b/, 2],
    [/\b(?:must[\s-]have|nice[\s-]to[\s-]have|should (?:support|allow|be able)|needs? to (?:support|allow|be able)|has to support)\b/, 2],
    [/\b(?:who are the users|the users|end users|customers|clients)\b/, 1],
    [/\b(?:features?|api|endpoints?|interface|operations?)\b/, 1],
  ],
  scale: [
    [/\bqps\b|\brps\b|\b(?:requests?|reads|writes|queries|messages|events|clicks) (?:per|a|\/) ?(?:second|sec|s|minute|day)\b|\bper (?:second|day)\b|\/s\b/, 2],
    [/\b\d+(?:[.,]\d+)?\s?(?:k|m|b|million|billion|thousand|hundred thousand)\b/, 2],
    [/\b(?:millions|billions|thousands)\b/, 2],
    [/\b(?:throughput|bandwidth|back[\s-]of[\s-](?:the[\s-])?envelope|capacity|estimate|estimation|peak|burst)\b/, 2],
    [/\b\d+(?:[.,]\d+)?\s?(?:kb|mb|gb|tb|pb|bytes)\b|\b(?:terabytes?|gigabytes?|petabytes?|megabytes?)\b/, 2],
    [/\b(?:read|write)[\s-]heavy\b|\bscal(?:e|es|ing|able|ability)\b|\blatency\b|\bstorage\b/, 1],
  ],
  // Where the data lives and how it is laid out. A cache is not a data model ("a Redis cache in front" ticked this
  // phase, and how the data is stored was never asked): neither "cache" nor Redis counts alone.
  data: [
    [/\bschemas?\b|\btables?\b|\bcolumns?\b|\bdata model\b|\b(?:primary|foreign|partition|sort|shard) keys?\b|\bkeyed by\b/, 2],
    [/\bdatabases?\b|\bdb\b|\bsql\b|\bnosql\b|\bpostgres(?:ql)?\b|\bmysql\b|\bcassandra\b|\bdynamo(?:db)?\b|\bmongo(?:db)?\b|\bkey[\s-]value\b|\bbigtable\b|\bs3\b|\bblob (?:store|storage)\b|\bobject stor(?:e|age)\b/, 2],
    [/\bindex(?:es|ed|ing)?\b|\bpartition(?:s|ed|ing)?\b|\bshard(?:s|ed|ing)?\b/, 2],
    [/\b(?:rows?|records?|entit(?:y|ies)|store|stored|storing|persist|redis)\b/, 1],
  ],
  trade_offs: [
    [/\btrade[\s-]?offs?\b|\bpros and cons\b|\bpros\b|\bcons\b|\bdownsides?\b|\bupsides?\b/, 2],
    [/\binstead of\b|\brather than\b|\bversus\b|\bvs\.?\b|\bcompared (?:to|with)\b|\bon the other hand\b|\bat the (?:cost|expense) of\b|\bthe alternative\b|\balternatively\b/, 2],
    [/\b(?:eventual(?:ly)?|strong(?:ly)?) consisten(?:t|cy)\b|\bcap theorem\b|\bconsistency\b.*\bavailability\b|\bavailability\b.*\bconsistency\b/, 2],
    [/\b(?:cost|costs|cheaper|more expensive|simpler|complexity|overhead|but it|the catch)\b/, 1],
  ],
  failure: [
    [/\bfail(?:s|ed|ing|ure|ures|over)?\b|\boutages?\b|\bgoes down\b|\bgo down\b|\bcrash(?:es|ed)?\b|\bdown ?time\b/, 2],
    [/\bretr(?:y|ies|ied|ying)\b|\btimeouts?\b|\bbackoff\b|\bcircuit[\s-]breakers?\b|\bdead[\s-]letter\b/, 2],
    [/\breplica(?:s|tion|ted)?\b|\bredundan(?:t|cy)\b|\bbackups?\b|\bdisaster recovery\b|\bmulti[\s-](?:region|az|zone)\b/, 2],
    [/\bidempoten(?:t|cy)\b|\bgraceful(?:ly)? degrad\w*|\bdegrad\w*|\bfallback\b|\bat[\s-]least[\s-]once\b|\bexactly[\s-]once\b/, 2],
    [/\bmonitor(?:ing)?\b|\balert(?:s|ing)?\b|\bhealth[\s-]?checks?\b|\brecover(?:y|s)?\b|\bduplicates?\b/, 1],
  ],
};

const readDesign = lexiconReader(DESIGN);

export function analyseDesign(turns: Turn[]): Record<DesignPhase, Evidence | null> {
  return readDesign(sentencesOf(turns));
}

const CODING: Record<keyof CodingTalk, Cue[]> = {
  approach: [
    [/\b(?:my|the|our) (?:approach|idea|plan|strategy|algorithm|solution) (?:is|was|would be|will be)\b/, 2],
    // Not "I'd just start coding" / "I'll try something and see": that is the absence of a plan.
    [/\b(?:i'd|i would|i will|i'll|we can|we could|let's|i'm going to|i am going to|i plan to|i want to|you can|you could)\s+(?:\w+\s+)?(?:use|do|build|sort|iterate|loop|keep|store|maintain|traverse|scan|walk|start|compute|go|run|put|create|make|count|track|try|process|read|push|pop|split|group|map|merge|compare|check)\b(?!\s+(?:coding|typing|hacking|writing (?:the )?code|writing it|to code|something|stuff|things|it and see|and see|with it|from there)\b)/, 2],
    // An algorithm and a data structure, weak alone ("it is a graph problem"), together make an approach however it
    // is phrased ("I'd model it as a graph with an adjacency list and run a BFS").
    [/\b(?:bfs|dfs|breadth[\s-]first|depth[\s-]first|binary search|sort(?:ing)?|two pointers?|sliding window|dynamic programming|dp|greedy|recursion|recursive|prefix sums?|union[\s-]find|dijkstra|topological sort|memoi[sz]\w*|iterate|brute[\s-]force)\b/, 1],
    [/\b(?:hash[\s-]?(?:map|set|table)|dictionary|dict|heap|priority queue|stack|queue|deque|graph|tree|trie|array|list|set|map|adjacency (?:list|matrix))\b/, 1],
    [/\b(?:first|then|after that|finally)\b/, 1],
  ],
  complexity: [
    [/\bo\s*\([^)]{1,20}\)/, 2],
    [/\b(?:time|space|memory)[\s-]complexity\b|\bcomplexity\b|\bbig[\s-]o\b/, 2],
    [/\b(?:linear|logarithmic|quadratic|exponential|constant)(?:\s+(?:time|space|memory|extra))?\b|\bn\s*log\s*n\b|\bn squared\b/, 2],
  ],
  // Testing language: running, tracing, checking or asserting. Naming an edge case is not testing ("for the empty-array
  // edge case I return 0" describes the approach, and was read as the code having been tested): see EDGE_CASES.
  testing: [
    [/\btest(?:s|ed|ing)?\b|\bassert(?:s|ion|ions)?\b|\bunit[\s-]tests?\b/, 2],
    [/\b(?:dry[\s-]run|trace (?:it|through)|walk through the example|check (?:it |this |that )?(?:against|with|on)|tr(?:y|ied) (?:it |this |that )?(?:on|with)|ran (?:it |this |that )?(?:on|against|with)|run (?:it |this |that )?(?:on|against|with))\b/, 2],
    [/\bexamples?\b|\bsample\b|\bverif(?:y|ied)\b|\bmake sure\b|\bconfirm(?:ed)?\b|\bexpected (?:output|result|answer)\b/, 1],
  ],
};

const readCoding = lexiconReader(CODING);

export function analyseCodingTalk(turns: Turn[]): CodingTalk {
  return readCoding(sentencesOf(turns));
}

/** Edge cases named: the case itself, tested or only handled in the approach. */
const EDGE_CASES: Record<'edge', Cue[]> = {
  edge: [
    [/\b(?:edge|corner|boundary)[\s-]cases?\b|\boff[\s-]by[\s-]one\b|\bboundar(?:y|ies)\b|\bnull (?:input|inputs|values?|entries|pointers?)\b/, 2],
    [/\bempty (?:input|array|list|string|graph|file|case)\b|\bsingle (?:element|node|item|line)\b|\b[nmk] ?= ?[01]\b|\bno (?:edges|routes|input)\b|\bduplicates?\b|\bnegative (?:numbers|values)\b|\boverflow\b|\blarge inputs?\b/, 2],
  ],
};

const readEdgeCases = lexiconReader(EDGE_CASES);

/** The candidate's words naming an edge case (which is not having tested the code: that is CodingTalk.testing). */
export function namedEdgeCase(turns: Turn[]): Evidence | null {
  return readEdgeCases(sentencesOf(turns)).edge;
}
