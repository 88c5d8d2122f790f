import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * A psychometric instrument as Prep keeps it: scales (domains with their facets), items with their scale, key and
 * texts per language, the answer labels per language, and the published norm group if there is one. Instruments
 * are catalogue files under catalog/psychometric/; an item bank in an npm package is read from it (`items_from`).
 */
export interface Scale {
  key: string;
  name: string;
  facets: Array<{ key: string; name: string }>;
}

export interface Item {
  id: string;
  /** A domain key. */
  domain: string;
  /** A facet key of that domain, or null (short forms score domains only). */
  facet: string | null;
  keyed: 'plus' | 'minus';
  text: Record<string, string>;
}

export interface NormGroup {
  key: string;
  label: string;
  source: string;
  /** Scale key -> [mean, SD] of the raw score. */
  mean_sd: Record<string, [number, number]>;
}

export interface Instrument {
  slug: string;
  name: string;
  description: string;
  estimated_minutes: number;
  source: string;
  languages: string[];
  /** Language -> the five answer labels, for values 1..5. */
  choices: Record<string, string[]>;
  scales: Scale[];
  items: Item[];
  norms: NormGroup | null;
}

export class InstrumentError extends Error {}

const ROOT = new URL('../../../catalog/psychometric/', import.meta.url);
const require = createRequire(import.meta.url);

interface PackageItem { id: string; text: string; keyed: 'plus' | 'minus'; domain: string; facet: number }

/** Items and answer labels of an IPIP item bank published as an npm package (data/<lang>/questions.json, choices.js). */
function packageBank(name: string): Pick<Instrument, 'languages' | 'choices' | 'items'> {
  const dir = path.join(path.dirname(require.resolve(`${name}/package.json`)), 'data');
  const languages = (JSON.parse(readFileSync(path.join(dir, 'languages.json'), 'utf8')) as Array<{ id: string }>).map((l) => l.id);
  const items = new Map<string, Item>();
  const choices: Record<string, string[]> = {};
  for (const language of languages) {
    // Read as data, never through the package's getItems (it shuffles and mutates a cached array).
    const questions = JSON.parse(readFileSync(path.join(dir, language, 'questions.json'), 'utf8')) as PackageItem[];
    const labels = (require(path.join(dir, language, 'choices.js')) as { plus: Array<{ text: string; score: number }> }).plus;
    choices[language] = [...labels].sort((a, b) => a.score - b.score).map((c) => c.text);
    for (const q of questions) {
      const item = items.get(q.id) ?? { id: q.id, domain: q.domain, facet: `${q.domain}${q.facet}`, keyed: q.keyed, text: {} };
      if (item.domain !== q.domain || item.facet !== `${q.domain}${q.facet}` || item.keyed !== q.keyed) {
        throw new InstrumentError(`${name}: item ${q.id} is keyed differently in ${language}`);
      }
      item.text[language] = q.text;
      items.set(q.id, item);
    }
  }
  return { languages, choices, items: [...items.values()] };
}

interface NormsFile {
  source: string;
  names: Record<string, string>;
  [group: string]: unknown;
}

function readNorms(file: string, group: string): { norms: NormGroup; names: Record<string, string> } {
  const data = JSON.parse(readFileSync(new URL(file, ROOT), 'utf8')) as NormsFile;
  const g = data[group] as { label: string; mean_sd: Record<string, [number, number]> } | undefined;
  if (!g) throw new InstrumentError(`${file}: no norm group ${group}`);
  return { norms: { key: group, label: g.label, source: data.source, mean_sd: g.mean_sd }, names: data.names };
}

/** One catalogue file -> an instrument, checked whole. */
export function readInstrument(file: string): Instrument {
  const raw = JSON.parse(readFileSync(new URL(file, ROOT), 'utf8')) as Record<string, any>;
  let instrument: Instrument;
  if (raw.items_from) {
    const bank = packageBank(raw.items_from);
    const { norms, names } = readNorms(raw.norms.file, raw.norms.group);
    const domains = [...new Set(bank.items.map((i) => i.domain))];
    const scales = domains.map((d) => ({
      key: d, name: names[d] ?? d,
      facets: [...new Set(bank.items.filter((i) => i.domain === d).map((i) => i.facet!))].sort().map((f) => ({ key: f, name: names[f] ?? f })),
    }));
    instrument = { slug: raw.slug, name: raw.name, description: raw.description, estimated_minutes: raw.estimated_minutes, source: raw.source, ...bank, scales, norms };
  } else {
    instrument = raw as Instrument;
  }
  validateInstrument(instrument, file);
  return instrument;
}

/** Language tags as the API's assign takes them (routes.ts). */
export const LANGUAGE_TAG = /^[a-z]{2}(-[a-z]{2})?$/;
/** Item ids as the API's progress takes them (at most 64 characters). */
const ITEM_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** Every key complete: each item on a known scale, each scale and facet with items, each item in every language. */
export function validateInstrument(i: Instrument, where = i?.slug): void {
  const fail = (message: string) => { throw new InstrumentError(`${where}: ${message}`); };
  // The shape first, as the API shows it (an organisation's file is JSON from anywhere): a scale without a name made
  // its organisation's test list a 500, and a mean that is not a number labelled a score with no T "average".
  const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
  if (!isObject(i)) fail('an instrument is a JSON object');
  if (!/^[a-z0-9][a-z0-9-]*$/.test(typeof i.slug === 'string' ? i.slug : '')) fail('slug must be kebab-case');
  if (!isText(i.name) || !isText(i.description) || !isText(i.source)) fail('name, description and source are required');
  if (!Array.isArray(i.scales) || !Array.isArray(i.items) || !isObject(i.choices)) fail('scales, items and choices are required');
  // No scale means no item: a session of it would submit at once, unanswered, and score nothing.
  if (i.scales.length === 0) fail('an instrument needs at least one scale (each with its items)');
  for (const scale of i.scales) {
    if (!isObject(scale) || !isText(scale.key) || !isText(scale.name) || !Array.isArray(scale.facets)) fail('each scale needs a key, a name and facets (a list, empty without facets)');
    for (const facet of scale.facets) if (!isObject(facet) || !isText(facet.key) || !isText(facet.name)) fail(`each facet of ${scale.key} needs a key and a name`);
  }
  for (const item of i.items) if (!isObject(item) || !isObject(item.text)) fail('each item is an object with its texts');
  if (!Number.isInteger(i.estimated_minutes) || i.estimated_minutes < 1) fail('estimated_minutes must be a positive whole number');
  if (!Array.isArray(i.languages) || i.languages.length === 0) fail('languages are required');
  // As the API takes them: a language the assign route refuses, or an item id progress refuses, could never be used.
  for (const language of i.languages) if (!LANGUAGE_TAG.test(language)) fail(`language ${language} is not a tag like en or pt-br`);
  // One namespace for domain and facet keys: scores are summed per key, so a repeat would pool two scales.
  const keys = new Set<string>();
  for (const key of i.scales.flatMap((s) => [s.key, ...s.facets.map((f) => f.key)])) {
    if (keys.has(key)) fail(`scale key ${key} is used twice (domain and facet keys must all differ)`);
    keys.add(key);
  }
  const ids = new Set<string>();
  for (const item of i.items) {
    if (typeof item.id !== 'string' || !ITEM_ID.test(item.id)) fail(`item id ${String(item.id).slice(0, 80)} must be 1–64 letters, digits, '-', '_', '.' or ':'`);
    if (ids.has(item.id)) fail(`item ${item.id} appears twice`);
    ids.add(item.id);
    const scale = i.scales.find((s) => s.key === item.domain);
    if (!scale) fail(`item ${item.id} is on unknown domain ${item.domain}`);
    if (item.facet !== null && !scale!.facets.some((f) => f.key === item.facet)) fail(`item ${item.id} is on unknown facet ${item.facet}`);
    if (item.keyed !== 'plus' && item.keyed !== 'minus') fail(`item ${item.id} must be keyed plus or minus`);
    for (const language of i.languages) if (!isText(item.text[language])) fail(`item ${item.id} has no ${language} text`);
  }
  for (const scale of i.scales) {
    if (!i.items.some((item) => item.domain === scale.key)) fail(`domain ${scale.key} has no items`);
    for (const facet of scale.facets) if (!i.items.some((item) => item.facet === facet.key)) fail(`facet ${facet.key} has no items`);
  }
  for (const language of i.languages) {
    const labels = i.choices[language];
    if (!Array.isArray(labels) || labels.length !== 5 || !labels.every(isText)) fail(`${language} needs five answer labels`);
  }
  if (i.norms !== null && i.norms !== undefined) {
    if (!isObject(i.norms) || !isText(i.norms.key) || !isText(i.norms.label) || !isText(i.norms.source) || !isObject(i.norms.mean_sd)) {
      fail('norms need a key, a label, a source and mean_sd (or are null)');
    }
    // `local` names the norms Prep computes from an organisation's own sessions (report.ts says "local norms").
    if (i.norms!.key === 'local') fail('norm key local is reserved for the local norms computed from completed sessions');
    for (const key of i.scales.flatMap((s) => [s.key, ...s.facets.map((f) => f.key)])) {
      const ms = Object.hasOwn(i.norms!.mean_sd, key) ? i.norms!.mean_sd[key] : undefined;
      if (!Array.isArray(ms) || !Number.isFinite(ms[0]) || !Number.isFinite(ms[1]) || !(ms[1] > 0)) fail(`norms have no mean and SD for ${key}`);
    }
  }
}

/** Every instrument in catalog/psychometric/. */
export function readInstruments(): Instrument[] {
  if (!existsSync(ROOT)) return [];
  return readdirSync(ROOT).filter((f) => f.endsWith('.json')).sort().map((f) => readInstrument(f));
}
