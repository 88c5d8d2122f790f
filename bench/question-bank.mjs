// The question bank at 10,000 questions (generated here): a filtered, sorted page and a search page, each against
// the no-op route of the same app in one run (SQLite). Target: each at least 25% of the no-op's throughput; p99 printed.
// A repeated page is served from the read cache until the bank or the activity behind it changes, so the run also
// times pages that miss it (every query distinct), in process, against the no-op the same way.
// Usage: npm run bench:bank [-- --duration 5 --rounds 3 --connections 10]
import { compare, startBenchApp } from './lib.mjs';
import { insertQuestions } from '../dist/modules/question-bank/store.js';
import { DIFFICULTIES, difficultyRank, questionId, titleKey } from '../dist/modules/question-bank/content.js';

const bench = await startBenchApp((app) => app.get('/bench/noop', { schema: { hide: true }, config: { auth: 'none' } }, async () => ({ ok: true })));
const { keys } = await bench.services.organizations.create('Bench', 0);
const auth = [`authorization=Bearer ${keys.secret_test}`];
const db = bench.services.core.db.kysely;

// 10,000 questions in all: the shared bank plus generated ones. Prompts are drawn from a 3,000-word vocabulary with
// a few technical words each, so a two-word search matches tens of questions and one word a few hundred, as in a
// real bank.
const WORDS = ('cache latency queue shard replica index window join graph tree heap stack array string token stream batch ' +
  'schema metric feature model gradient layout render state hook event retry lock leader ledger invoice cart ticket')
  .split(' ');
const SYLLABLES = 'ka lo mi ne ru sa ti vo we xe ya zu bra cle dri fro gla'.split(' ');
const VOCABULARY = Array.from({ length: 3000 }, (_, i) => SYLLABLES[i % 17] + SYLLABLES[Math.floor(i / 17) % 17] + SYLLABLES[Math.floor(i / 289) % 17]);
const taxonomy = (kind) => db.selectFrom('question_bank_taxonomy').select('slug').where('kind', '=', kind).execute().then((rows) => rows.map((r) => r.slug));
const CATEGORIES = await taxonomy('category');
const topics = await taxonomy('topic');
const existing = Number((await db.selectFrom('question_bank_questions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
let seed = 42;
const random = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
const generated = Array.from({ length: 10_000 - existing }, (_, i) => {
  const words = [...Array.from({ length: 60 }, () => VOCABULARY[random(VOCABULARY.length)]), ...Array.from({ length: 3 }, () => WORDS[random(WORDS.length)])];
  const difficulty = DIFFICULTIES[random(3)];
  const title = `Generated question ${i}: ${words.slice(-3).join(' ')}`;
  return {
    row: {
      id: questionId(null, `bench-${i}`), organization_id: null, slug: `bench-${i}`, title, title_key: titleKey(title),
      prompt: words.join(' '), category: CATEGORIES[random(CATEGORIES.length)], difficulty, difficulty_rank: difficultyRank(difficulty),
      guidance: JSON.stringify({ key_points: ['a', 'b', 'c'], follow_ups: ['d', 'e'] }), problem_id: null, source: 'prep', link: null, created_at: 0, updated_at: 0,
    },
    topics: [topics[random(topics.length)], topics[random(topics.length)]].filter((t, j, all) => all.indexOf(t) === j),
  };
});
await db.transaction().execute((tx) => insertQuestions(tx, generated));

const filtered = `${bench.base}/v1/question-bank/questions?category=system-design&difficulty=medium&sort=frequency&time_bucket=90d&limit=20`;
const search = `${bench.base}/v1/question-bank/questions?search=${encodeURIComponent('cache latency')}&limit=20`;
await compare({ baseline: { noop: [`${bench.base}/bench/noop`, []] }, candidate: { filtered: [filtered, auth] }, target: 0.25 });
await compare({ baseline: { noop: [`${bench.base}/bench/noop`, []] }, candidate: { search: [search, auth] }, target: 0.25 });

// Pages that miss the read cache: every query different (a fresh offset or search word each time).
async function perCall(urls, headers = {}) {
  for (const url of urls.slice(0, 20)) await bench.app.inject({ method: 'GET', url, headers });
  const start = performance.now();
  for (const url of urls) {
    const res = await bench.app.inject({ method: 'GET', url, headers });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.body}`);
  }
  return ((performance.now() - start) * 1000) / urls.length;
}
const header = { authorization: `Bearer ${keys.secret_test}` };
const noop = await perCall(Array.from({ length: 400 }, (_, i) => `/bench/noop?i=${i}`));
const categories = CATEGORIES.flatMap((c) => DIFFICULTIES.flatMap((d) => ['frequency', 'difficulty', 'acceptance'].map((s) => `category=${c}&difficulty=${d}&sort=${s}`)));
const coldFiltered = await perCall(Array.from({ length: categories.length * 4 }, (_, i) => `/v1/question-bank/questions?${categories[i % categories.length]}&limit=20&time_bucket=${['30d', '90d', '180d', 'all'][Math.floor(i / categories.length) % 4]}`), header);
const coldSearch = await perCall(Array.from({ length: 400 }, (_, i) => `/v1/question-bank/questions?search=${WORDS[i % WORDS.length]}%20${WORDS[Math.floor(i / WORDS.length) % WORDS.length]}&limit=20`), header);
console.log(`uncached, in process: noop ${noop.toFixed(0)} µs, filtered ${coldFiltered.toFixed(0)} µs (${((noop / coldFiltered) * 100).toFixed(1)}% of noop), search ${coldSearch.toFixed(0)} µs (${((noop / coldSearch) * 100).toFixed(1)}% of noop)`);
await bench.stop();
