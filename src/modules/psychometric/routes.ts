import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import type { PsychometricSessionsTable } from '../../db/schema.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionTokenOf, tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListOf, ListQuery, Nullable, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { assignmentEndsAt } from '../assessments/lifecycle.js';
import { AssessmentStatusSchema, lifecycleRoutes } from '../assessments/routes.js';
import { LANGUAGE_TAG } from './instrument.js';
import { answeredCount, answersById } from './answers.js';
import type { PsychometricTest } from './catalog.js';
import type { PsychometricService } from './service.js';

const TAG = 'Psychometric tests';
const Language = Text({ min: 2, max: 16, pattern: LANGUAGE_TAG.source, description: 'An IETF language tag the test offers (en, de, pt-br, …)' });
const Label = Nullable(StringEnum(['low', 'average', 'high'] as const));

const Scales = Type.Array(Type.Object({
  key: Type.String(), name: Type.String(), items: Type.Integer(),
  keys: Type.Object({ plus: Type.Integer(), minus: Type.Integer() }, { description: 'How many items are keyed each way' }),
  facets: Type.Array(Type.Object({ key: Type.String(), name: Type.String(), items: Type.Integer(), keys: Type.Object({ plus: Type.Integer(), minus: Type.Integer() }) })),
}));

const PsychometricTestSchema = Type.Object({
  object: Type.Literal('psychometric_test'), id: Uuid, slug: Type.String(), name: Type.String(), description: Type.String(),
  item_count: Type.Integer(), estimated_minutes: Type.Integer(), languages: Type.Array(Type.String()), scales: Scales,
  norm_group: Nullable(Type.Object({ key: Type.String(), label: Type.String(), source: Type.String() }, { description: 'Published norms; null: local norms from 50 sessions on' })),
  source: Type.String(), custom: Type.Boolean(), created_at: UnixSeconds,
});

const Summary = Type.Object({
  object: Type.Literal('psychometric_session'), id: Uuid, livemode: Type.Boolean(), status: AssessmentStatusSchema,
  candidate_id: Nullable(Uuid), psychometric_test_id: Uuid, language: Type.String(),
  answered_count: Type.Integer(), item_count: Type.Integer(),
  created_at: UnixSeconds, updated_at: UnixSeconds, started_at: Nullable(UnixSeconds), ended_at: Nullable(UnixSeconds),
  assignment_expires_at: UnixSeconds,
});

const Detail = Type.Object({
  ...Summary.properties,
  items: Type.Array(Type.Object({ id: Type.String(), text: Type.String() }), { description: 'In the order this session shows them (fixed per session)' }),
  choices: Type.Array(Type.Object({ value: Type.Integer(), label: Type.String() })),
  answers: Type.Array(Type.Object({ item_id: Type.String(), value: Type.Integer() })),
});

const Score = {
  key: Type.String(), name: Type.String(), raw: Type.Integer(), mean: Type.Number(), items: Type.Integer(),
  t_score: Nullable(Type.Number()), percentile: Nullable(Type.Number()), label: Label, text: Type.String(),
};
const Indicator = Type.Object({ value: Type.Number(), threshold: Type.Number(), flagged: Type.Boolean(), description: Type.String() });
const Report = Type.Object({
  object: Type.Literal('psychometric_report'), session_id: Uuid, psychometric_test_id: Uuid, status: AssessmentStatusSchema,
  language: Type.String(), text_language: Type.String(),
  norm_group: Nullable(Type.Object({ key: Type.String(), label: Type.String(), source: Type.String() })),
  domains: Type.Array(Type.Object({ ...Score, facets: Type.Array(Type.Object(Score)) })),
  quality: Type.Object({ longest_identical_run: Indicator, seconds_per_item: Indicator, inconsistency: Indicator }),
  flagged: Type.Array(Type.String()), summary: Type.String(), created_at: UnixSeconds,
});

function presentTest(t: PsychometricTest) {
  const { items, scales, norms, languages } = t.definition;
  const keys = (match: (i: (typeof items)[number]) => boolean) => ({
    plus: items.filter((i) => match(i) && i.keyed === 'plus').length, minus: items.filter((i) => match(i) && i.keyed === 'minus').length,
  });
  return {
    object: 'psychometric_test' as const, id: t.id, slug: t.slug, name: t.name, description: t.description, item_count: items.length,
    estimated_minutes: t.estimated_minutes, languages,
    scales: scales.map((s) => ({
      key: s.key, name: s.name, items: items.filter((i) => i.domain === s.key).length, keys: keys((i) => i.domain === s.key),
      facets: s.facets.map((f) => ({ key: f.key, name: f.name, items: items.filter((i) => i.facet === f.key).length, keys: keys((i) => i.facet === f.key) })),
    })),
    norm_group: norms ? { key: norms.key, label: norms.label, source: norms.source } : null,
    source: t.source, custom: t.organization_id !== null, created_at: toUnixSeconds(t.created_at),
  };
}

export function presentPsychometricSession(r: PsychometricSessionsTable) {
  return {
    object: 'psychometric_session' as const, id: r.id, livemode: r.livemode === 1, status: r.status, candidate_id: r.candidate_id,
    psychometric_test_id: r.test_id, language: r.language,
    answered_count: answeredCount(r.answers), item_count: r.answers.length,
    created_at: toUnixSeconds(r.created_at), updated_at: toUnixSeconds(r.updated_at), started_at: toUnixSeconds(r.started_at),
    ended_at: toUnixSeconds(r.ended_at), assignment_expires_at: toUnixSeconds(assignmentEndsAt(r)),
  };
}

function presentDetail({ row, test }: { row: PsychometricSessionsTable; test: PsychometricTest }) {
  const texts = new Map(test.definition.items.map((i) => [i.id, i.text[row.language] ?? i.text.en ?? '']));
  const answers = answersById(test, row.answers);
  const order = JSON.parse(row.item_order) as string[];
  const labels = test.definition.choices[row.language] ?? test.definition.choices.en!;
  return {
    ...presentPsychometricSession(row),
    items: order.map((id) => ({ id, text: texts.get(id)! })),
    choices: labels.map((label, i) => ({ value: i + 1, label })),
    answers: order.filter((id) => answers[id] !== undefined).map((id) => ({ item_id: id, value: answers[id]! })),
  };
}

export function psychometricRoutes(app: App, service: PsychometricService): void {
  const secret = { auth: 'secret' as const, module: 'psychometric' as const, tag: TAG };
  const candidate = { auth: 'session' as const, module: 'psychometric' as const, subject: 'psychometric' as const, tag: TAG };

  app.route({
    method: 'GET', url: '/v1/psychometric-tests',
    ...operation({ ...secret, id: 'listPsychometricTests', summary: 'The instruments: the shared catalogue and the organisation\'s own' }, {
      querystring: ListQuery, response: { 200: ListOf(PsychometricTestSchema) },
    }),
    handler: async (request) => listEnvelope(await service.listTests(tenantOf(request).organizationId, pageRequest(request.query)), presentTest) as never,
  });

  app.route({
    method: 'GET', url: '/v1/psychometric-tests/:id',
    ...operation({ ...secret, id: 'getPsychometricTest', summary: 'An instrument with its scales, keys and languages' }, { params: IdParams, response: { 200: PsychometricTestSchema } }),
    handler: async (request) => presentTest(await service.getTest(tenantOf(request).organizationId, request.params.id)) as never,
  });

  lifecycleRoutes(app, {
    path: '/v1/psychometric-sessions', tag: TAG, kind: 'psychometric', module: 'psychometric',
    noun: { one: 'Psychometric session', many: 'Psychometric sessions' }, testField: 'psychometric_test_id',
    assignExtra: { language: Type.Optional(Language) }, service,
    summary: Summary, presentSummary: presentPsychometricSession,
    assignment: Type.Object({ ...Summary.properties, resumed: Type.Boolean() }), presentAssignment: (d) => presentPsychometricSession(d.row),
    started: Detail, presentStarted: presentDetail,
    ids: { list: 'listPsychometricSessions', assign: 'assignPsychometricTest', cancel: 'cancelPsychometricSession', launchLink: 'createPsychometricLaunchLink', start: 'startPsychometricSession' },
  });

  app.route({
    method: 'GET', url: '/v1/psychometric-sessions/:id',
    ...operation({ ...candidate, id: 'getPsychometricSession', summary: 'The questionnaire in this session\'s order, with the answers saved so far' }, {
      params: IdParams, response: { 200: Detail },
    }),
    handler: async (request) => presentDetail(await service.get(sessionTokenOf(request), request.params.id)) as never,
  });

  app.route({
    method: 'POST', url: '/v1/psychometric-sessions/:id/progress',
    ...operation({ ...candidate, id: 'savePsychometricProgress', summary: 'Save answers (each may be changed until submit)' }, {
      params: IdParams,
      body: Type.Object({
        answers: Type.Array(Type.Object({
          item_id: Text({ min: 1, max: 64 }), value: Type.Integer({ minimum: 1, maximum: 5 }),
        }, { additionalProperties: false }), { minItems: 1, maxItems: 500 }),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ object: Type.Literal('psychometric_progress'), answered_count: Type.Integer(), item_count: Type.Integer() }) },
    }),
    handler: async (request) => {
      const { answered, total } = await service.progress(sessionTokenOf(request), request.params.id, request.body.answers);
      return { object: 'psychometric_progress' as const, answered_count: answered, item_count: total };
    },
  });

  app.route({
    method: 'POST', url: '/v1/psychometric-sessions/:id/submit',
    ...operation({ ...candidate, id: 'submitPsychometricSession', summary: 'Submit every answer: scored at once (psychometric.completed follows); a repeat answers the same' }, {
      params: IdParams, response: { 200: Summary },
    }),
    handler: async (request) => presentPsychometricSession(await service.submit(sessionTokenOf(request), request.params.id)) as never,
  });

  app.route({
    method: 'GET', url: '/v1/psychometric-sessions/:id/report',
    ...operation({ ...secret, id: 'getPsychometricReport', summary: 'Scores per domain and facet, norms, response quality and a summary' }, {
      params: IdParams, response: { 200: Report },
    }),
    handler: async (request) => {
      const { row, report, createdAt } = await service.report(tenantOf(request), request.params.id);
      return { object: 'psychometric_report' as const, session_id: row.id, psychometric_test_id: row.test_id, status: row.status, ...report, created_at: toUnixSeconds(createdAt) } as never;
    },
  });
}
