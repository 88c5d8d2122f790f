import { Ajv as AjvDraft07 } from 'ajv';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats, { type FormatName } from 'ajv-formats';
import { head } from '../../platform/text.js';

/**
 * The assertion types of a prompt-engineering case, as promptfoo names them. Each deterministic type is a small
 * pure checker of one output; `sandbox` (a checker program in the code sandbox) and `rubric` (the model's verdict)
 * are decided by the grader. Every type can be negated with a `not-` prefix.
 */
export const ASSERTION_TYPES = [
  'equals', 'contains', 'icontains', 'contains-all', 'contains-any', 'regex', 'starts-with', 'is-json', 'json-schema', 'length',
  'sandbox', 'rubric',
] as const;
export type AssertionType = (typeof ASSERTION_TYPES)[number];
export const LENGTH_UNITS = ['chars', 'words', 'lines'] as const;
export type LengthUnit = (typeof LENGTH_UNITS)[number];

/** An assertion as authored (catalog/prompt-engineering/AUTHORING.md). */
export interface Assertion {
  type: string;
  value?: unknown;
  weight?: number;
  flags?: string;
  min?: number;
  max?: number;
  unit?: LengthUnit;
  program?: string;
}

export interface Verdict {
  passed: boolean;
  reason: string;
  /** The output could not be checked (its checker did not finish, or threw on it): it fails, negated or not. */
  undecided?: boolean;
}

/** An assertion made ready to check: its base type, whether negated, and (for local types) its checker. */
export type CompiledAssertion = {
  type: string;
  base: AssertionType;
  negated: boolean;
  weight: number;
} & (
  | { kind: 'local'; check(output: string): Verdict }
  | { kind: 'sandbox'; program: string; value?: unknown }
  | { kind: 'rubric'; criterion: string }
);

export class AssertionError extends Error {}

// addUsedSchema false: a schema's `$id` is not kept for later ones, so one task's (or organisation's) schema can neither
// clash with another's nor be reached by its `$ref`.
const AJV_OPTIONS = { allErrors: false, strict: false, addUsedSchema: false };
const ajv = new Ajv2020(AJV_OPTIONS);
// Draft-07 too, for a schema that says so in `$schema` (promptfoo's and many tools' default; its `items` differs).
const ajv07 = new AjvDraft07(AJV_OPTIONS);
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
// The formats of ajv-formats, checked as promptfoo checks them; not `url`, whose pattern backtracks (seconds on 64 KiB a
// candidate can ask the model for): a `format` not listed is ignored, as before.
const FORMATS: FormatName[] = [
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'email', 'hostname',
  'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float',
  'double', 'password', 'binary',
];
ajvFormats.default(ajv, FORMATS);
ajvFormats.default(ajv07, FORMATS);

/** The validator for a schema's dialect: draft 2020-12 unless `$schema` names draft-07; any other dialect is refused. */
function validatorFor(schema: Record<string, unknown>, where: string): AjvDraft07 | Ajv2020 {
  const dialect = schema.$schema;
  if (dialect === undefined || (typeof dialect === 'string' && DRAFT_2020.test(dialect))) return ajv;
  if (typeof dialect === 'string' && DRAFT_07.test(dialect)) return ajv07;
  throw new AssertionError(`${where}: json-schema's $schema must be draft 2020-12 (the default) or draft-07, not ${JSON.stringify(dialect).slice(0, 80)}`);
}
const REASON_QUOTE_MAX = 80;
export const RUBRIC_MAX = 2000;
/** The file a sandbox assertion's value is written to, beside its checker program. */
export const CHECKER_VALUE_FILE = 'value.json';
const SANDBOX_VALUE_MAX = 64 * 1024;

/** Text cut to `max` characters, marked with … when cut (reasons and errors). */
export function clip(text: string, max = 300): string {
  return text.length > max ? `${head(text, max)}…` : text;
}

/** A value as a reason shows it: quoted, cut to a readable length. */
export function quote(value: string): string {
  const oneLine = value.replace(/\s+/g, ' ');
  return JSON.stringify(oneLine.length > REASON_QUOTE_MAX ? `${head(oneLine, REASON_QUOTE_MAX)}…` : oneLine);
}

export function splitType(type: string): { base: string; negated: boolean } {
  return type.startsWith('not-') ? { base: type.slice(4), negated: true } : { base: type, negated: false };
}

const isAssertionType = (t: string): t is AssertionType => (ASSERTION_TYPES as readonly string[]).includes(t);

/**
 * Text as local assertions compare it: Unicode NFC, so "é" as one code point and as "e" plus a combining accent are
 * the same (models emit either). Values are normalised when compiled, each output once before its checks.
 */
export function comparable(text: string): string {
  return text.normalize('NFC');
}

function needString(a: Assertion, where: string): string {
  if (typeof a.value !== 'string' || a.value.length === 0) throw new AssertionError(`${where}: ${a.type} needs a non-empty string value`);
  return comparable(a.value);
}

function needStrings(a: Assertion, where: string): string[] {
  if (!Array.isArray(a.value) || a.value.length === 0 || !a.value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new AssertionError(`${where}: ${a.type} needs a non-empty array of non-empty strings`);
  }
  return (a.value as string[]).map(comparable);
}

function parseJson(output: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(output.trim()) };
  } catch (error) {
    return { ok: false, reason: `the output is not JSON (${head((error as Error).message, 120)})` };
  }
}

function measure(output: string, unit: LengthUnit): number {
  if (unit === 'chars') return [...output.trim()].length;
  if (unit === 'words') return output.split(/\s+/).filter(Boolean).length;
  return output.split(/\r?\n/).filter((l) => l.trim() !== '').length;
}

/** The checker of one deterministic type; its reason says what was found, so it reads right when negated too. */
function localChecker(base: AssertionType, a: Assertion, where: string): (output: string) => Verdict {
  switch (base) {
    case 'equals': {
      const want = needString(a, where).trim();
      // Both sides are trimmed: a value of white space alone would pass an empty output.
      if (want.length === 0) throw new AssertionError(`${where}: equals needs a value with more than white space`);
      const shown = quote(want);
      return (o) => (o.trim() === want ? { passed: true, reason: `the output equals ${shown}` } : { passed: false, reason: `the output ${quote(o.trim())} is not ${shown}` });
    }
    case 'contains': {
      const want = needString(a, where);
      const found = { passed: true, reason: `found ${quote(want)}` };
      const missing = { passed: false, reason: `${quote(want)} not found` };
      return (o) => (o.includes(want) ? found : missing);
    }
    case 'icontains': {
      const want = needString(a, where);
      const lower = want.toLowerCase();
      const found = { passed: true, reason: `found ${quote(want)} (ignoring case)` };
      const missing = { passed: false, reason: `${quote(want)} not found (ignoring case)` };
      return (o) => (o.toLowerCase().includes(lower) ? found : missing);
    }
    case 'contains-all': {
      const wants = needStrings(a, where);
      const all = { passed: true, reason: `found all ${wants.length}` };
      return (o) => {
        const missing = wants.filter((w) => !o.includes(w));
        return missing.length === 0 ? all : { passed: false, reason: `missing ${missing.map(quote).join(', ')}` };
      };
    }
    case 'contains-any': {
      const wants = needStrings(a, where);
      const none = { passed: false, reason: `none of ${wants.map(quote).join(', ')} found` };
      return (o) => {
        const found = wants.find((w) => o.includes(w));
        return found !== undefined ? { passed: true, reason: `found ${quote(found)}` } : none;
      };
    }
    case 'regex': {
      const pattern = needString(a, where);
      const flags = a.flags ?? '';
      if (typeof flags !== 'string' || !/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length) throw new AssertionError(`${where}: regex flags are some of i, m, s, u`);
      let re: RegExp;
      try {
        re = new RegExp(pattern, flags);
      } catch (error) {
        throw new AssertionError(`${where}: regex does not compile: ${(error as Error).message}`);
      }
      return (o) => {
        const m = re.exec(o);
        return m ? { passed: true, reason: `/${pattern}/${flags} matches ${quote(m[0])}` } : { passed: false, reason: `/${pattern}/${flags} does not match` };
      };
    }
    case 'starts-with': {
      const want = needString(a, where);
      // The output's leading white space is ignored, so a value that starts with some could never match.
      if (want.trimStart() !== want) throw new AssertionError(`${where}: starts-with needs a value that does not start with white space`);
      const shown = quote(want);
      return (o) => (o.trimStart().startsWith(want) ? { passed: true, reason: `starts with ${shown}` } : { passed: false, reason: `starts with ${quote(head(o.trimStart(), want.length + 10))}, not ${shown}` });
    }
    case 'is-json':
      return (o) => {
        const parsed = parseJson(o);
        return parsed.ok ? { passed: true, reason: 'the output is valid JSON' } : { passed: false, reason: parsed.reason };
      };
    case 'json-schema': {
      if (typeof a.value !== 'object' || a.value === null || Array.isArray(a.value)) throw new AssertionError(`${where}: json-schema needs a schema object as its value`);
      const validator = validatorFor(a.value as Record<string, unknown>, where);
      let validate: ValidateFunction;
      try {
        validate = validator.compile(a.value);
      } catch (error) {
        throw new AssertionError(`${where}: the schema does not compile: ${(error as Error).message}`);
      }
      return (o) => {
        const parsed = parseJson(o);
        if (!parsed.ok) return { passed: false, reason: parsed.reason };
        if (validate(parsed.value)) return { passed: true, reason: 'the JSON matches the schema' };
        const e = validate.errors?.[0];
        return { passed: false, reason: `the JSON does not match the schema: ${e ? `${e.instancePath || '/'} ${e.message ?? ''}`.trim() : 'invalid'}` };
      };
    }
    case 'length': {
      const unit = a.unit ?? 'chars';
      if (!(LENGTH_UNITS as readonly string[]).includes(unit)) throw new AssertionError(`${where}: length unit is chars, words or lines`);
      const bound = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
      if ((a.min === undefined && a.max === undefined) || !bound(a.min) || !bound(a.max) || (a.min !== undefined && a.max !== undefined && a.min > a.max)) {
        throw new AssertionError(`${where}: length needs min and/or max, whole numbers with min ≤ max`);
      }
      const { min, max } = a;
      return (o) => {
        const n = measure(o, unit);
        const inside = (min === undefined || n >= min) && (max === undefined || n <= max);
        const range = min !== undefined && max !== undefined ? `${min}–${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
        return { passed: inside, reason: `${n} ${unit} (${inside ? 'within' : 'outside'} ${range})` };
      };
    }
    default:
      throw new AssertionError(`${where}: ${base} is not a local assertion`);
  }
}

/**
 * Validates an authored assertion and makes it ready to check. `programs` are the task's checker files (path →
 * source); a sandbox assertion must name one of them.
 */
export function compileAssertion(a: Assertion, where: string, programs: Readonly<Record<string, string>> = {}): CompiledAssertion {
  if (typeof a !== 'object' || a === null || typeof a.type !== 'string') throw new AssertionError(`${where}: an assertion is an object with a type`);
  const allowed = new Set(['type', 'value', 'weight', 'flags', 'min', 'max', 'unit', 'program']);
  const unknown = Object.keys(a).filter((k) => !allowed.has(k));
  if (unknown.length) throw new AssertionError(`${where}: unknown field(s) ${unknown.join(', ')}`);
  const { base, negated } = splitType(a.type);
  if (!isAssertionType(base)) throw new AssertionError(`${where}: unknown assertion type '${a.type}' (types: ${ASSERTION_TYPES.join(', ')}, each also as not-…)`);
  const weight = a.weight ?? 1;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0 || weight > 100) throw new AssertionError(`${where}: weight is a positive number up to 100`);
  const shared = { type: a.type, base, negated, weight };
  if (base === 'sandbox') {
    // Own files only: a program named `constructor` or `__proto__` is no checker.
    if (typeof a.program !== 'string' || !Object.hasOwn(programs, a.program)) throw new AssertionError(`${where}: sandbox needs program, one of the task's checkers/ files (got ${JSON.stringify(a.program)})`);
    if (a.value !== undefined && JSON.stringify(a.value).length > SANDBOX_VALUE_MAX) throw new AssertionError(`${where}: a sandbox value is at most ${SANDBOX_VALUE_MAX} bytes of JSON`);
    return { ...shared, kind: 'sandbox', program: a.program, ...(a.value === undefined ? {} : { value: a.value }) };
  }
  if (base === 'rubric') {
    const criterion = needString(a, where);
    if (criterion.length > RUBRIC_MAX) throw new AssertionError(`${where}: a rubric is at most ${RUBRIC_MAX} characters`);
    return { ...shared, kind: 'rubric', criterion };
  }
  const check = localChecker(base, a, where);
  return { ...shared, kind: 'local', check };
}

/**
 * An assertion's result, with negation applied. An output that could not be checked fails either way: a guard
 * (`not-sandbox`) is not kept by an output that makes its checker run out of time.
 */
export function applyNegation(a: Pick<CompiledAssertion, 'negated'>, v: Verdict): { passed: boolean; reason: string } {
  if (v.undecided) return { passed: false, reason: v.reason };
  return { passed: a.negated ? !v.passed : v.passed, reason: v.reason };
}

/**
 * A local assertion's verdict on an output already made `comparable`; a checker that throws on the output (a schema
 * recursing past the stack) fails it.
 */
export function checkLocal(a: { check(output: string): Verdict }, output: string): Verdict {
  try {
    return a.check(output);
  } catch (error) {
    return { passed: false, undecided: true, reason: `the output could not be checked (${clip(error instanceof Error ? error.message : String(error), 120)})` };
  }
}
