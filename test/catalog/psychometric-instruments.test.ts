import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InstrumentError, readInstruments, validateInstrument, type Instrument } from '../../src/modules/psychometric/instrument.js';

// The psychometric catalogue itself: every instrument's key is complete and matches its published structure.
const instruments = readInstruments();
const bySlug = (slug: string) => instruments.find((i) => i.slug === slug)!;

describe('the psychometric catalogue', () => {
  it('holds the IPIP-NEO-120 and the Mini-IPIP, each passing the full check', () => {
    expect(instruments.map((i) => i.slug).sort()).toEqual(['ipip-neo-120', 'mini-ipip']);
    for (const i of instruments) expect(() => validateInstrument(i)).not.toThrow();
  });

  it('IPIP-NEO-120: item i is on domain "NEOAC"[(i−1) mod 5] and facet ⌊((i−1) mod 30)/5⌋ + 1, four items a facet, 32 languages', () => {
    const neo = bySlug('ipip-neo-120');
    expect(neo.items).toHaveLength(120);
    neo.items.forEach((item, i) => {
      expect(item.domain).toBe('NEOAC'[i % 5]);
      expect(item.facet).toBe(`${item.domain}${Math.floor((i % 30) / 5) + 1}`);
    });
    for (const s of neo.scales) for (const f of s.facets) expect(neo.items.filter((i) => i.facet === f.key)).toHaveLength(4);
    expect(neo.languages).toHaveLength(32);
    expect(neo.items.filter((i) => i.keyed === 'minus')).toHaveLength(55);
    expect(neo.scales.flatMap((s) => s.facets.map((f) => f.name))).toContain('Cautiousness');
    expect(neo.norms?.key).toBe('pooled_working_age');
  });

  it('the norms are the shared reference figures, unchanged', () => {
    const shared = new URL('../../../shared/data/psychometrics/ipip-neo-120-norms.json', import.meta.url);
    let text: string | null = null;
    try { text = readFileSync(shared, 'utf8'); } catch { /* shared/ is beside the repository in CI and on developers' machines */ }
    if (text === null) return;
    expect(JSON.parse(readFileSync(new URL('../../catalog/psychometric/norms/ipip-neo-120.json', import.meta.url), 'utf8'))).toEqual(JSON.parse(text));
  });

  it('Mini-IPIP: four items per domain, two keyed each way except Intellect (one plus, three minus), as published', () => {
    const mini = bySlug('mini-ipip');
    expect(mini.items).toHaveLength(20);
    for (const s of mini.scales) {
      const items = mini.items.filter((i) => i.domain === s.key);
      expect(items).toHaveLength(4);
      expect(items.filter((i) => i.keyed === 'plus')).toHaveLength(s.key === 'O' ? 1 : 2);
    }
    expect(mini.norms).toBeNull();
  });

  it('refuses an instrument whose key is incomplete', () => {
    const mini = bySlug('mini-ipip');
    const broken: Instrument = { ...mini, items: mini.items.filter((i) => i.domain !== 'E') };
    expect(() => validateInstrument(broken)).toThrow(/domain E has no items/);
    const untranslated: Instrument = { ...mini, languages: ['en', 'de'], choices: { ...mini.choices, de: mini.choices.en! } };
    expect(() => validateInstrument(untranslated)).toThrow(/has no de text/);
  });

  // Was a bug: an organisation's instrument file could be loaded that scores wrongly or can never be completed.
  it('refuses a facet keyed like a domain (their scores would be pooled), item ids or languages the API could never take', () => {
    const mini = bySlug('mini-ipip');
    const pooled: Instrument = { ...mini, scales: mini.scales.map((s) => (s.key === 'E' ? { ...s, facets: [{ ...(s.facets[0] ?? { name: 'Sociable', key: 'x' }), key: 'A', name: 'Sociable' }] } : s)), items: mini.items.map((it) => (it.domain === 'E' ? { ...it, facet: 'A' } : it)) };
    expect(() => validateInstrument(pooled)).toThrow(/scale key A is used twice/);
    const longId: Instrument = { ...mini, items: mini.items.map((it, n) => (n === 8 ? { ...it, id: 'x'.repeat(65) } : it)) };
    expect(() => validateInstrument(longId)).toThrow(/must be 1–64/);
    const odd: Instrument = { ...mini, languages: ['en', 'fil'], choices: { ...mini.choices, fil: mini.choices.en! }, items: mini.items.map((it) => ({ ...it, text: { ...it.text, fil: it.text.en! } })) };
    expect(() => validateInstrument(odd)).toThrow(/language fil/);
  });

  // Was a bug: a file the API cannot show was loaded. A scale without a name made the organisation's whole test list
  // answer 500; a mean that is not a number gave scores no T-score but the label "average"; a malformed structure
  // failed with a TypeError (the CLI printed a stack) instead of saying what is wrong.
  it('refuses a file whose shape the API cannot serve, saying what is wrong', () => {
    const mini = bySlug('mini-ipip');
    const broken = (change: (m: any) => unknown) => () => validateInstrument(change(structuredClone(mini)) as Instrument, 'file.json');
    const cases: Array<[(m: any) => unknown, RegExp]> = [
      [(m) => ({ ...m, scales: m.scales.map((sc: any, n: number) => (n === 0 ? { key: sc.key, facets: [] } : sc)) }), /each scale needs a key, a name/],
      [(m) => ({ ...m, scales: m.scales.map((sc: any) => ({ key: sc.key, name: sc.name })) }), /each scale needs a key, a name and facets/],
      [(m) => ({ ...m, scales: undefined }), /scales, items and choices are required/],
      [(m) => ({ ...m, items: [null, ...m.items] }), /each item is an object/],
      [(m) => ({ ...m, items: m.items.map((it: any, n: number) => (n === 0 ? { ...it, text: { en: { a: 1 } } } : it)) }), /has no en text/],
      [(m) => ({ ...m, choices: { en: [1, 2, 3, 4, 5] } }), /en needs five answer labels/],
      [(m) => ({ ...m, norms: { key: 'x', label: 'x', source: 'x', mean_sd: Object.fromEntries(m.scales.map((sc: any) => [sc.key, ['12', 2]])) } }), /norms have no mean and SD/],
      [(m) => ({ ...m, norms: 'published' }), /norms need a key/],
      // Was a bug: a file's own norms keyed `local` were reported as the organisation's local norms ("Scored against local
      // norms"), which Prep computes from its completed sessions; the key is reserved for those.
      [(m) => ({ ...m, norms: { key: 'local', label: 'x', source: 'x', mean_sd: Object.fromEntries(m.scales.map((sc: any) => [sc.key, [12, 2]])) } }), /norm key local is reserved/],
      [() => null, /an instrument is a JSON object/],
      // Was a bug: an instrument with no scales (so no items) was loaded; its sessions submitted at once, unanswered, with
      // a report naming no highest and no lowest domain and a time per item of null (seconds / 0 items).
      [(m) => ({ ...m, scales: [], items: [] }), /at least one scale/],
    ];
    for (const [change, message] of cases) {
      expect(broken(change), String(message)).toThrow(InstrumentError);
      expect(broken(change), String(message)).toThrow(message);
    }
  });
});
