import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testClient } from '../helpers/client.js';
import { countStatements } from '../helpers/sql-count.js';

/**
 * How many SQL statements a request runs does not grow with the page it answers or with the data under it (no N+1).
 * Counts, never timings: the statements are counted below Kysely and the read cache (helpers/sql-count.ts).
 */
let h: Harness;
let c: ReturnType<typeof testClient>;
let key: string;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '1000000' } });
  c = testClient(h);
  key = (await h.createOrg('Counted', 1000)).keys.secret_test;
});
afterAll(() => h?.close());

/** The body of a GET and the statements it ran, after a call that warms what every request reads the same (the key, the module switch). */
async function counted(url: string): Promise<{ body: any; statements: string[] }> {
  await c.ok('GET', '/v1/candidates?limit=1', { key });
  const { result, statements } = await countStatements(() => c.call('GET', url, { key }));
  expect(result.status, result.raw).toBe(200);
  return { body: result.body, statements };
}

describe('prompt-engineering assessments', () => {
  it('a page of assessments reads their tasks at once, not once per assessment', async () => {
    const { body, statements } = await counted('/v1/prompt-engineering-assessments?limit=100');
    expect(body.data.length).toBeGreaterThan(5);
    expect(body.data.every((a: { task_count: number }) => a.task_count > 0)).toBe(true);
    // The tasks' digests once for the page, and their contents once for those not yet kept in the process.
    const taskReads = statements.filter((sql) => sql.includes('"prompt_engineering_tasks"'));
    expect(taskReads.length, statements.join('\n')).toBeLessThanOrEqual(2);
  });
});
