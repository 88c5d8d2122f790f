/**
 * Prompt craft: which elements of good prompt craft a candidate's (English) prompt has, each with where it was found.
 * Deterministic and pure. Linear-ish on purpose: the sentence rules run once per sentence/line, every regex is anchored
 * at a sentence start or begins at a literal word, no quantifier is nested over the same characters, and the delimiter
 * check only looks at bounded windows around each placeholder.
 */
import { head } from '../../platform/text.js';

export const CRAFT_VERSION = 'craft-2';
export type CraftKey = 'role' | 'task' | 'context' | 'constraints' | 'output_format' | 'examples' | 'delimiters' | 'injection_guard';
export interface CraftSpan { start: number; end: number; text: string }
export interface CraftElement { key: CraftKey; name: string; found: boolean; weight: number; spans: CraftSpan[]; advice: string }
export interface CraftAnalysis { version: typeof CRAFT_VERSION; score: number; elements: CraftElement[] }

type Range = [number, number];
interface Segment { start: number; end: number; body: string }

const MAX_SPANS = 3;
const SPAN_CHARS = 160;
/** How far around a placeholder the delimiter check looks (labels, marker lines, tags). */
const WINDOW = 400;
const LINE_WINDOW = 200;

/** [key, name, weight, advice when missing]. */
const SPEC: [CraftKey, string, number, string][] = [
  ['role', 'Role', 10, 'Add a role for the model, e.g. "You are a support-ticket triage assistant."'],
  ['task', 'Task statement', 20, 'State the task as an instruction, e.g. "Classify the email as billing, technical or other."'],
  ['context', 'Context', 10, 'Add the background the model needs, e.g. who the users are or what the input is.'],
  ['constraints', 'Constraints', 15, 'Add explicit constraints, e.g. what the answer must or must not do, or a length limit.'],
  ['output_format', 'Output format', 15, 'Say exactly what shape the answer takes, e.g. "Respond with JSON only" or "a single word".'],
  ['examples', 'Examples', 10, 'Add one or two worked examples of the expected answer, e.g. "Input: … Output: …".'],
  ['delimiters', 'Delimited input', 10, ''],
  ['injection_guard', 'Guard against injected instructions', 10, 'Tell the model to treat the input as data and to ignore any instructions inside it.'],
];

// A bullet, list number or heading mark before a sentence ("- ", "1. ", "a) ", "## ", "**").
const BULLET = /^(?:[-*•+>]+|\d{1,3}[.)]|[a-z][.)]|#{1,6})?[ \t]*/i;

const ROLE = new RegExp(
  '^(?:(?:you are|you[\'’]re|you will be) (?:an?|the|now an?|acting as) \\S|(?:you are|you[\'’]re) [\\w-]{1,40}[\'’]s \\S'
  + '|(?:you will |you[\'’]ll )?(?:act|serve|behave) as\\b'
  // "As a/an <role>," but not "As a result," and the like.
  + '|as an? (?!(?:result|rule|reminder|consequence|whole|matter|side|first|last|final|general|bonus|precaution|default|fallback|note|example|courtesy|starting|alternative|quick|short|brief)\\b)[a-z][\\w -]{0,60},'
  + '|your role is\\b|(?:role|persona)\\s*:|(?:pretend|imagine) (?:to be|you are) an? |(?:take on|play|assume) the role\\b)', 'i');

const VERBS = 'classify|extract|summari[sz]e|rewrite|write|generate|translate|answer|return|produce|convert|identify|list|label|determine|decide'
  + '|create|draft|respond|reply|analy[sz]e|categori[sz]e|evaluate|assess|rate|score|review|explain|describe|compose|detect|flag|find|provide|give|tag|rank|sort|fix|correct|edit|check|suggest|recommend|choose|select|output|tell';
const TASK = new RegExp(
  `^(?:(?:please\\s+)?(?:${VERBS})\\b`
  // The verb must be an instruction, not a label or noun ("Answer: 42", "List of fruits", "Return policy is …").
  + '(?!\\s*[:–-]|\\s+(?:of|is|are|was|were|format|policy|policies|will|should|must|can|has|have)\\b)\\s+\\S'
  + '|please\\s+(?!note\\b|be\\b|do\\b|don[\'’]t\\b|never\\b|avoid\\b|keep\\b|remember\\b)[a-z]'
  + `|your (?:task|job|goal|mission|objective) is\\b|i (?:need|want) you to\\b|you (?:will|should|must|need to) (?:${VERBS})\\b`
  + '|(?:task|instructions?|goal|objective)\\s*:)', 'i');

const CONTEXT = /^(?:context|background|situation|scenario)\s*:|^(?:the|our) (?:users?|customers?|audience|readers?|clients?) (?:is|are)\b|^the input (?:is|will be) an?\b|^you(?: will|['’]ll) (?:be given|receive|be provided with|be shown|get)\b|^you are (?:given|provided with)\b|^(?:here (?:is|are)|here['’]s|below (?:is|are)|the following)\b|\bfor (?:our|the) (?:[a-z-]+ )?(?:team|customers|users|clients)\b/i;

const CONSTRAINTS = /\b(?:must|mustn['’]t|never|only|avoid|exactly|limit(?:s|ed)?|do not|don['’]t|should not|shouldn['’]t)\b|\b(?:(?:at most|at least|no more than|fewer than|less than|up to)\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|a hundred)\b|under\s+\d+\s+(?:words?|characters?|sentences?|tokens?|lines?|items?)\b)/i;

const OUTPUT_FORMAT = /\b(?:respond|reply|answer|output)\s+(?:only\s+)?(?:with|in|as)\b|\breturn\s+(?:only\s+)?(?:(?:a|an|the)\s+)?(?:json|list|table|csv|yaml|xml|single|one|number|integer|boolean|string|array|object|label|score|word)\b|^(?:output\s+)?format\s*:|\boutput format\b|\b(?:in|as)\s+(?:valid\s+)?json\b|\bjson\s+(?:object|array)\b|\bbullet(?:ed)?(?:[- ]point)?\s+list\b|\bone word\b|\ba single (?:word|label|line|number|sentence)\b|\b(?:a|as|in|into)\s+(?:markdown\s+)?table\b|\bcode (?:block|fence)s?\b|(?<!\b(?:the|your|an?)\s)\boutput\s+(?:only|exactly)\b|\b(?:in|using)\s+(?:this|the following|the same)\s+(?:form|format|shape|template)\b|\bcsv\b|\bmarkdown\b|\bno (?:extra|other|additional) (?:text|words|commentary|prose)\b|\bwithout (?:any\s+)?(?:explanation|commentary|preamble)s?\b/i;

const EXAMPLE = /\bexamples?(?:\s*#?\d{1,3})?\s*:|^examples?\s*$|\bfor (?:example|instance)\b|\be\.g\./i;
const EXAMPLE_IN = /^(?:input|q|question|user)\s*:/i;
const EXAMPLE_OUT = /^(?:output|a|answer|assistant|label)\s*:\s*\S/i;
const EXAMPLE_INLINE = /^(?:input|q|question|user)\s*:[^\n]*?\s(?:output|a|answer|assistant|label)\s*:\s*\S/i;
const EXAMPLE_TAG = /<examples?\b[^<>]{0,100}>/gi;

const INSTR = '(?:instructions?|commands?|requests?|directions?|directives?|prompts?)';
const SOURCE = '(?:(?:that\\s+)?(?:appear|appearing|are|is)\\s+)?(?:in|inside|within|contained|embedded|found|from|written)\\b';
const GUARD = new RegExp(
  `\\b(?:ignore|disregard)\\s+(?:(?:any|all)\\s+)?(?:\\w+\\s+)?${INSTR}\\s+${SOURCE}`
  + '|\\btreat\\s+(?:(?:the|its|this|that|all|any|every)\\s+)?(?:\\w+\\s+){0,2}?as\\s+(?:\\w+\\s+)?(?:data|content|text|untrusted|information|input)\\b'
  + `|\\b(?:do not|don['’]t|never|must not|should not|will not|won['’]t)\\s+(?:follow|obey|execute|act on|carry out|comply with|run)\\s+(?:(?:any|the)\\s+)?(?:\\w+\\s+)?${INSTR}\\s+${SOURCE}`
  + `|\\b(?:may|might|could|can)\\s+(?:also\\s+)?contain\\s+(?:(?:any|its|their|hidden|embedded|malicious|other)\\s+)?${INSTR}`
  + '|\\buntrusted\\b', 'i');

/** `{{name}}` with whitespace allowed inside the braces. */
const PLACEHOLDER = /\{\{\s*([^{}\s]{1,64})\s*\}\}/g;
/** Pairs that must sit right around a placeholder (whitespace allowed); longer openers before their prefixes. */
const PAIRS: [string, string][] = [['"""', '"""'], ["'''", "'''"], ['```', '```'], ['<<<', '>>>'], ['[[', ']]'], ['"', '"'], ['“', '”'], ["'", "'"]];
// The line before: a code fence, a ###/---/=== marker line, or a BEGIN/START marker (uppercase, so prose "Start by…" is not one).
const MARK_OPEN = /^[ \t]*(?:(```|~~~)[\w+.#-]*|(#{3,}|-{3,}|={3,}).*|[^\w]{0,10}(?:BEGIN|START)\b.*)$/;
const MARK_CLOSE = /^(?:(```|~~~)|(#{3,}|-{3,}|={3,})|[^\w]{0,10}END\b)/;
const OPEN_TAG = /^<([a-z][\w.:-]{0,40})(?:\s[^<>]{0,200})?>/i;
const CLOSE_TAG = /^<\/([a-z][\w.:-]{0,40})\s*>/i;
/** A line that is blank or only a short label such as "Email:" (placeholders already removed). */
const LABEL_LINE = /^[ \t\r]*(?:[^\n:<>{}"]{1,40}:)?[ \t\r]*$/;

const isWs = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;

/** At most n characters (ending with '…' when cut), never splitting a surrogate pair. */
function clip(s: string, n: number): string {
  return s.length <= n ? s : `${head(s, n - 1)}…`;
}

function toSpan(p: string, [a, b]: Range): CraftSpan {
  while (a < b && isWs(p.charCodeAt(a))) a++;
  while (b > a && isWs(p.charCodeAt(b - 1))) b--;
  return { start: a, end: b, text: clip(p.slice(a, b), SPAN_CHARS) };
}

/** Sentences and lines, trimmed; `body` drops a leading bullet or list number so the rules can anchor at `^`. */
function segments(p: string): Segment[] {
  const out: Segment[] = [];
  let s = 0;
  const push = (a: number, b: number): void => {
    while (a < b && isWs(p.charCodeAt(a))) a++;
    while (b > a && isWs(p.charCodeAt(b - 1))) b--;
    if (a < b) out.push({ start: a, end: b, body: p.slice(a, b).replace(BULLET, '') });
  };
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i);
    if (c === 10) { push(s, i); s = i + 1; continue; }
    if ((c === 46 || c === 33 || c === 63) && (i + 1 >= p.length || isWs(p.charCodeAt(i + 1)))) {
      // A full stop ends no sentence after "e.g"/"i.e" or in a list number ("1. Classify …").
      if (c === 46 && (p.charCodeAt(i - 2) === 46 || (i - s <= 4 && /^\s*(?:\d{1,3}|[a-z])$/i.test(p.slice(s, i))))) continue;
      push(s, i + 1); s = i + 1;
    }
  }
  push(s, p.length);
  return out;
}

function matching(segs: Segment[], re: RegExp): Range[] {
  const out: Range[] = [];
  for (const s of segs) if (re.test(s.body) && out.push([s.start, s.end]) === MAX_SPANS) break;
  return out;
}

/** In order of position, without overlaps, at most MAX_SPANS. */
function pick(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const r of [...ranges].sort((x, y) => x[0] - y[0] || x[1] - y[1])) {
    if (out.length === MAX_SPANS) break;
    if (!out.length || r[0] >= out[out.length - 1][1]) out.push(r);
  }
  return out;
}

function examples(p: string, segs: Segment[]): Range[] {
  const found = matching(segs, EXAMPLE);
  for (let i = 0; i < segs.length && found.length < 3 * MAX_SPANS; i++) {
    const s = segs[i];
    // An input slot for the real data ("Input: {{text}}") is no example.
    if (!EXAMPLE_IN.test(s.body) || s.body.includes('{{')) continue;
    if (EXAMPLE_INLINE.test(s.body)) { found.push([s.start, s.end]); continue; }
    for (let j = i + 1; j < segs.length && j <= i + 3 && !EXAMPLE_IN.test(segs[j].body); j++) {
      if (EXAMPLE_OUT.test(segs[j].body)) { found.push([s.start, segs[j].end]); i = j; break; }
    }
  }
  // <example>…</example>: stops after MAX_SPANS tags, so a flood of unclosed tags costs at most that many searches.
  EXAMPLE_TAG.lastIndex = 0;
  for (let n = 0, m = EXAMPLE_TAG.exec(p); m && n < MAX_SPANS; n++, m = EXAMPLE_TAG.exec(p)) {
    const close = p.indexOf('</example', m.index + m[0].length);
    const gt = close < 0 ? -1 : p.indexOf('>', close);
    const end = gt < 0 ? m.index + m[0].length : gt + 1;
    found.push([m.index, end]);
    EXAMPLE_TAG.lastIndex = end;
  }
  return found;
}

const labelsOnly = (s: string): boolean => s.replace(PLACEHOLDER, '').split('\n').every((l) => LABEL_LINE.test(l));

/** Start of the line holding position a, or -1 when that line is longer than LINE_WINDOW. */
function lineStart(p: string, a: number): number {
  for (let i = a - 1; i >= 0 && a - i <= LINE_WINDOW; i--) if (p.charCodeAt(i) === 10) return i + 1;
  return a <= LINE_WINDOW ? 0 : -1;
}
function lineEnd(p: string, b: number): number {
  for (let i = b; i < p.length && i - b <= LINE_WINDOW; i++) if (p.charCodeAt(i) === 10) return i;
  return p.length - b <= LINE_WINDOW ? p.length : -1;
}

/** The delimited region around the placeholder at [ps, pe), or null when it is bare. */
function enclosure(p: string, ps: number, pe: number): Range | null {
  let a = ps, b = pe;
  while (a > 0 && ps - a < WINDOW && isWs(p.charCodeAt(a - 1))) a--;
  while (b < p.length && b - pe < WINDOW && isWs(p.charCodeAt(b))) b++;
  for (const [o, c] of PAIRS) if (a >= o.length && p.startsWith(o, a - o.length) && p.startsWith(c, b)) return [a - o.length, b + c.length];
  const ls = lineStart(p, a), le = lineEnd(p, b);
  if (ls >= 0 && le >= 0) {
    const o = MARK_OPEN.exec(p.slice(ls, a)), c = MARK_CLOSE.exec(p.slice(b, le));
    const kind = (m: RegExpExecArray): string => (m[1] ?? m[2] ?? 'B')[0];
    if (o && c && kind(o) === kind(c)) return [ls, le];
  }
  // <tag …> … </tag>: only whitespace, short labels ("Email:") and other placeholders may sit between tag and placeholder.
  const w = Math.max(0, ps - WINDOW), pre = p.slice(w, ps), lt = pre.lastIndexOf('<');
  const open = lt < 0 ? null : OPEN_TAG.exec(pre.slice(lt));
  if (open && labelsOnly(pre.slice(lt + open[0].length))) {
    const post = p.slice(pe, pe + WINDOW), gt = post.indexOf('<');
    const close = gt < 0 ? null : CLOSE_TAG.exec(post.slice(gt));
    if (close && close[1].toLowerCase() === open[1].toLowerCase() && labelsOnly(post.slice(0, gt))) return [w + lt, pe + gt + close[0].length];
  }
  return null;
}

function delimiters(p: string, variables: readonly string[]): { ranges: Range[]; found: boolean; advice: string } {
  if (!variables.length) return { ranges: [], found: false, advice: 'The task has no untrusted input, so there is nothing to delimit.' };
  const wanted = new Set(variables), used = new Set<string>(), bare = new Set<string>(), ranges: Range[] = [];
  for (const m of p.matchAll(PLACEHOLDER)) {
    if (!wanted.has(m[1])) continue;
    used.add(m[1]);
    const r = enclosure(p, m.index, m.index + m[0].length);
    if (r) ranges.push(r); else bare.add(m[1]);
  }
  const list = (names: Iterable<string>): string => [...names].map((n) => `{{${n}}}`).join(', ');
  if (!used.size) return { ranges: [], found: false, advice: `The prompt never inserts ${list(variables)}; add it inside delimiters such as <input>…</input>.` };
  if (bare.size) return { ranges: [], found: false, advice: `Enclose every use of ${list(bare)} in delimiters such as """…""" or <input>…</input> so the model can tell the data from the instructions.` };
  return { ranges, found: true, advice: `Every use of ${list(used)} is enclosed in delimiters.` };
}

/** Which elements of prompt craft `prompt` has; `variables` are the task's input variables (`{{name}}`). */
export function analyseCraft(prompt: string, variables: readonly string[]): CraftAnalysis {
  const p = typeof prompt === 'string' ? prompt : '';
  const segs = segments(p);
  const delim = delimiters(p, Array.isArray(variables) ? variables : []);
  const ranges: Record<CraftKey, Range[]> = {
    role: matching(segs, ROLE),
    task: matching(segs, TASK),
    context: matching(segs, CONTEXT),
    constraints: matching(segs, CONSTRAINTS),
    output_format: matching(segs, OUTPUT_FORMAT),
    examples: examples(p, segs),
    delimiters: delim.ranges,
    injection_guard: matching(segs, GUARD),
  };
  const elements = SPEC.map(([key, name, weight, missing]): CraftElement => {
    const spans = pick(ranges[key]).map((r) => toSpan(p, r));
    const found = key === 'delimiters' ? delim.found : spans.length > 0;
    const advice = key === 'delimiters' ? delim.advice : found ? `${name} found: "${clip(spans[0].text, 60)}".` : missing;
    return { key, name, found, weight, spans: found ? spans : [], advice };
  });
  const score = elements.reduce((sum, e) => sum + (e.found ? e.weight : 0), 0);
  return { version: CRAFT_VERSION, score, elements };
}
