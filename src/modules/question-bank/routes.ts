import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf } from '../../platform/context.js';
import { operation } from '../../platform/route.js';
import { ListOf, Nullable, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { BUCKETS, DIFFICULTIES } from './content.js';
import type { QuestionBankService } from './service.js';

const TAG = 'Question bank';
const secret = { auth: 'secret' as const, module: 'question_bank' as const, tag: TAG };

const BucketSchema = StringEnum(BUCKETS);
const Difficulty = StringEnum(DIFFICULTIES);
// The bank's cursors are opaque signed offsets, longer than a record id.
const Paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })),
  starting_after: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page, unmodified' })),
};
const PagingQuery = Type.Object(Paging, { additionalProperties: false });
const QuestionsQuery = Type.Object({
  ...Paging,
  company: Type.Optional(Text({ min: 1, max: 100, description: 'Company slug or name' })),
  category: Type.Optional(Text({ min: 1, max: 100, description: 'Category slug or name' })),
  topic: Type.Optional(Text({ min: 1, max: 100, description: 'Topic slug or name ("Hash Table" or hash-table)' })),
  search: Type.Optional(Text({ max: 200, description: 'Full text, web-search style: words, "phrases", or, -excluded; ranked by relevance unless sort is given' })),
  difficulty: Type.Optional(Difficulty),
  time_bucket: Type.Optional(BucketSchema),
  sort: Type.Optional(StringEnum(['frequency', 'difficulty', 'acceptance'] as const)),
}, { additionalProperties: false });

const Window = Type.Object({ start: Nullable(UnixSeconds), end: UnixSeconds }, { description: 'The window the counts come from; start null: since the beginning' });
const Measured = Type.Object({
  source: Type.Literal('measured'), window: Window,
  asked_count: Type.Integer({ description: 'Coding sessions started in the window that gave the question (this organisation, this environment)' }),
  frequency: Type.Number({ description: '0–100: 100 × asked_count / the most-asked question of the bucket' }),
  judged_count: Type.Integer(), accepted_count: Type.Integer(),
  acceptance: Nullable(Type.Number({ description: 'accepted_count / judged_count; null when nothing was judged' })),
});
const Core = {
  object: Type.Literal('question_bank_question'), id: Uuid, slug: Type.String(), title: Type.String(), category: Type.String(),
  difficulty: Difficulty, topics: Type.Array(Type.String()), source: StringEnum(['prep', 'organization', 'imported'] as const),
  link: Nullable(Type.String()), coding_problem_id: Nullable(Uuid), custom: Type.Boolean(),
};
const Listed = Type.Object({
  ...Core, time_bucket: BucketSchema, statistics: Measured,
  imported_statistics: Nullable(Type.Object({
    source: Type.Literal('imported'), company: Nullable(Type.String()), companies: Type.Integer(),
    frequency: Type.Number(), acceptance: Nullable(Type.Number()),
  }, { description: 'From imported company-wise files, apart from measured figures: the filtered company, else the highest over companies' })),
});
const Imported = Type.Object({ source: Type.Literal('imported'), frequency: Type.Number(), acceptance: Nullable(Type.Number()), file: Type.String(), imported_at: UnixSeconds });
const Detail = Type.Object({
  ...Core,
  prompt: Nullable(Type.String({ description: 'Markdown; null for a title imported without content' })),
  guidance: Nullable(Type.Object({ key_points: Type.Array(Type.String()), follow_ups: Type.Array(Type.String()) }, { description: 'For interviewers: never shown to a candidate' })),
  statistics: Type.Object({ '30d': Measured, '90d': Measured, '180d': Measured, all: Measured }),
  companies: Type.Array(Type.Object({ slug: Type.String(), name: Type.String(), statistics: Type.Record(Type.String(), Imported) })),
});

export function questionBankRoutes(app: App, service: QuestionBankService): void {
  const Counted = { slug: Type.String(), name: Type.String(), question_count: Type.Integer() };
  const lists = [
    { url: '/v1/question-bank/companies', id: 'listQuestionBankCompanies', summary: 'Companies with at least one question for this caller, most questions first',
      item: Type.Object({ object: Type.Literal('question_bank_company'), ...Counted }), read: service.companies },
    { url: '/v1/question-bank/categories', id: 'listQuestionBankCategories', summary: 'Categories with their question counts',
      item: Type.Object({ object: Type.Literal('question_bank_category'), ...Counted, description: Type.String() }), read: service.categories },
    { url: '/v1/question-bank/topics', id: 'listQuestionBankTopics', summary: 'Topics with their question counts',
      item: Type.Object({ object: Type.Literal('question_bank_topic'), ...Counted }), read: service.topics },
  ];
  for (const list of lists) {
    app.route({
      method: 'GET', url: list.url,
      ...operation({ ...secret, id: list.id, summary: list.summary }, { querystring: PagingQuery, response: { 200: ListOf(list.item) } }),
      handler: async (request) => list.read(tenantOf(request), pageOf(request.query)) as never,
    });
  }

  app.route({
    method: 'GET', url: '/v1/question-bank/questions',
    ...operation({ ...secret, id: 'listQuestionBankQuestions', summary: 'Questions by company, category, topic, difficulty and time window; full-text search' }, {
      querystring: QuestionsQuery, response: { 200: ListOf(Listed) },
    }),
    handler: async (request) => {
      const { limit: _l, starting_after: _s, time_bucket, ...filters } = request.query;
      return service.list(tenantOf(request), { ...filters, ...(time_bucket ? { bucket: time_bucket } : {}) }, pageOf(request.query));
    },
  });

  app.route({
    method: 'GET', url: '/v1/question-bank/questions/:id',
    ...operation({ ...secret, id: 'getQuestionBankQuestion', summary: 'A question with its statistics per time bucket, companies and guidance' }, {
      // Any string: an unknown or malformed id is the same 404 (one over 100 characters is refused by the router first).
      params: Type.Object({ id: Type.String({ maxLength: 100 }) }, { additionalProperties: false }), response: { 200: Detail },
    }),
    handler: async (request) => service.get(tenantOf(request), request.params.id) as never,
  });
}

function pageOf(query: { limit?: number; starting_after?: string }) {
  return { limit: query.limit ?? PAGE_LIMIT_DEFAULT, ...(query.starting_after !== undefined ? { startingAfter: query.starting_after } : {}) };
}
