import { terms } from './analysis.js';
import type { Turn } from './types.js';

/**
 * The transcript guard: before anything is scored, is there a genuine interview to score? It reads the candidate's
 * text turns only (code snapshots count as answers, never as words) and refuses, in this order:
 *
 * - `empty`       no candidate word at all.
 * - `garbled`     (from 5 words) fewer than 60% of the tokens are word-like: keyboard mash ("asdf", "qwerty"),
 *                 random letters and digits, symbols, long vowel-less strings. Letters of any script count (a
 *                 Cyrillic or Greek word is a word); numbers ("30k", "99.9%") and code-like tokens ("user_id",
 *                 "O(n", "arr[i]", "=>") count as words too, so talk in a coding round is not punished. A short
 *                 vowel-less Latin token ("sql", "tcp", "xq") counts half: it may be an acronym, and a transcript
 *                 made mostly of them is not speech.
 * - `repetitive`  (from 10 words) any of: lexical variety below 0.3 (the moving-average distinct-word ratio over
 *                 50-word windows: genuine speech sits around 0.6–0.8, "ok ok ok" near 0.02); one 3-word phrase
 *                 making up more than 30% of all words (and said at least 4 times); half or more of the answers
 *                 (at least 2) repeating an earlier answer; or 60% or more of the words echoing the interviewer's
 *                 own 5-word sequences (reading the question back).
 * - `too_short`   fewer than 40 candidate words, or fewer than 2 substantive answers (a text turn of at least 8
 *                 words that neither repeats an earlier turn nor mostly echoes the interviewer, or a code snapshot
 *                 of at least 2 lines). Two honest answers of about 25 words pass. Filler ("um", "like", "you
 *                 know", "sort of"…) is not counted in either: a turn of filler alone says nothing.
 */
export interface QualityStats {
  candidate_turns: number;
  candidate_words: number;
  substantive_answers: number;
  /** Moving-average distinct-word ratio (50-word windows; the plain ratio below 50 words). */
  distinct_ratio: number;
  /** Share of tokens that look like words, numbers or code (vowel-less short tokens count half). */
  word_like_ratio: number;
  /** Share of all words taken by the most frequent 3-word phrase. */
  top_phrase_share: number;
  /** Share of the longer answers (5+ words) that repeat an earlier one. */
  repeated_answer_ratio: number;
  /** Share of candidate words inside 5-word sequences the interviewer said. */
  echo_ratio: number;
  /** Share of candidate words that are common English function words (about 0.4 in English answers). */
  english_ratio: number;
  /** Share of candidate words that are common function words of other Latin-script languages (not English words). */
  other_language_ratio: number;
  /** Share of the candidate's letters in scripts other than Latin. */
  other_script_ratio: number;
  /** Share of candidate words that are filler ("um", "like", "you know"), which count towards nothing said. */
  filler_ratio: number;
}

export const QUALITY_REASONS = ['empty', 'too_short', 'repetitive', 'garbled', 'unsupported_language'] as const;
export type QualityReason = typeof QUALITY_REASONS[number];
export type QualityResult =
  | { ok: true; stats: QualityStats }
  | { ok: false; reason: QualityReason; message: string; stats: QualityStats };

export const MIN_WORDS = 40;
export const MIN_SUBSTANTIVE_ANSWERS = 2;
const SUBSTANTIVE_WORDS = 8;
const MIN_WORD_LIKE = 0.6;
const MIN_DISTINCT = 0.3;
const MAX_TOP_PHRASE = 0.3;
const MAX_REPEATED = 0.5;
const MAX_ECHO = 0.6;
const WINDOW = 50;
/**
 * Below this share of English function words the answers may be in another language: the built-in assessment reads
 * English cue words, and would score a full answer in Spanish as an empty one in English. Terse English notes ("Hash
 * map from value to index. One pass.") fall below it too, so another language needs evidence of its own: mostly
 * letters of another script, or more function words of another language than of English.
 */
const MIN_ENGLISH = 0.12;
/**
 * Frequent function words of the languages most often written in Latin script besides English (Spanish, Portuguese,
 * French, Italian, German, Dutch, Polish, Turkish, Indonesian, Swedish), leaving out those that are English words too.
 */
const OTHER_FUNCTION_WORDS = new Set([
  'el la los las del que y en un una es por para con se su al lo como más pero sus ya este porque esta entre cuando muy sin sobre también hasta hay donde desde todo nos durante todos les ni otros eso esto yo otro mucho nada cual poco ella estar algo nosotros',
  'os da em um uma não mais foi ao ele das dos eles seu sua ou quando muito já eu também só pelo pela até isso ela depois sem mesmo aos ter seus nós essa num nem suas meu minha numa pelos elas havia seja qual será tem fazer',
  'le les des et est pas qui dans ce il une sur du au avec pour mais ou sont nous vous ils elle cette été avoir fait être comme très aussi leur même sans peut tout je',
  'il di che non si per una sono della nel alla anche ci questo ha gli dal più ho perché ma cosa lo sempre molto mi dei delle quando noi',
  'der die und ist nicht das mit sich des auf für dem den ein eine auch es aus bei nach wie um oder wir ich sie er zum zur hat wird noch einen einer über vom sehr dann wenn weil mein meine haben war wurde',
  'het een en van ik te dat niet op zijn voor met je wat maar ook er naar bij nog wij zij hij heb heeft geen wordt werd mijn ons',
  'w z na się nie że jest od po jak co ale za tak dla już są być może przez oraz jego jej tylko był była było mnie ja tym które który która także',
  've bir bu için ile çok ama gibi daha olarak sonra ben biz ne mi değil var yok kadar ise olan şey',
  'yang dan di ini itu dengan untuk tidak dari dalam akan pada juga saya ke karena ada kami kita bisa sudah tersebut atau oleh',
  'och att det som en är på för med har av till den inte om ett han men var jag sig från så kan',
].join(' ').split(' '));
/** Most letters in a script other than Latin: Cyrillic, Han, Arabic, Devanagari… */
const OTHER_SCRIPT = 0.5;
/** Frequent English words that are rarely words of other languages written in Latin script ("a", "in" are left out). */
const ENGLISH_FUNCTION_WORDS = new Set(('the and to of it i we my our was were is are that this for with on at they he she you be been have had '
  + 'not but so as by from or would will could which what when then there their them me us an into about because just also did do does').split(' '));
const ECHO_N = 5;
/** Hesitation and filler: said on their own they say nothing (speech recognition of someone stalling, or thinking aloud). */
const FILLER_WORDS = new Set(('um umm ummm uh uhh uhm erm er ah ahh eh hmm hm mm mmm mhm huh oh ooh yeah yea yep yup okay ok '
  + 'like basically actually literally anyway anyways whatever honestly totally right well so').split(' '));
const FILLER_PHRASES = new Set(['you know', 'i mean', 'sort of', 'kind of', 'you see', 'i guess']);

/** How many of a turn's (normalised) words are not filler. */
function saidWords(words: string[]): number {
  let filler = 0;
  for (let i = 0; i < words.length; i++) {
    if (i + 1 < words.length && FILLER_PHRASES.has(`${words[i]} ${words[i + 1]}`)) { filler += 2; i++; } else if (FILLER_WORDS.has(words[i])) filler++;
  }
  return words.length - filler;
}

// ---- tokens ----------------------------------------------------------------------------------------------------

/** 4-key runs along a keyboard row, either way ("erty" and "trew" are left out: property, strewn). */
const KEYBOARD_RUNS = (() => {
  const runs = new Set<string>();
  for (const row of ['qwertyuiop', 'asdfghjkl', 'zxcvbnm']) {
    for (const r of [row, [...row].reverse().join('')]) for (let i = 0; i + 4 <= r.length; i++) runs.add(r.slice(i, i + 4));
  }
  runs.delete('erty');
  runs.delete('trew');
  return [...runs];
})();
const VOWELLESS_OK = new Set(['hmm', 'hm', 'mm', 'mhm', 'shh', 'psst', 'nth', 'tsk', 'brr', 'grr']);
/** Scripts written without spaces: every two characters count as a word. */
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+$/u;
const OPERATOR = /^(?:[=!<>]=?=?|=>|->|&&|\|\||\+\+|--|[+\-*/%^]=?|\*\*|::)$/;

/** How word-like one letter run is: 1 a word, 0.5 maybe an acronym, 0 junk. */
function letterScore(part: string): number {
  if (part.length === 1 || !/\p{Script=Latin}/u.test(part)) return 1;
  const base = part.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  if (KEYBOARD_RUNS.some((run) => base.includes(run))) return 0;
  if (!/[aeiouyæøœı]/.test(base)) {
    if (VOWELLESS_OK.has(base) || (part === part.toUpperCase() && part.length <= 6)) return 1;
    return base.length <= 5 ? 0.5 : 0;
  }
  if (/[^aeiouyæøœı]{7,}/.test(base)) return 0;
  if (base.length >= 6 && /^(.{1,3})\1{2,}$/.test(base)) return 0; // "jfjfjf", "asdasdasd"
  return 1;
}

/**
 * How word-like a whitespace token is (null: punctuation or an emoji, not counted). The token is split at
 * punctuation, symbols and camelCase humps; it is as good as its worst piece. A run mixing letters and digits
 * three or more times over ("a8fk2") is random.
 */
function tokenScore(token: string): number | null {
  if (/^[\p{P}\s]+$/u.test(token) || /^[\p{Extended_Pictographic}\u200d\ufe0f]+$/u.test(token)) return null;
  if (OPERATOR.test(token)) return 1;
  const runs = token.split(/[^\p{L}\p{M}\p{N}'’]+/u).map((r) => r.replace(/^['’]+|['’]+$/g, '')).filter(Boolean);
  if (runs.length === 0) return 0;
  let score = 1;
  for (const run of runs) {
    if ((run.match(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/gu) ?? []).length >= 3) return 0;
    for (const part of run.split(/(?<=\p{Ll})(?=\p{Lu})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u)) {
      if (/^\p{N}+$/u.test(part)) continue;
      score = Math.min(score, letterScore(part));
    }
  }
  return score;
}

/** A text's countable tokens: normalised for comparison, each with its word-likeness. */
function tokens(text: string): Array<{ norm: string; score: number }> {
  const out: Array<{ norm: string; score: number }> = [];
  // Punctuation separates words in scripts written without spaces ("。", "，").
  for (const raw of text.split(/\s+|(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])\p{P}+/u)) {
    if (!raw) continue;
    const score = tokenScore(raw);
    if (score === null) continue;
    const norm = raw.toLowerCase().replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '') || raw;
    if (UNSPACED.test(norm)) {
      for (let i = 0; i < norm.length; i += 2) out.push({ norm: norm.slice(i, i + 2), score: 1 });
    } else out.push({ norm, score });
  }
  return out;
}

// ---- measures --------------------------------------------------------------------------------------------------

/** The share of letters in the candidate's text turns that are not Latin. */
function otherScriptShare(said: Turn[]): number {
  let letters = 0;
  let latin = 0;
  for (const turn of said) {
    letters += turn.text.match(/\p{L}/gu)?.length ?? 0;
    latin += turn.text.match(/\p{Script=Latin}/gu)?.length ?? 0;
  }
  return letters === 0 ? 0 : round3((letters - latin) / letters);
}

function movingDistinct(words: string[]): number {
  if (words.length === 0) return 0;
  if (words.length <= WINDOW) return new Set(words).size / words.length;
  let total = 0;
  for (let i = 0; i + WINDOW <= words.length; i++) total += new Set(words.slice(i, i + WINDOW)).size / WINDOW;
  return total / (words.length - WINDOW + 1);
}

const grams = (words: string[], n: number) => {
  const out: string[] = [];
  for (let i = 0; i + n <= words.length; i++) out.push(words.slice(i, i + n).join(' '));
  return out;
};

function topPhrase(words: string[]): { share: number; count: number } {
  const counts = new Map<string, number>();
  for (const g of grams(words, 3)) counts.set(g, (counts.get(g) ?? 0) + 1);
  const count = Math.max(0, ...counts.values());
  return { share: words.length === 0 ? 0 : Math.min(1, (count * 3) / words.length), count };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both || 1);
}

/** An answer's shape for telling one answer given twice: its 3-word sequences (its words, when it is very short). */
const answerShape = (words: string[]) => new Set(words.length >= 6 ? grams(words, 3) : words);
/** Two answers whose shapes overlap this much are the same answer. */
const SAME_ANSWER = 0.8;

/** Per turn: the share of its words inside a 5-word sequence the interviewer said. */
function echoShare(words: string[], interviewer: Set<string>): number {
  if (words.length < ECHO_N) return 0;
  const covered = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i + ECHO_N <= words.length; i++) {
    if (interviewer.has(words.slice(i, i + ECHO_N).join(' '))) for (let j = i; j < i + ECHO_N; j++) covered[j] = true;
  }
  return covered.filter(Boolean).length / words.length;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Seqs of candidate answers that repeat, nearly word for word, an answer given earlier to a different question (the
 * job-scheduler answer pasted into the rate-limiter question): the report gives them no credit.
 */
export function reusedAnswers(turns: Turn[]): Set<number> {
  const earlier: Array<{ position: number | null; shape: Set<string> }> = [];
  const reused = new Set<number>();
  for (const turn of turns.filter((t) => t.speaker === 'candidate' && t.kind === 'text')) {
    const words = tokens(turn.text).map((t) => t.norm);
    if (words.length < SUBSTANTIVE_WORDS) continue;
    const shape = answerShape(words);
    if (earlier.some((e) => e.position !== turn.questionPosition && jaccard(e.shape, shape) >= SAME_ANSWER)) reused.add(turn.seq);
    earlier.push({ position: turn.questionPosition, shape });
  }
  return reused;
}

// ---- stuffed answers ---------------------------------------------------------------------------------------------

/**
 * What a story is told with rather than what it tells: the STAR labels, the cue words the STAR reading looks for,
 * and the verbs and nouns of CV language ("led", "drove", "ownership", "stakeholders", "revenue"). A genuine answer
 * uses some of them; an answer made almost only of them tells nothing.
 */
const GENERIC_WORDS = (
  'situation task action result results outcome outcomes impact context background challenge challenges goal goals objective ' +
  'objectives star example examples lesson lessons learn learned learnt learning ' +
  'lead led leading leader leaders leadership own owned owning owner ownership drive drove driven driving build built building ' +
  'measure measured measuring measurable deliver delivered delivering delivery execute executed executing execution plan planned planning ' +
  'communicate communicated communicating communication collaborate collaborated collaboration collaborative implement implemented ' +
  'implementation analyse analysed analyze analyzed analysis decide decided decision decisions manage managed management coordinate ' +
  'coordinated spearhead spearheaded take took taken make made work worked working solve solved improve improved improvement ' +
  'improvements increase increased reduce reduced save saved grow grew growth achieve achieved achievement ensure ensured align ' +
  'aligned alignment prioritise prioritised prioritize prioritized priority priorities focus focused optimise optimised optimize ' +
  'optimized streamline streamlined leverage leveraged ' +
  'revenue performance efficiency productivity quality customer customers satisfaction stakeholder stakeholders team teams company ' +
  'organisation organization project projects manager managers accountability accountable responsibility responsible success successful ' +
  'value process data driven cross functional initiative initiatives strategy strategic vision mission culture excellence innovation ' +
  'transparency metric metrics kpi kpis roi cost costs time schedule ahead business role job effort problem issue solution approach ' +
  'obsession bias proactive synergy lot great successfully significantly praised promoted recognised recognized matter matters first ' +
  'finally end overall percent'
);
let genericTerms: ReadonlySet<string> | null = null;
const generic = () => (genericTerms ??= new Set(GENERIC_WORDS.split(/\s+/).flatMap((w) => terms(w))));

/** The words that hold an English sentence together (articles, pronouns, auxiliaries, prepositions, conjunctions). */
const STRUCTURE_WORDS = new Set((
  'a an the and or but nor so yet if then than because since as while when where which who whom whose what that this these those ' +
  'i me my mine we us our ours you your he him his she her it its they them their there here ' +
  'is am are was were be been being do does did done have has had having will would shall should can could may might must ' +
  'to of in on at by for with from into onto about over under after before between through during without within up down out off ' +
  'not no all any each every some such only also just very too more most much many other another same both either neither ' +
  'per via like across against around along among toward towards upon until unless whether how why ' +
  'don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn'
).split(/\s+/));

/** A turn is judged as a keyword list from this many plain words (below)… */
export const LIST_MIN_WORDS = 12;
/** …and as cue words from this many (a short vague reply, "I took ownership and delivered it on time", is never judged). */
export const CUE_MIN_WORDS = 20;
/** Cue words: at least this share of the turn's content words are generic ones… */
export const STUFFED_GENERIC_SHARE = 0.6;
/** …and it names fewer distinct words of its own (not generic) than this per word said (one in eight). */
export const STUFFED_SPECIFIC_RATE = 0.125;
/** Keyword list: a sentence of 6 or more words with fewer structure words than this share is a list of terms… */
export const LIST_STRUCTURE_SHARE = 0.1;
/** …and the turn is a keyword list when such sentences hold at least this share (half) of its words. */
export const LIST_SHARE = 0.5;

export type StuffingKind = 'cue_words' | 'keyword_list';
export interface Stuffing { kind: StuffingKind; words: number; genericShare: number; specificRate: number; listShare: number }

/**
 * The plain words of a text, lower-cased: whitespace tokens of letters (with inner hyphens or apostrophes), of two
 * letters or more apart from "a" and "I". Numbers, one-letter names ("n"), identifiers ("user_id", "offsetWidth",
 * "COUNT(*)") and symbols are neither words nor structure, and are left out.
 */
const plainWords = (text: string) => text.split(/\s+/)
  .map((token) => token.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, ''))
  .filter((token) => /^\p{L}+(?:['’-]\p{L}+)*$/u.test(token) && !/\p{Ll}\p{Lu}/u.test(token))
  .map((w) => w.toLowerCase().replace(/['’]\p{L}*$/u, ''))
  .filter((w) => w.length >= 2 || w === 'a' || w === 'i');

/** A line of code typed into the answer (a code span, braces, an arrow, a tag, a SQL query) is not a list of terms. */
const CODE_LINE = /`|[{}]|=>|<\/?[a-z][\w-]*[\s>/]|\bselect\b[\s\S]*\bfrom\b/i;

/**
 * Whether one candidate turn is stuffed, and how: `cue_words` when it is made of the generic vocabulary above with
 * almost nothing of its own ("In my situation my task was to lead; I took action, I built, I owned; the result was
 * a 40% increase in revenue"); `keyword_list` when most of it is terms strung together without the words that make
 * sentences ("Call stack, microtask queue, task queue, FIFO, await continuation…"). Null for a genuine answer, and
 * for a turn too short to judge.
 */
export function stuffing(text: string): Stuffing | null {
  const prose = text.split('\n').filter((line) => !CODE_LINE.test(line)).join('\n');
  const all = plainWords(prose);
  if (all.length < LIST_MIN_WORDS) return null;
  const content = terms(prose).filter((t) => /^\p{L}/u.test(t));
  const common = generic();
  const genericShare = content.length === 0 ? 0 : content.filter((t) => common.has(t)).length / content.length;
  const specificRate = new Set(content.filter((t) => !common.has(t))).size / all.length;
  let listed = 0;
  for (const sentence of prose.split(/[.!?;]+(?=\s|$)|\n+/)) {
    const ws = plainWords(sentence);
    if (ws.length >= 6 && ws.filter((w) => STRUCTURE_WORDS.has(w)).length / ws.length < LIST_STRUCTURE_SHARE) listed += ws.length;
  }
  const listShare = listed / all.length;
  const stats = { words: all.length, genericShare: round3(genericShare), specificRate: round3(specificRate), listShare: round3(listShare) };
  if (all.length >= CUE_MIN_WORDS && genericShare >= STUFFED_GENERIC_SHARE && specificRate < STUFFED_SPECIFIC_RATE) return { kind: 'cue_words', ...stats };
  if (listShare >= LIST_SHARE) return { kind: 'keyword_list', ...stats };
  return null;
}

/** Seqs of the candidate's stuffed text turns (see `stuffing`), with the kind: the report gives them no credit. */
export function stuffedAnswers(turns: Turn[]): Map<number, StuffingKind> {
  const out = new Map<number, StuffingKind>();
  for (const turn of turns) {
    if (turn.speaker !== 'candidate' || turn.kind !== 'text') continue;
    const found = stuffing(turn.text);
    if (found) out.set(turn.seq, found.kind);
  }
  return out;
}

export function assessQuality(turns: Turn[]): QualityResult {
  const said = turns.filter((t) => t.speaker === 'candidate' && t.kind === 'text');
  const interviewerGrams = new Set(turns.filter((t) => t.speaker === 'interviewer' && t.kind === 'text')
    .flatMap((t) => grams(tokens(t.text).map((w) => w.norm), ECHO_N)));

  const all: Array<{ norm: string; score: number }> = [];
  const earlier: Array<Set<string>> = [];
  let longer = 0;
  let repeats = 0;
  let echoed = 0;
  let substantive = 0;
  let meant = 0;
  for (const turn of said) {
    const ts = tokens(turn.text);
    const words = ts.map((t) => t.norm);
    const own = saidWords(words);
    meant += own;
    all.push(...ts);
    const echo = echoShare(words, interviewerGrams);
    echoed += echo * words.length;
    if (words.length < 5) continue;
    longer++;
    const shape = answerShape(words);
    const repeat = earlier.some((e) => jaccard(e, shape) >= SAME_ANSWER);
    earlier.push(shape);
    if (repeat) repeats++;
    if (!repeat && echo < MAX_ECHO && own >= SUBSTANTIVE_WORDS) substantive++;
  }
  substantive += turns.filter((t) => t.speaker === 'candidate' && t.kind === 'code' && t.code
    && t.code.source.split('\n').filter((l) => l.trim()).length >= 2).length;

  const words = all.map((t) => t.norm);
  const phrase = topPhrase(words);
  const stats: QualityStats = {
    candidate_turns: said.length,
    candidate_words: words.length,
    substantive_answers: substantive,
    distinct_ratio: round3(movingDistinct(words)),
    word_like_ratio: round3(all.length === 0 ? 0 : all.reduce((s, t) => s + t.score, 0) / all.length),
    top_phrase_share: round3(phrase.share),
    repeated_answer_ratio: round3(longer === 0 ? 0 : repeats / longer),
    echo_ratio: round3(words.length === 0 ? 0 : echoed / words.length),
    english_ratio: round3(words.length === 0 ? 0 : words.filter((w) => ENGLISH_FUNCTION_WORDS.has(w)).length / words.length),
    other_language_ratio: round3(words.length === 0 ? 0 : words.filter((w) => OTHER_FUNCTION_WORDS.has(w)).length / words.length),
    other_script_ratio: otherScriptShare(said),
    filler_ratio: round3(words.length === 0 ? 0 : (words.length - meant) / words.length),
  };
  const refuse = (reason: QualityReason, message: string): QualityResult => ({ ok: false, reason, message, stats });

  if (words.length === 0) return refuse('empty', 'The candidate said nothing that could be assessed.');
  if (words.length >= 5 && stats.word_like_ratio < MIN_WORD_LIKE) {
    return refuse('garbled', `Most of what the candidate typed or said is not recognisable words (${Math.round(stats.word_like_ratio * 100)}% word-like).`);
  }
  if (words.length >= 10) {
    if (stats.distinct_ratio < MIN_DISTINCT) return refuse('repetitive', 'The candidate\'s answers repeat the same few words.');
    if (stats.top_phrase_share > MAX_TOP_PHRASE && phrase.count >= 4) return refuse('repetitive', 'One phrase makes up most of the candidate\'s answers.');
    if (repeats >= 2 && stats.repeated_answer_ratio >= MAX_REPEATED) return refuse('repetitive', 'The candidate gave the same answer to different questions.');
    if (stats.echo_ratio >= MAX_ECHO) return refuse('repetitive', 'The candidate\'s answers mostly repeat the interviewer\'s own words.');
  }
  const otherLanguage = stats.other_script_ratio > OTHER_SCRIPT || stats.other_language_ratio > stats.english_ratio;
  if (words.length >= MIN_WORDS && stats.english_ratio < MIN_ENGLISH && otherLanguage) {
    return refuse('unsupported_language', 'The candidate answered in a language other than English, which the built-in assessment does not read; the transcript is kept for a person (or a model) to assess.');
  }
  if (meant < MIN_WORDS || substantive < MIN_SUBSTANTIVE_ANSWERS) {
    const filler = meant < words.length ? ` besides filler ("um", "like", "you know")` : '';
    return refuse('too_short', `Too little was said to assess: ${meant} words${filler} in ${substantive} substantive answer${substantive === 1 ? '' : 's'} (at least ${MIN_WORDS} words in ${MIN_SUBSTANTIVE_ANSWERS} answers are needed).`);
  }
  return { ok: true, stats };
}
