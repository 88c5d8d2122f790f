import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * Measured activity behind the bank's statistics, per coding problem, for one organisation in one environment
 * (test-mode activity never counts toward live figures, and no organisation sees another's):
 * - asked: coding sessions started in the window that gave the candidate the problem;
 * - judged / accepted: submissions judged in the window (runs against custom input are not submissions).
 * Interviews will add the questions they ask here. Arguments are bound values only (the bank compiles these once).
 */
export function askedByProblem(db: Kysely<Database>, organizationId: string, livemode: 0 | 1, since: number) {
  return db.selectFrom('coding_session_problems as csp').innerJoin('coding_sessions as s', 's.id', 'csp.session_id')
    .select((eb) => ['csp.problem_id', eb.fn.countAll<number>().as('asked')])
    .where('s.organization_id', '=', organizationId).where('s.livemode', '=', livemode)
    .where('s.started_at', '>=', since)
    .groupBy('csp.problem_id');
}

export function judgedByProblem(db: Kysely<Database>, organizationId: string, livemode: 0 | 1, since: number) {
  return db.selectFrom('coding_submissions')
    .select((eb) => [
      'problem_id',
      eb.fn.countAll<number>().as('judged'),
      eb.fn.sum<number>(eb.case().when('verdict', '=', 'ACCEPTED').then(1).else(0).end()).as('accepted'),
    ])
    .where('organization_id', '=', organizationId).where('livemode', '=', livemode)
    .where('status', '=', 'judged').where('verdict', '<>', 'COMPLETED').where('judged_at', '>=', since)
    .groupBy('problem_id');
}
