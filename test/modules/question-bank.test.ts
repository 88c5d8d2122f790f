import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgedByProblem } from '../../src/modules/question-bank/activity.js';
import { addOrganizationQuestions } from '../../src/modules/question-bank/catalog.js';
import { questionId, QuestionFileError } from '../../src/modules/question-bank/content.js';
import { importCompanyFolders, WINDOW_FILE_MAX_BYTES } from '../../src/modules/question-bank/import.js';
import { testClient } from '../helpers/client.js';
import { DIALECT, startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';

let h: Harness;
let client: ReturnType<typeof testClient>;
let org: Awaited<ReturnType<Harness['createOrg']>>;
let other: Awaited<ReturnType<Harness['createOrg']>>;
let dir: string;
const key = () => org.keys.secret_test;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  client = testClient(h);
  org = await h.createOrg('Bank Co', 50);
  other = await h.createOrg('Other Co', 50);
  dir = mkdtempSync(path.join(tmpdir(), 'prep-bank-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h.close();
});

const list = (query: string, k = key()) => client.call('GET', `/v1/question-bank/questions${query ? `?${query}` : ''}`, { key: k });

/** Every page of a query, following next_cursor. */
async function all(query: string, k = key()) {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await list(`${query}&limit=100${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`, k);
    expect(res.status, res.raw).toBe(200);
    items.push(...res.body.data);
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      return items;
    }
    expect(typeof res.body.next_cursor).toBe('string');
    cursor = res.body.next_cursor;
  }
  throw new Error('too many pages');
}

describe('browsing the bank', () => {
  it('pages through the whole bank with no duplicates or gaps, in the stable order of a fresh install', async () => {
    const first = await list('');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data).toHaveLength(20);
    const items = await all('time_bucket=all');
    expect(items.length).toBeGreaterThanOrEqual(300);
    expect(new Set(items.map((q) => q.id)).size).toBe(items.length);
    // Nothing asked yet: every figure is zero or null, never invented, and the tie-break is the id.
    for (const q of items) {
      expect(q.statistics).toMatchObject({ source: 'measured', asked_count: 0, frequency: 0, judged_count: 0, acceptance: null });
      expect(q.imported_statistics).toBeNull();
    }
    expect(items.map((q) => q.id)).toEqual([...items.map((q) => q.id)].sort());
    // Smaller pages walk the same sequence.
    const small: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await list(`limit=37${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`);
      small.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(small.map((q) => q.id)).toEqual(items.map((q) => q.id));
  });

  it('filters by category, difficulty and topic (slug or name), together', async () => {
    const design = await all('category=system-design');
    expect(design.length).toBeGreaterThanOrEqual(40);
    expect(design.every((q) => q.category === 'system-design')).toBe(true);
    const hard = await all('category=Coding&difficulty=hard');
    expect(hard.length).toBeGreaterThan(0);
    expect(hard.every((q) => q.category === 'coding' && q.difficulty === 'hard')).toBe(true);
    const byName = await all('topic=Hash%20Table');
    const bySlug = await all('topic=hash-table');
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.map((q) => q.id)).toEqual(bySlug.map((q) => q.id));
    expect(byName.every((q) => q.topics.includes('hash-table'))).toBe(true);
    // Was a bug: a category whose slug is not its name slugified ("Behavioural" is behavioral, "SQL and data" is
    // sql-data) matched nothing by the name /categories gives it.
    const categories = (await client.ok('GET', '/v1/question-bank/categories?limit=100', { key: key() })).data;
    for (const c of categories) {
      const named = (await list(`category=${encodeURIComponent(c.name)}&limit=100`)).body;
      expect(named.data.length, c.name).toBe(Math.min(c.question_count, 100));
      expect(named.data.every((q: any) => q.category === c.slug), c.name).toBe(true);
      expect(named.next_cursor === null, c.name).toBe(c.question_count <= 100);
    }
    // Unknown values are an empty page, not an error.
    for (const query of ['company=nobody-inc', 'topic=underwater-basket-weaving', 'category=astrology']) {
      const res = await list(query);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ data: [], has_more: false, next_cursor: null });
    }
  });

  it('sorts by difficulty and by acceptance with a stable tie-break', async () => {
    const byDifficulty = await all('sort=difficulty&category=coding');
    const ranks = byDifficulty.map((q) => ['easy', 'medium', 'hard'].indexOf(q.difficulty));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    for (let i = 1; i < byDifficulty.length; i++) {
      if (byDifficulty[i].difficulty === byDifficulty[i - 1].difficulty) expect(byDifficulty[i].id > byDifficulty[i - 1].id).toBe(true);
    }
    const byAcceptance = await all('sort=acceptance&category=coding');
    expect(byAcceptance.map((q) => q.id).sort()).toEqual(byDifficulty.map((q) => q.id).sort());
  });

  it('refuses invalid enum values naming the parameter, and a tampered or foreign cursor', async () => {
    for (const [query, param] of [['difficulty=extreme', 'difficulty'], ['time_bucket=7d', 'time_bucket'], ['sort=popularity', 'sort'], ['limit=0', 'limit'], ['limit=101', 'limit'], ['colour=red', 'colour']]) {
      const res = await list(query!);
      expect(res.status, query).toBe(400);
      expect(res.body.error.param, query).toBe(param);
    }
    const page = await list('category=coding&limit=5');
    const cursor: string = page.body.next_cursor;
    // A character of the body changed (the body's characters all carry six bits; a signature's last one does not).
    const tampered = cursor.slice(0, 3) + (cursor[3] === 'A' ? 'B' : 'A') + cursor.slice(4);
    // Was a flake (one run in 256): the same signature bytes spelled another way, by the spare bits of its last
    // character, were accepted. The test changed the last two characters, and "AA" to "AB" changes spare bits only.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = cursor.slice(0, -1) + ALPHABET[ALPHABET.indexOf(cursor.at(-1)!) | 1];
    expect(Buffer.from(respelled.split('.')[1]!, 'base64url')).toEqual(Buffer.from(cursor.split('.')[1]!, 'base64url'));
    for (const bad of [tampered, respelled, 'not-a-cursor', `${cursor}.x`, Buffer.from('{"o":5}').toString('base64url')]) {
      const res = await list(`category=coding&limit=5&starting_after=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    // Made for another query, another organisation or another environment: refused too.
    expect((await list(`category=sql-data&limit=5&starting_after=${encodeURIComponent(cursor)}`)).body.error.code).toBe('invalid_cursor');
    expect((await list(`category=coding&limit=5&starting_after=${encodeURIComponent(cursor)}`, other.keys.secret_test)).body.error.code).toBe('invalid_cursor');
    expect((await list(`category=coding&limit=5&starting_after=${encodeURIComponent(cursor)}`, org.keys.secret_live)).body.error.code).toBe('invalid_cursor');
    const next = await list(`category=coding&limit=5&starting_after=${encodeURIComponent(cursor)}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((q: any) => q.id)).not.toContain(page.body.data[0].id);
  });

  it('lists categories and topics with their counts, and no companies on a fresh install', async () => {
    const categories = await client.ok('GET', '/v1/question-bank/categories?limit=100', { key: key() });
    const coding = categories.data.find((c: any) => c.slug === 'coding');
    expect(coding).toMatchObject({ object: 'question_bank_category', name: 'Coding' });
    expect(coding.question_count).toBe((await all('category=coding')).length);
    const topics = await client.ok('GET', '/v1/question-bank/topics?limit=100', { key: key() });
    const hash = topics.data.find((t: any) => t.slug === 'hash-table');
    expect(hash).toMatchObject({ name: 'Hash Table', question_count: (await all('topic=hash-table')).length });
    const counts = topics.data.map((t: any) => t.question_count);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    const companies = await client.ok('GET', '/v1/question-bank/companies', { key: other.keys.secret_test });
    expect(companies).toMatchObject({ object: 'list', data: [], has_more: false });
  });

  it('shows one question with its prompt, guidance and statistics per bucket; 404 for an unknown or malformed id', async () => {
    const [first] = (await list('category=behavioral&limit=1')).body.data;
    const q = await client.ok('GET', `/v1/question-bank/questions/${first.id}`, { key: key() });
    expect(q).toMatchObject({ object: 'question_bank_question', id: first.id, category: 'behavioral', source: 'prep', custom: false });
    expect(q.prompt.length).toBeGreaterThan(100);
    expect(q.guidance.key_points.length).toBeGreaterThanOrEqual(3);
    expect(q.guidance.follow_ups.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(q.statistics)).toEqual(['30d', '90d', '180d', 'all']);
    expect(q.statistics['30d'].window.end - q.statistics['30d'].window.start).toBe(30 * 86_400);
    expect(q.statistics.all.window.start).toBeNull();
    for (const id of ['018f0000-0000-7000-8000-000000000000', 'not-a-uuid', '%27%20or%201%3D1']) {
      const res = await client.call('GET', `/v1/question-bank/questions/${id}`, { key: key() });
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    // Past the router's limit on a path parameter, as on every route.
    expect((await client.call('GET', `/v1/question-bank/questions/${'x'.repeat(101)}`, { key: key() })).body.error.code).toBe('parameter_invalid');
    // The bank is for the secret key: a publishable key or no key is refused.
    expect((await client.call('GET', `/v1/question-bank/questions/${first.id}`, { key: org.keys.publishable_test })).status).toBe(401);
    expect((await client.call('GET', '/v1/question-bank/questions')).status).toBe(401);
    // Guidance is for interviewers: a candidate's session token reads nothing of the bank.
    const s = await judgingKit(h).session(key(), 'foundations-practice-set', { start: false });
    for (const url of [`/v1/question-bank/questions/${first.id}`, '/v1/question-bank/questions']) {
      expect((await client.call('GET', url, { token: s.token })).status, url).toBe(401);
    }
  });

  it('answers 403 module_not_enabled when the organisation has the module off', async () => {
    const off = await h.createOrg('No Bank', 1);
    await h.services.organizations.setModule(off.id, 'question_bank', false);
    for (const url of ['/v1/question-bank/questions', '/v1/question-bank/companies', '/v1/question-bank/categories', '/v1/question-bank/topics']) {
      const res = await client.call('GET', url, { key: off.keys.secret_test });
      expect(res.status, url).toBe(403);
      expect(res.body.error.code).toBe('module_not_enabled');
    }
  });
});

describe('search', () => {
  it('finds questions by their words, ranked, and narrows with filters and sort', async () => {
    const cache = await all('search=cache%20invalidation');
    expect(cache.length).toBeGreaterThan(0);
    expect(cache.slice(0, 5).some((q) => /cach/i.test(q.title))).toBe(true);
    const phrase = await all('search=%22rate%20limiter%22');
    expect(phrase.length).toBeGreaterThan(0);
    const excluded = await all('search=rate%20limiter%20-token');
    expect(excluded.length).toBeLessThanOrEqual(phrase.length + 10);
    const sorted = await all('search=cache&sort=difficulty');
    const ranks = sorted.map((q) => ['easy', 'medium', 'hard'].indexOf(q.difficulty));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const narrowed = await all('search=cache&category=system-design');
    expect(narrowed.every((q) => q.category === 'system-design')).toBe(true);
  });

  it('accepts any input without a syntax error: quotes, operators, brackets, unicode', async () => {
    const hostile = [
      '"', '""', '"unclosed phrase', 'AND', 'OR OR', 'NOT', '-', '--', '*', 'cache*', '(', ')', 'a)(b', 'NEAR(a b)', 'title:cache',
      '^cache', "'; drop table question_bank_questions; --", '\\', '%', '_', '{}', '😀', 'naïve café', 'Ünïcödé', '数据库', 'x'.repeat(200),
      'cache OR', 'OR cache', '-cache', '"-"', 'a -"b c"', '\u200b', 'caché', '-'.repeat(33), `a${' -'.repeat(99)}`,
      `${'-'.repeat(31)} ${'-'.repeat(31)}`, 'a '.repeat(100), 'cache ❤️', 'cache ◌́', '!!! ??? ...',
    ];
    for (const text of hostile) {
      const res = await list(`search=${encodeURIComponent(text)}`);
      expect(res.status, `${text}: ${res.raw}`).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
    }
    expect((await list(`search=${encodeURIComponent('x'.repeat(201))}`)).status).toBe(400);
    // Nothing positive to look for matches nothing, on both engines.
    for (const text of ['""', '-cache', '!!! ???', '-'.repeat(40)]) expect((await all(`search=${encodeURIComponent(text)}`)).length, text).toBe(0);
    // Was a bug: PostgreSQL drops stop words, so "the -cache" became NOT cache and matched every other question.
    if (DIALECT === 'postgres') expect((await all(`search=${encodeURIComponent('the -cache')}`)).length).toBe(0);
    // A variation selector or a lone combining mark is not a word: it does not empty the results.
    expect((await all(`search=${encodeURIComponent('cache ❤️')}`)).length).toBe((await all('search=cache')).length);
  });

  // Was a bug on PostgreSQL: websearch_to_tsquery binds AND tighter than OR, so `"rate limiter" or cache queue` meant
  // rate limiter OR (cache AND queue) there, and (rate limiter OR cache) AND queue on SQLite.
  it('reads `or` as joining the terms beside it, then ANDs the rest and the exclusions, on both engines', async () => {
    const ids = async (text: string) => new Set((await all(`search=${encodeURIComponent(text)}`)).map((q) => q.id as string));
    const [limiter, cache, queue] = [await ids('"rate limiter"'), await ids('cache'), await ids('queue')];
    // The data tells the two readings apart: some rate limiter question never says queue.
    expect([...limiter].some((id) => !queue.has(id))).toBe(true);
    const expected = [...limiter, ...cache].filter((id) => queue.has(id));
    expect([...await ids('"rate limiter" or cache queue')].sort()).toEqual([...new Set(expected)].sort());
    const withoutQueue = [...limiter, ...cache].filter((id) => !queue.has(id));
    expect([...await ids('"rate limiter" or cache -queue')].sort()).toEqual([...new Set(withoutQueue)].sort());
  });

  // Was a bug on PostgreSQL: SQLite's index folds Latin accents (remove_diacritics), PostgreSQL's kept them, so `cafe`
  // found "Café" on one engine only, and `naive` never found "naïve" there.
  it('finds words with or without their accents, in any case, on both engines', async () => {
    const accented = await h.createOrg('Accents Co', 1);
    const file = path.join(dir, 'accents.json');
    const prompt = 'A café keeps a naïve queue of orders on a whiteboard. Design the ordering system that replaces it for a chain of shops in Zürich, covering how orders reach the kitchen and how the queue survives an outage.';
    const guidance = { key_points: ['Orders are durable before they are acknowledged', 'Kitchen displays subscribe per shop', 'Outage mode keeps taking orders'], follow_ups: ['What happens at peak?', 'How do you replay?'] };
    writeFileSync(file, JSON.stringify([
      { slug: 'cafe-orders', title: 'Naïve Café ordering', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt, guidance },
      { slug: 'ecole-timetable', title: 'ÉCOLE ZÜRICH timetable', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt: prompt.replace('café', 'school'), guidance },
    ]));
    const [cafe, ecole] = await addOrganizationQuestions(h.db.kysely, accented.id, file);
    const found = async (text: string) => (await all(`search=${encodeURIComponent(text)}&category=system-design`, accented.keys.secret_test)).map((q) => q.id);
    for (const text of ['cafe', 'café', 'CAFÉ', 'Cafe\u0301', 'naive', 'naïve', '"naive cafe"']) expect(await found(text), text).toContain(cafe);
    for (const text of ['ecole', 'école', 'ÉCOLE', 'zurich timetable', 'zürich']) expect(await found(text), text).toContain(ecole);
    expect(await found('zurich -cafe'), 'zurich -cafe').toEqual([ecole]);
  });

  // Was a gap on both engines: neither folded ligatures (ﬁ, ﬂ), ß or Greek accents, in the text or in a search, so
  // `finch` found no "ﬁnch" (a PDF's copy), `strasse` no "Straße", and `ελλαδα` no "Ελλάδα".
  it('folds ligatures, ß and Greek accents in the text and in a search, the same on both engines', async () => {
    const folded = await h.createOrg('Folding Co', 1);
    const file = path.join(dir, 'folding.json');
    const prompt = 'A census of every ﬁnch and ﬂamingo in the reserve arrives each night from rangers. Design the import that loads it, covering how a malformed row is reported and how a ranger re-sends a corrected census without duplicating birds.';
    const guidance = { key_points: ['Rows are validated before loading', 'Idempotent by booking reference', 'Partners get a report'], follow_ups: ['What if the file is huge?', 'How do you replay?'] };
    writeFileSync(file, JSON.stringify([
      { slug: 'strasse-files', title: 'Straße registry of ﬁnches', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt, guidance },
      { slug: 'greek-lookup', title: 'Ελλάδα ΑΘΉΝΑ lookup service', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt: prompt.replace('ﬁnch and ﬂamingo', 'owl'), guidance },
    ]));
    const [strasse, greek] = await addOrganizationQuestions(h.db.kysely, folded.id, file);
    const found = async (text: string) => (await all(`search=${encodeURIComponent(text)}&category=system-design`, folded.keys.secret_test)).map((q) => q.id);
    for (const text of ['finch', 'ﬁnch', 'FINCHES', 'flamingo', 'ﬂamingo', 'strasse', 'straße', 'STRASSE', '"strasse registry of finches"', 'ｆｉｎｃｈ']) {
      expect(await found(text), text).toEqual([strasse]);
    }
    for (const text of ['ελλαδα', 'Ελλάδα', 'ΕΛΛΑΔΑ', 'αθηνα', 'Αθήνα', '"ελλάδα αθηνα lookup"']) expect(await found(text), text).toEqual([greek]);
  });

  // Was a difference: PostgreSQL lowers Σ to σ and kept the final sigma ς apart, and a search lowers a word's last Σ
  // to ς, so there `σοφος` (or `ΣΟΦΟΣ`) found no "ΣΟΦΟΣ" and `σοφοσ` no "σοφός"; SQLite's tokenizer reads ς as σ.
  it('reads the Greek final sigma as σ in the text and in a search, the same on both engines', async () => {
    const sigma = await h.createOrg('Sigma Co', 1);
    const file = path.join(dir, 'sigma.json');
    const prompt = 'A census of every owl in the reserve arrives each night from rangers. Design the import that loads it, covering how a malformed row is reported and how a ranger re-sends a corrected census without duplicating birds.';
    const guidance = { key_points: ['Rows are validated before loading', 'Idempotent by booking reference', 'Partners get a report'], follow_ups: ['What if the file is huge?', 'How do you replay?'] };
    writeFileSync(file, JSON.stringify([
      { slug: 'sigma-final', title: 'Ο σοφός λόγος service', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt, guidance },
      { slug: 'sigma-capital', title: 'ΣΟΦΟΣ ΛΟΓΟΣ registry', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt, guidance },
    ]));
    const [final, capital] = await addOrganizationQuestions(h.db.kysely, sigma.id, file);
    const found = async (text: string) => (await all(`search=${encodeURIComponent(text)}&category=system-design`, sigma.keys.secret_test)).map((q) => q.id).sort();
    for (const text of ['σοφος', 'σοφοσ', 'ΣΟΦΟΣ', 'Σοφός', '"σοφος λογος"', '"ΣΟΦΟΣ ΛΟΓΟΣ"', '"σοφοσ λογοσ"']) expect(await found(text), text).toEqual([final, capital].sort());
    expect(await found('σοφος -registry')).toEqual([final]);
  });

  // Was a bug on PostgreSQL: its parser keeps `Node.js`, `HTTP/2` or an address as one token and indexes a hyphenated
  // word as a whole before its parts, so `node` found nothing there and a phrase into `token-bucket` never matched;
  // SQLite (and the search text itself) splits words at punctuation.
  it('splits words at punctuation in the text as in the search, on both engines', async () => {
    const dotted = await h.createOrg('Dotted Co', 1);
    const file = path.join(dir, 'dotted.json');
    writeFileSync(file, JSON.stringify([{
      slug: 'node-loop', title: 'Node.js event loop under load', category: 'system-design', difficulty: 'medium', topics: ['availability'],
      prompt: 'Our gateway speaks HTTP/2 to clients and we use token-bucket limiting per tenant (ops@example.com is paged). Explain what happens to the event loop when a burst arrives, and how you would keep p99 latency under 3.5 seconds.',
      guidance: { key_points: ['Back-pressure reaches the clients', 'CPU-bound work leaves the loop', 'Limits are per tenant'], follow_ups: ['What if a tenant is noisy?', 'How do you measure lag?'] },
    }]));
    const [id] = await addOrganizationQuestions(h.db.kysely, dotted.id, file);
    const found = async (text: string) => (await all(`search=${encodeURIComponent(text)}&category=system-design`, dotted.keys.secret_test)).map((q) => q.id);
    for (const text of ['node', 'node.js', 'Node.js loop', '"node js event"', 'http', 'HTTP/2', '"use token-bucket"', '"use token"', 'token-bucket', 'example.com', 'ops', '3.5', '"under 3 5 seconds"']) {
      expect(await found(text), text).toContain(id);
    }
    expect(await found('node -http'), 'node -http').not.toContain(id);
  });

  // Was a difference: SQLite weighs a word in the title ten times one in the prompt; PostgreSQL's ts_rank weighed them
  // alike, so a prompt that repeats a word outranked the question named for it there.
  it('ranks a question whose title holds the word above one whose prompt repeats it, on both engines', async () => {
    const ranked = await h.createOrg('Ranked Co', 1);
    const file = path.join(dir, 'ranked.json');
    const guidance = { key_points: ['Names the main trade-off', 'Measures before changing', 'Plans the rollback'], follow_ups: ['What would you drop first?', 'Who signs off?'] };
    const filler = 'Walk us through the design, the data it keeps, how it behaves under load and what you would measure first after launch.';
    writeFileSync(file, JSON.stringify([
      { slug: 'wombat-census', title: 'Wombat census service', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt: `Rangers count animals in a reserve every night from handheld devices. ${filler}`, guidance },
      { slug: 'reserve-feeds', title: 'Reserve sensor feeds', category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt: `Sensors report each wombat sighting, and a wombat may pass ten sensors; a wombat burrow also reports. ${filler}`, guidance },
    ]));
    const [census, feeds] = await addOrganizationQuestions(h.db.kysely, ranked.id, file);
    expect((await all('search=wombat', ranked.keys.secret_test)).map((q) => q.id)).toEqual([census, feeds]);
  });

  // Was a difference: PostgreSQL drops English stop words and SQLite's index did not, so `the` or `how` matched the
  // whole bank on SQLite and nothing on PostgreSQL, `a or cache` every question on one and the cache ones on the other,
  // and the phrase "the cache" a few questions on one and every cache question on the other.
  it('drops English stop words from the search alike on both engines', async () => {
    const ids = async (text: string) => [...new Set((await all(`search=${encodeURIComponent(text)}`)).map((q) => q.id as string))].sort();
    const [cache, consistency] = [await ids('cache'), await ids('consistency')];
    const both = cache.filter((id) => consistency.includes(id));
    expect(both.length).toBeGreaterThan(0);
    expect(both.length).toBeLessThan(new Set([...cache, ...consistency]).size);
    for (const text of ['the', 'how', '"the a"', 'the -cache', 'The  Of', "don't"]) expect(await ids(text), text).toEqual([]);
    for (const text of ['"the cache"', 'the cache', 'cache the', 'a or cache', 'cache or the', 'cache -the', '"cache of"']) expect(await ids(text), text).toEqual(cache);
    // A dropped word takes its `or` with it, as PostgreSQL reads it: (cache or the) consistency is cache AND consistency.
    expect(await ids('cache or the consistency')).toEqual(both);
    expect(await ids('consistency the or cache')).toEqual(both);
    expect(await ids('cache or the or consistency')).toEqual([...new Set([...cache, ...consistency])].sort());
  });

  // Was a difference: PostgreSQL's `english` configuration dropped a stop word inside a phrase keeping its place, so
  // there "defrost the walrus" also matched "defrost a walrus" and "defrost big walrus"; SQLite wanted "the" itself.
  it('wants a stop word inside a quoted phrase itself, on both engines', async () => {
    const phrased = await h.createOrg('Phrase Co', 1);
    const file = path.join(dir, 'phrases.json');
    const prompt = 'A census of every owl in the reserve arrives each night from rangers. Design the import that loads it, covering how a malformed row is reported and how a ranger re-sends a corrected census without duplicating birds.';
    const guidance = { key_points: ['Rows are validated before loading', 'Idempotent by booking reference', 'Partners get a report'], follow_ups: ['What if the file is huge?', 'How do you replay?'] };
    const titles = ['Defrost the walrus enclosure', 'Defrost a walrus enclosure', 'Defrost our walrus enclosure', 'Defrost big walrus enclosure'];
    writeFileSync(file, JSON.stringify(titles.map((title, i) => ({ slug: `walrus-${i}`, title, category: 'system-design', difficulty: 'medium', topics: ['availability'], prompt, guidance }))));
    const [the, a, our, big] = await addOrganizationQuestions(h.db.kysely, phrased.id, file);
    const found = async (text: string) => (await all(`search=${encodeURIComponent(text)}&category=system-design`, phrased.keys.secret_test)).map((q) => q.id).sort();
    expect(await found('"defrost the walrus"')).toEqual([the]);
    expect(await found('"DEFROSTING the walrus"')).toEqual([the]); // the other words still stemmed
    expect(await found('"defrost a walrus"')).toEqual([a]);
    expect(await found('"defrost our walrus enclosure"')).toEqual([our]);
    expect(await found('"defrost big walrus"')).toEqual([big]);
    expect(await found('"defrost walrus"')).toEqual([]);
    expect(await found('"the walrus" -"defrost the"')).toEqual([]);
    expect(await found('"defrost a walrus" or "defrost big walrus"')).toEqual([a, big].sort());
    // Outside a phrase, or at its ends, stop words still count for nothing.
    expect(await found('defrost the walrus')).toEqual([the, a, our, big].sort());
    expect(await found('"the walrus enclosure"')).toEqual([the, a, our, big].sort());
  });

  // Was a bug: the repeat `cache or cache` was dropped but left its `or` waiting, so the next term joined it:
  // `cache or cache consistency` meant cache OR consistency, not cache AND consistency.
  it('lets an `or` whose term repeats join nothing further', async () => {
    const ids = async (text: string) => new Set((await all(`search=${encodeURIComponent(text)}`)).map((q) => q.id as string));
    const [cache, consistency] = [await ids('cache'), await ids('consistency')];
    const both = [...cache].filter((id) => consistency.has(id)).sort();
    expect(both.length).toBeGreaterThan(0);
    expect(both.length).toBeLessThan(new Set([...cache, ...consistency]).size);
    expect([...await ids('cache or cache consistency')].sort()).toEqual(both);
    expect([...await ids('cache or cache or consistency')].sort()).toEqual([...new Set([...cache, ...consistency])].sort());
  });
});

describe('statistics from real activity', () => {
  it('counts coding sessions and judged submissions per bucket, per environment, per organisation', async () => {
    const kit = judgingKit(h);
    const live = org.keys.secret_live;
    // The practice set draws its problems from pools: count what each session was actually given.
    const first = await kit.session(live, 'foundations-practice-set');
    const problem = first.problems[0]!;
    const coding = await all('category=coding', live);
    const question = coding.find((q) => q.coding_problem_id === problem.id);
    expect(question, 'every catalogue problem is a question').toBeDefined();

    await client.ok('POST', `/v1/coding-sessions/${first.id}/submissions`, { token: first.token, body: { problem_id: problem.id, language: 'python', source: 'print(0)' } }, 202);
    await client.ok('POST', `/v1/coding-sessions/${first.id}/submissions`, { token: first.token, body: { problem_id: problem.id, language: 'python', source: await kit.reference(problem.id) } }, 202);
    await kit.settle();
    h.clock.advance(40 * 86_400_000);
    const second = await kit.session(live, 'foundations-practice-set');

    const counts = (sessions: Array<{ problems: Array<{ id: string }> }>) => {
      const n = new Map<string, number>();
      for (const s of sessions) for (const p of s.problems) n.set(p.id, (n.get(p.id) ?? 0) + 1);
      return n;
    };
    const recent = counts([second]);
    const ever = counts([first, second]);
    const top = (n: Map<string, number>) => Math.max(...n.values());
    const frequency = (n: Map<string, number>, id: string) => Math.round((1000 * (n.get(id) ?? 0)) / top(n)) / 10;

    const detail = await client.ok('GET', `/v1/question-bank/questions/${question.id}`, { key: live });
    expect(detail.statistics['30d']).toMatchObject({ asked_count: recent.get(problem.id) ?? 0, frequency: frequency(recent, problem.id), judged_count: 0, acceptance: null });
    expect(detail.statistics.all).toMatchObject({ asked_count: ever.get(problem.id), frequency: frequency(ever, problem.id), judged_count: 2, accepted_count: 1, acceptance: 0.5 });
    for (const p of second.problems) {
      const q = coding.find((c) => c.coding_problem_id === p.id)!;
      const stats = (await client.ok('GET', `/v1/question-bank/questions/${q.id}`, { key: live })).statistics;
      expect(stats['30d'].asked_count).toBe(recent.get(p.id));
      expect(stats['30d'].window.start).toBe(Math.floor((h.clock.now() - 30 * 86_400_000) / 1000));
    }

    // The most-asked question leads the default sort, with its count and window beside the frequency.
    const leaders = (await list('time_bucket=all&limit=5', live)).body.data;
    expect(leaders[0].statistics.asked_count).toBe(top(ever));
    expect(leaders[0].statistics.frequency).toBe(100);
    const asked = leaders.map((q: any) => q.statistics.asked_count);
    expect(asked).toEqual([...asked].sort((a: number, b: number) => b - a));
    const byAcceptance = (await list('sort=acceptance&limit=1', live)).body.data[0];
    expect(byAcceptance.statistics.acceptance).not.toBeNull();

    // Test mode and other organisations see none of it.
    expect((await client.ok('GET', `/v1/question-bank/questions/${question.id}`, { key: key() })).statistics.all.asked_count).toBe(0);
    expect((await client.ok('GET', `/v1/question-bank/questions/${question.id}`, { key: other.keys.secret_live })).statistics.all.asked_count).toBe(0);
  });

  // Was slow: every list page (and a question's detail, once per bucket) aggregates the caller's judged submissions in
  // the window, and no index started there, so each read scanned every organisation's submissions.
  it("reads the judged submissions of the caller's window through an index, not a scan of every organisation's", async () => {
    const compiled = judgedByProblem(h.db.kysely, org.id, 1, 0).compile();
    const plan = await h.db.kysely.transaction().execute(async (tx) => {
      if (DIALECT === 'postgres') await sql`set local enable_seqscan = off`.execute(tx); // the table is small here
      const prefix = DIALECT === 'postgres' ? 'explain ' : 'explain query plan ';
      const rows = (await tx.executeQuery(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]))).rows as Array<Record<string, string>>;
      return rows.map((r) => r['QUERY PLAN'] ?? r.detail).join('\n');
    });
    expect(plan).toMatch(DIALECT === 'postgres' ? /Index Cond: \(+organization_id = / : /SEARCH coding_submissions USING (COVERING )?INDEX \S+ \(organization_id=/);
  });
});

describe("an organisation's own questions", () => {
  it('are visible to it only, validated whole before anything is saved', async () => {
    const file = path.join(dir, 'own.json');
    const question = {
      slug: 'our-deploy-rollback', title: 'Rolling back our payments deploy', category: 'system-design', difficulty: 'medium', topics: ['availability'],
      prompt: 'Our payments service deploys twenty times a day. Walk us through how you would design automatic rollback when error rates climb after a deploy, including how you detect it and what you roll back.',
      guidance: { key_points: ['Defines a health signal and a baseline', 'Canary or staged rollout', 'Rollback is fast and rehearsed'], follow_ups: ['What if the schema changed?', 'Who gets paged?'] },
    };
    writeFileSync(file, JSON.stringify([question]));
    const [id] = await addOrganizationQuestions(h.db.kysely, org.id, file);
    const own = await client.ok('GET', `/v1/question-bank/questions/${id}`, { key: key() });
    expect(own).toMatchObject({ source: 'organization', custom: true, title: question.title });
    expect((await all('search=payments%20rollback')).map((q) => q.id)).toContain(id);
    expect((await client.call('GET', `/v1/question-bank/questions/${id}`, { key: other.keys.secret_test })).status).toBe(404);
    expect((await all('search=payments%20rollback', other.keys.secret_test)).map((q) => q.id)).not.toContain(id);

    writeFileSync(file, JSON.stringify([{ ...question, slug: 'second-one', title: 'Another' }, { ...question, slug: 'bad', title: 'Bad', topics: ['no-such-topic'] }]));
    await expect(addOrganizationQuestions(h.db.kysely, org.id, file)).rejects.toThrow(/no-such-topic/);
    expect((await all('search=Another')).some((q) => q.slug === 'second-one')).toBe(false);
  });
  // Was a bug: only lengths were checked, so a title could hold a bidi override or a line break (the import's rows
  // never could), a NUL in a prompt failed PostgreSQL's write with a database error, and a `null` entry threw a
  // TypeError instead of naming the entry.
  it('refuses control and invisible characters, and an entry that is not an object, naming the entry', async () => {
    const file = path.join(dir, 'hostile.json');
    const base = {
      slug: 'hostile-one', title: 'A fair question', category: 'system-design', difficulty: 'medium', topics: ['availability'],
      prompt: `Design a service that stays up when one region fails.\n\n- Say how you detect the failure\n- Say what you move ${'and why '.repeat(15)}`,
      guidance: { key_points: ['Names a health signal', 'Moves traffic between regions', 'Keeps data consistent enough'], follow_ups: ['What if both regions fail?', 'Who gets paged first?'] },
    };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, title: 'Right\u202eLeft' }, /\[0\] \(hostile-one\): title/],
      [{ ...base, title: 'Two\nLines' }, /\[0\] \(hostile-one\): title/],
      [{ ...base, title: 'Zero\u200bWidth' }, /\[0\] \(hostile-one\): title/],
      [{ ...base, prompt: base.prompt.replace('stays up', 'stays\u0000 up') }, /\[0\] \(hostile-one\): prompt/],
      [{ ...base, prompt: base.prompt.replace('stays up', 'stays \u2067up\u2069') }, /\[0\] \(hostile-one\): prompt/],
      [{ ...base, guidance: { ...base.guidance, key_points: ['Names a health\u0007 signal', ...base.guidance.key_points.slice(1)] } }, /guidance\.key_points/],
      [{ ...base, guidance: { ...base.guidance, follow_ups: ['What if both \u202dregions fail?', 'Who gets paged first?'] } }, /guidance\.follow_ups/],
      [null, /\[0\]: a question is a JSON object/],
      [[base], /\[0\]: a question is a JSON object/],
    ];
    for (const [entry, message] of cases) {
      writeFileSync(file, JSON.stringify([entry]));
      await expect(addOrganizationQuestions(h.db.kysely, org.id, file), JSON.stringify(entry)?.slice(0, 80)).rejects.toThrow(QuestionFileError);
      await expect(addOrganizationQuestions(h.db.kysely, org.id, file)).rejects.toThrow(message);
    }
    expect((await client.call('GET', `/v1/question-bank/questions/${questionId(org.id, 'hostile-one')}`, { key: key() })).status).toBe(404);
    // Markdown's line breaks and tabs, and the joiners of emoji and of Persian text, are prose.
    writeFileSync(file, JSON.stringify([{ ...base, prompt: `${base.prompt}\r\n\t👩\u200d💻 می\u200cخواهم` }]));
    const [id] = await addOrganizationQuestions(h.db.kysely, org.id, file);
    expect((await client.ok('GET', `/v1/question-bank/questions/${id}`, { key: key() })).prompt).toContain('👩\u200d💻');
  });
});

describe('importing company-wise files', () => {
  const write = (company: string, file: string, text: string) => {
    mkdirSync(path.join(dir, 'import', company), { recursive: true });
    writeFileSync(path.join(dir, 'import', company, file), text);
  };

  it('imports titles and statistics, matches existing questions by title, reports bad files by line, and is idempotent', async () => {
    const existing = (await all('category=coding&sort=difficulty'))[0];
    write('Acme Corp', '1. Thirty Days.csv', [
      'Difficulty,Title,Frequency,Acceptance Rate,Link,Topics',
      `EASY,${existing.title.toUpperCase()},100.0,0.52,https://example.com/a,"Array, Hash Table"`,
      'MEDIUM,"Merge Widgets, Carefully",62.5,0.4,=HYPERLINK("https://example.com/widgets"),"Sorting, Widgetry"',
      'HARD,"A ""quoted"" title",12.5,,https://example.com/q,',
    ].join('\r\n'));
    write('Acme Corp', '05 - All.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\nMEDIUM,"Merge Widgets, Carefully",80,0.41,https://example.com/widgets\n');
    write('Acme Corp', 'More Than Six Months.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Old One,10,0.5,https://example.com/old\n');
    write('Acme Corp', 'notes.txt', 'not a window file');
    write('Broken Ltd', 'Three Months.csv', [
      'Difficulty,Title,Frequency,Acceptance Rate,Link',
      'EASY,Fine Row,50,0.5,https://example.com/fine',
      'TRIVIAL,Bad Difficulty,50,0.5,https://example.com/x',
      'EASY,Bad Frequency,150,0.5,https://example.com/y',
      'EASY,Bad Link,50,0.5,javascript:alert(1)',
    ].join('\n'));
    write('Broken Ltd', 'Six Months.csv', 'Difficulty,Title\nEASY,Short header\n');
    write('Broken Ltd', 'All.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,"unterminated,5,0.5,https://example.com\n');

    const summary = await importCompanyFolders(h.db.kysely, path.join(dir, 'import'), { organizationId: null });
    const byFile = Object.fromEntries(summary.files.map((f) => [f.file, f]));
    expect(byFile['Acme Corp/1. Thirty Days.csv']).toMatchObject({ status: 'imported', bucket: '30d', rows: 3, changed: 3 });
    expect(byFile['Acme Corp/05 - All.csv']).toMatchObject({ status: 'imported', bucket: 'all', changed: 1 });
    expect(byFile['Acme Corp/More Than Six Months.csv']).toMatchObject({ status: 'skipped' });
    expect(byFile['Acme Corp/notes.txt']).toMatchObject({ status: 'skipped' });
    expect(byFile['Broken Ltd/Three Months.csv']).toMatchObject({ status: 'rejected', rows: 0 });
    expect(byFile['Broken Ltd/Three Months.csv']!.errors.map((e) => e.line)).toEqual([3, 4, 5]);
    expect(byFile['Broken Ltd/Six Months.csv']!.errors[0]!.message).toMatch(/header/);
    expect(byFile['Broken Ltd/All.csv']).toMatchObject({ status: 'rejected' });
    expect(summary.questions_created).toBe(2);

    // Nothing of a rejected file was written, not even its good row.
    expect((await all('search=%22Fine%20Row%22')).length).toBe(0);
    const companies = await client.ok('GET', '/v1/question-bank/companies', { key: key() });
    expect(companies.data).toEqual([{ object: 'question_bank_company', slug: 'acme-corp', name: 'Acme Corp', question_count: 3 }]);

    // The existing question got Acme's figures, kept apart from measured ones.
    const matched = await client.ok('GET', `/v1/question-bank/questions/${existing.id}`, { key: key() });
    expect(matched.companies).toEqual([{ slug: 'acme-corp', name: 'Acme Corp', statistics: { '30d': expect.objectContaining({ source: 'imported', frequency: 100, acceptance: 0.52, file: 'Acme Corp/1. Thirty Days.csv' }) } }]);
    expect(matched.statistics['30d'].source).toBe('measured');

    const acme = await all('company=Acme%20Corp&time_bucket=30d');
    expect(acme.map((q) => q.title)).toEqual([existing.title, 'Merge Widgets, Carefully', 'A "quoted" title']);
    expect(acme[1]).toMatchObject({ source: 'imported', link: 'https://example.com/widgets', imported_statistics: { company: 'acme-corp', frequency: 62.5, acceptance: 0.4 } });
    expect(acme[1].topics).toEqual(['sorting', 'widgetry']);
    const widgets = await client.ok('GET', `/v1/question-bank/questions/${acme[1].id}`, { key: key() });
    expect(widgets).toMatchObject({ prompt: null, guidance: null });
    // Was a bug: /companies counted Acme's 3 questions, but its default (all-time) list showed the 1 its All file named.
    // Asked in the last 30 days is asked in the last 90 and of all time; each window keeps its own figures.
    const allTime = await all('company=acme-corp');
    expect(allTime.length).toBe(companies.data[0].question_count);
    expect(allTime.map((q) => q.title)).toEqual(['Merge Widgets, Carefully', ...[existing.title, 'A "quoted" title'].sort((a, b) => (acme.find((q) => q.title === a)!.id < acme.find((q) => q.title === b)!.id ? -1 : 1))]);
    expect(allTime[0].imported_statistics).toMatchObject({ company: 'acme-corp', frequency: 80 }); // the All file's own figure
    expect(allTime[1].imported_statistics).toBeNull(); // listed in 30 days only: no all-time figure of its own
    expect((await all('company=acme-corp&time_bucket=90d')).map((q) => q.title).sort()).toEqual(acme.map((q) => q.title).sort());

    const again = await importCompanyFolders(h.db.kysely, path.join(dir, 'import'), { organizationId: null });
    expect(again.questions_created).toBe(0);
    expect(again.statistics_changed).toBe(0);
  });

  it('replaces a company bucket with a corrected file, refuses a second source for it, bad titles and numbers, and follows no link', async () => {
    write('Acme Corp', '1. Thirty Days.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\nMEDIUM,"Merge Widgets, Carefully",62.5,0.4,https://example.com/widgets\n');
    write('acme-corp', 'All.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Shadow Row,10,0.5,https://example.com/s\n');
    write('Bad Titles', 'All.csv', [
      'Difficulty,Title,Frequency,Acceptance Rate,Link',
      'EASY,"Two\nLines",10,0.5,https://example.com/1',
      'EASY,Right\u202eLeft,10,0.5,https://example.com/2',
      'EASY,Hex Frequency,0x10,0.5,https://example.com/3',
      'EASY,Broken \ufffd Encoding,10,0.5,https://example.com/4',
    ].join('\n'));
    write('Unclosed Quote', 'All.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Fine,10,0.5,https://example.com/a\n\nEASY,"Never closed,10,0.5,https://example.com/b\nEASY,Later,10,0.5,https://example.com/c\n');
    write('Bad Topics', 'All.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nEASY,Topical,10,0.5,https://example.com/t,"Arrays, Bell\u0007"\n');
    // Were unbounded: a row could name any number of topics (each one added to the taxonomy), and a file of any size
    // was read whole into memory.
    write('Many Topics', 'All.csv', `Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nEASY,Topical,10,0.5,https://example.com/t,"${Array.from({ length: 21 }, (_, i) => `T${i}`).join(', ')}"\n`);
    write('Huge File', 'All.csv', 'Difficulty,Title,Frequency,Acceptance Rate,Link\n');
    truncateSync(path.join(dir, 'import', 'Huge File', 'All.csv'), WINDOW_FILE_MAX_BYTES + 1);
    mkdirSync(path.join(dir, 'elsewhere', 'Linked Co'), { recursive: true });
    writeFileSync(path.join(dir, 'elsewhere', 'Linked Co', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Linked Row,10,0.5,https://example.com/l\n');
    symlinkSync(path.join(dir, 'elsewhere', 'Linked Co'), path.join(dir, 'import', 'Linked Co'));

    const summary = await importCompanyFolders(h.db.kysely, path.join(dir, 'import'), { organizationId: null });
    const byFile = Object.fromEntries(summary.files.map((f) => [f.file, f]));
    // The corrected 30-day file lists one title: the two it dropped lose their 30-day figures.
    expect(byFile['Acme Corp/1. Thirty Days.csv']).toMatchObject({ status: 'imported', changed: 2 });
    expect((await all('company=acme-corp&time_bucket=30d')).map((q) => q.title)).toEqual(['Merge Widgets, Carefully']);
    expect(byFile['acme-corp/All.csv']).toMatchObject({ status: 'rejected' });
    expect(byFile['acme-corp/All.csv']!.errors[0]!.message).toContain('Acme Corp/05 - All.csv');
    // Each bad row is named by the line it starts on (the first holds a line break).
    expect(byFile['Bad Titles/All.csv']!.errors.map((e) => e.line)).toEqual([2, 4, 5, 6]);
    expect(byFile['Unclosed Quote/All.csv']!.errors).toEqual([{ line: 4, message: 'not valid CSV: a quote opened in this row is never closed' }]);
    expect(byFile['Bad Topics/All.csv']!.errors).toEqual([{ line: 2, message: expect.stringContaining('topics: no control or invisible characters') }]);
    expect(byFile['Many Topics/All.csv']!.errors).toEqual([{ line: 2, message: 'topics: at most 20 per row (21 given)' }]);
    expect(byFile['Huge File/All.csv']).toMatchObject({ status: 'rejected', errors: [{ line: 0, message: expect.stringContaining('a window file is at most 16 MiB') }] });
    expect(summary.files.some((f) => f.company === 'Linked Co')).toBe(false);
    expect((await all('search=%22Linked%20Row%22')).length).toBe(0);
  });

  // Was a bug: a link was any non-space run after http(s)://, so a NUL or a bidi override passed. PostgreSQL then
  // failed the write, which stopped the whole import at that file; SQLite stored the link as it was.
  it('refuses a link holding control or invisible characters, naming the row, and goes on with the other files', async () => {
    mkdirSync(path.join(dir, 'links', 'Link Co'), { recursive: true });
    mkdirSync(path.join(dir, 'links', 'Later Co'), { recursive: true });
    writeFileSync(path.join(dir, 'links', 'Link Co', 'All.csv'), [
      'Difficulty,Title,Frequency,Acceptance Rate,Link',
      'EASY,Nul Link,10,0.5,https://example.com/a\u0000b',
      'EASY,Bidi Link,10,0.5,https://example.com/\u202egnp.exe',
      'EASY,Zero Width Link,10,0.5,https://exa\u200bmple.com/',
      'EASY,Good Link,10,0.5,https://example.com/good',
    ].join('\n'));
    writeFileSync(path.join(dir, 'links', 'Later Co', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Later Link,10,0.5,https://example.com/later\n');
    const summary = await importCompanyFolders(h.db.kysely, path.join(dir, 'links'), { organizationId: null });
    const byFile = Object.fromEntries(summary.files.map((f) => [f.file, f]));
    expect(byFile['Link Co/All.csv']).toMatchObject({ status: 'rejected', rows: 0 });
    expect(byFile['Link Co/All.csv']!.errors.map((e) => e.line)).toEqual([2, 3, 4]);
    expect(byFile['Link Co/All.csv']!.errors[0]!.message).toMatch(/^link .*: an http\(s\) URL$/);
    expect(byFile['Later Co/All.csv']).toMatchObject({ status: 'imported', changed: 1 });
    expect((await all('company=link-co')).length).toBe(0);
    expect((await all('company=later-co')).map((q) => q.title)).toEqual(['Later Link']);
  });

  // Was a gap: titles, links and topics refused control and invisible characters, but a company's name is its folder's
  // name, taken as it was: a bidi override, a line break or U+FFFD (a name not in UTF-8) reached /companies.
  it("refuses a company folder whose name holds control or invisible characters, naming each of its files", async () => {
    const names = ['Evil\u202eoC', 'Line\nBreak Co', 'Zero\u200bWidth Co'];
    for (const name of [...names, 'Plain Co']) {
      mkdirSync(path.join(dir, 'names', name), { recursive: true });
      writeFileSync(path.join(dir, 'names', name, 'All.csv'), `Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Named ${names.indexOf(name)},10,0.5,https://example.com/n\n`);
    }
    const summary = await importCompanyFolders(h.db.kysely, path.join(dir, 'names'), { organizationId: other.id });
    for (const name of names) {
      expect(summary.files.find((f) => f.company === name), JSON.stringify(name)).toMatchObject({
        status: 'rejected', errors: [{ line: 0, message: expect.stringContaining('company folder name') }],
      });
    }
    expect(summary.files.find((f) => f.company === 'Plain Co')).toMatchObject({ status: 'imported' });
    const companies = (await client.ok('GET', '/v1/question-bank/companies?limit=100', { key: other.keys.secret_test })).data.map((c: any) => c.name);
    expect(companies).toContain('Plain Co');
    for (const name of names) expect(companies).not.toContain(name);
  });

  // Was a gap: a title needs a letter or digit, but a topic name or a company folder of punctuation alone ("-", "???")
  // was added as it was, under the slug "untitled", and any other such name then landed on it.
  it('refuses a topic name or a company folder name with no letter or digit', async () => {
    mkdirSync(path.join(dir, 'blank', '???'), { recursive: true });
    mkdirSync(path.join(dir, 'blank', 'Dash Topics'), { recursive: true });
    writeFileSync(path.join(dir, 'blank', '???', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link\nEASY,Nameless Co Row,10,0.5,https://example.com/q\n');
    writeFileSync(path.join(dir, 'blank', 'Dash Topics', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nEASY,Dashed Topics Row,10,0.5,https://example.com/d,"Arrays, -"\n');
    const summary = await importCompanyFolders(h.db.kysely, path.join(dir, 'blank'), { organizationId: null });
    const byFile = Object.fromEntries(summary.files.map((f) => [f.file, f]));
    expect(byFile['???/All.csv']).toMatchObject({ status: 'rejected', errors: [{ line: 0, message: expect.stringContaining('company folder name: a letter or digit') }] });
    expect(byFile['Dash Topics/All.csv']).toMatchObject({ status: 'rejected', errors: [{ line: 2, message: expect.stringContaining('topics: names with a letter or digit') }] });
    const topics = (await client.ok('GET', '/v1/question-bank/topics?limit=100', { key: key() })).data.map((t: any) => t.slug);
    expect(topics).not.toContain('untitled');
    expect((await client.ok('GET', '/v1/question-bank/companies?limit=100', { key: key() })).data.map((c: any) => c.slug)).not.toContain('untitled');
  });

  it("keeps an organisation's import, and the topics it brings, to itself", async () => {
    mkdirSync(path.join(dir, 'topics', 'Initech'), { recursive: true });
    writeFileSync(path.join(dir, 'topics', 'Initech', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nMEDIUM,"Merge Widgets, Carefully",50,0.4,https://example.com/w,"Project Nightingale"\n');
    await importCompanyFolders(h.db.kysely, path.join(dir, 'topics'), { organizationId: other.id });
    const shared = (await all('company=acme-corp&time_bucket=30d')).find((q) => q.title === 'Merge Widgets, Carefully');
    expect(shared.topics).not.toContain('project-nightingale');
    expect((await all('topic=project-nightingale')).length).toBe(0);
    expect((await all('company=initech', other.keys.secret_test)).map((q) => q.title)).toEqual(['Merge Widgets, Carefully']);
    expect((await all('company=initech')).length).toBe(0);
  });

  // Was a leak: an organisation's imported topics joined the one shared taxonomy, so another organisation's own
  // question file could name them (a refusal or an acceptance said whether they existed, and its topic list then
  // showed the first organisation's name), and another's import of the same name took the first's spelling.
  it("keeps the topic names an organisation's import brings out of every other organisation's reach", async () => {
    const topicsOf = async (k: string) => {
      const out: any[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await client.ok('GET', `/v1/question-bank/topics?limit=100${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`, { key: k });
        out.push(...res.data);
        cursor = res.next_cursor;
      } while (cursor);
      return out;
    };
    mkdirSync(path.join(dir, 'owned-topics', 'Umbrella'), { recursive: true });
    writeFileSync(path.join(dir, 'owned-topics', 'Umbrella', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nHARD,Spin the Falcon,50,0.4,https://example.com/f,"Project Falcon"\n');
    await importCompanyFolders(h.db.kysely, path.join(dir, 'owned-topics'), { organizationId: other.id });
    const theirs = await topicsOf(other.keys.secret_test);
    expect(theirs).toContainEqual(expect.objectContaining({ slug: 'project-falcon', name: 'Project Falcon', question_count: 1 }));
    // Another organisation's own questions cannot name it: it does not exist for them.
    const file = path.join(dir, 'owned-topics.json');
    writeFileSync(file, JSON.stringify([{
      slug: 'falcon-probe', title: 'Probing for a falcon', category: 'system-design', difficulty: 'medium', topics: ['project-falcon'],
      prompt: `Design a service that stays up when one region fails.\n\n- Say how you detect the failure\n- Say what you move ${'and why '.repeat(15)}`,
      guidance: { key_points: ['Names a health signal', 'Moves traffic', 'Keeps data consistent'], follow_ups: ['What if both regions fail?', 'Who gets paged first?'] },
    }]));
    await expect(addOrganizationQuestions(h.db.kysely, org.id, file)).rejects.toThrow(/unknown topic project-falcon/);
    // Its own import of the same name is its own topic, with its own spelling; the first organisation's stays as it was.
    mkdirSync(path.join(dir, 'owned-topics-2', 'Umbrella'), { recursive: true });
    writeFileSync(path.join(dir, 'owned-topics-2', 'Umbrella', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nHARD,Spin the Falcon,50,0.4,https://example.com/f,"PROJECT FALCON"\n');
    await importCompanyFolders(h.db.kysely, path.join(dir, 'owned-topics-2'), { organizationId: org.id });
    const mine = await topicsOf(key());
    expect(mine.filter((t: any) => t.slug === 'project-falcon')).toEqual([expect.objectContaining({ name: 'PROJECT FALCON', question_count: 1 })]);
    const theirsAgain = await topicsOf(other.keys.secret_test);
    expect(theirsAgain.filter((t: any) => t.slug === 'project-falcon')).toEqual([expect.objectContaining({ name: 'Project Falcon', question_count: 1 })]);
    expect((await all('topic=PROJECT%20FALCON')).map((q) => q.title)).toEqual(['Spin the Falcon']);
  });

  // Was a bug: a question's detail showed the organisation's own figures where its import and an installation-wide one
  // both held the company and bucket, but the list (and its frequency sort) took the higher of the two.
  it("shows an organisation's own figures over an installation-wide import of the same company and bucket, in the list too", async () => {
    const csv = (frequency: number, acceptance: number) => `Difficulty,Title,Frequency,Acceptance Rate,Link\nMEDIUM,Overlapping Orbits,${frequency},${acceptance},https://example.com/o\n`;
    mkdirSync(path.join(dir, 'shadow-shared', 'Shadow Co'), { recursive: true });
    mkdirSync(path.join(dir, 'shadow-own', 'Shadow Co'), { recursive: true });
    writeFileSync(path.join(dir, 'shadow-shared', 'Shadow Co', 'All.csv'), csv(90, 0.9));
    writeFileSync(path.join(dir, 'shadow-own', 'Shadow Co', 'All.csv'), csv(10, 0.1));
    await importCompanyFolders(h.db.kysely, path.join(dir, 'shadow-shared'), { organizationId: null });
    await importCompanyFolders(h.db.kysely, path.join(dir, 'shadow-own'), { organizationId: org.id });
    const [mine] = await all('company=shadow-co');
    expect(mine).toMatchObject({ title: 'Overlapping Orbits', imported_statistics: { company: 'shadow-co', companies: 1, frequency: 10, acceptance: 0.1 } });
    const [unfiltered] = await all('search=%22Overlapping%20Orbits%22');
    expect(unfiltered.imported_statistics).toMatchObject({ companies: 1, frequency: 10, acceptance: 0.1 });
    const detail = await client.ok('GET', `/v1/question-bank/questions/${mine.id}`, { key: key() });
    expect(detail.companies).toEqual([{ slug: 'shadow-co', name: 'Shadow Co', statistics: { all: expect.objectContaining({ frequency: 10, acceptance: 0.1 }) } }]);
    // Another organisation sees the installation-wide figures.
    expect((await all('company=shadow-co', other.keys.secret_test))[0].imported_statistics).toMatchObject({ frequency: 90, acceptance: 0.9 });
  });

  it("keeps an organisation's own import to itself", async () => {
    mkdirSync(path.join(dir, 'private', 'Secret Co'), { recursive: true });
    writeFileSync(path.join(dir, 'private', 'Secret Co', 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link\nHARD,Private Puzzle,90,0.1,https://example.com/p\n');
    await importCompanyFolders(h.db.kysely, path.join(dir, 'private'), { organizationId: other.id });
    expect((await all('company=secret-co', other.keys.secret_test)).map((q) => q.title)).toEqual(['Private Puzzle']);
    expect((await all('company=secret-co')).length).toBe(0);
    expect((await client.ok('GET', '/v1/question-bank/companies', { key: key() })).data.map((c: any) => c.slug)).not.toContain('secret-co');
  });
});

describe('ordering by slug', () => {
  // Was a gap: slugs were ordered by the database's collation, the bytes on SQLite but on a PostgreSQL database made
  // with another one (en_US.UTF-8: '-' ignored, so "ab" before "a-z") another order, and companies, topics and a
  // question's topics listed differently on the two engines. The columns are given such a collation here.
  it("orders companies, topics and a question's topics by their bytes on both engines, whatever the database's collation", async () => {
    // ICU's English with punctuation ignored (`ka-shifted`), as glibc's en_US.UTF-8 orders.
    const icu = DIALECT === 'postgres'
      && (await sql<{ n: number }>`select count(*)::int as n from pg_collation where collprovider = 'i'`.execute(h.db.kysely)).rows[0]!.n > 0;
    if (icu) await sql`create collation if not exists en_shifted (provider = icu, locale = 'en-u-ka-shifted')`.execute(h.db.kysely);
    const columns = [['question_bank_imported_stats', 'company_slug'], ['question_bank_taxonomy', 'slug'], ['question_bank_question_topics', 'topic']];
    const collate = async (collation: string) => {
      for (const [table, column] of columns) await sql`alter table ${sql.table(table!)} alter column ${sql.ref(column!)} type text collate ${sql.id(collation)}`.execute(h.db.kysely);
    };
    const names = ['A Z', 'AB', 'A 9', 'A1', 'A-B-C', 'ABC'];
    const bytes = ['a-9', 'a-b-c', 'a-z', 'a1', 'ab', 'abc']; // '-' < digits < letters
    const mine = await h.createOrg('Collation Co', 50);
    const k = mine.keys.secret_test;
    for (const name of names) {
      mkdirSync(path.join(dir, 'collation', name), { recursive: true });
      writeFileSync(path.join(dir, 'collation', name, 'All.csv'), `Difficulty,Title,Frequency,Acceptance Rate,Link,Topics\nEASY,Sorting Slugs Bytewise,50,0.5,https://example.com/s,"${names.join(',')}"\n`);
    }
    await importCompanyFolders(h.db.kysely, path.join(dir, 'collation'), { organizationId: mine.id });
    if (icu) await collate('en_shifted');
    try {
      const pages = async (url: string) => {
        const out: any[] = [];
        let cursor: string | null = null;
        do {
          const res: any = await client.ok('GET', `${url}?limit=2${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`, { key: k });
          out.push(...res.data);
          cursor = res.next_cursor;
        } while (cursor);
        return out;
      };
      // Each company lists the one question: a tie on the count, broken by the slug, page by page.
      expect((await pages('/v1/question-bank/companies')).map((c) => c.slug).filter((s) => bytes.includes(s))).toEqual(bytes);
      expect((await pages('/v1/question-bank/topics')).map((t) => t.slug).filter((s) => bytes.includes(s))).toEqual(bytes);
      const [question] = await all('company=ab', k);
      expect(question.topics).toEqual(bytes);
      expect((await client.ok('GET', `/v1/question-bank/questions/${question.id}`, { key: k })).companies.map((c: any) => c.slug)).toEqual(bytes);
    } finally {
      if (icu) await collate('default');
    }
  });
});
