import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createSandbox, type ExecuteRequest } from '../../src/sandbox/sandbox.js';

/** One sandbox for a test file, its launcher built in a shared directory under the OS temp dir. */
export function testSandbox(env: Record<string, string> = {}) {
  const config = loadConfig({ PREP_SANDBOX_DIR: path.join(os.tmpdir(), 'prep-test-sandbox'), PREP_SANDBOX_SLOTS: '2', ...env });
  return createSandbox(config.sandbox);
}

export type TestSandbox = ReturnType<typeof testSandbox>;

/** One run of `source` on `stdin`, with generous default limits. */
export async function runOnce(sandbox: TestSandbox, language: string, source: string, options: Partial<ExecuteRequest> & { stdin?: string } = {}) {
  const execution = await sandbox.execute({
    language, source, comparator: 'exact', priority: 'batch',
    limits: { timeLimitMs: 2000, memoryLimitMb: 256 },
    cases: [{ name: 'stdin', input: options.stdin ?? '' }],
    ...options,
  });
  const c = execution.cases[0];
  return { execution, compile: execution.compile, case: c, stdout: c?.stdout.toString('utf8') ?? '', stderr: c?.stderr.toString('utf8') ?? '' };
}
