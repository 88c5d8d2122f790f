import { ApiError } from '../platform/errors.js';
import { SandboxBusyError, SandboxSubjectBusyError, SandboxUnavailableError, type Sandbox } from './sandbox.js';

/**
 * A sandbox refusal as the API answers it: 429 `capacity_unavailable` when every slot is busy, 429 `rate_limited`
 * when the session already has a run under way, 503 when there is no sandbox.
 */
export function sandboxError(error: unknown): never {
  if (error instanceof SandboxSubjectBusyError) {
    throw new ApiError('rate_limited', { message: 'One run at a time: wait for the run under way to finish.', headers: { 'Retry-After': '1' } });
  }
  if (error instanceof SandboxBusyError) {
    throw new ApiError('capacity_unavailable', { message: 'Every code-execution slot is busy; retry shortly.', headers: { 'Retry-After': '2' } });
  }
  if (error instanceof SandboxUnavailableError) {
    throw new ApiError('execution_unavailable', { message: `Code execution is unavailable on this server: ${error.message}.` });
  }
  throw error;
}

/** Refuses a language this server's sandbox does not run (400 naming the ones it does), or any run when there is no sandbox. */
export async function checkSandboxLanguage(sandbox: Pick<Sandbox, 'status'>, language: string): Promise<void> {
  const status = await sandbox.status();
  if (!status.available) sandboxError(new SandboxUnavailableError(status.reason ?? 'no sandbox'));
  if (!status.languages.some((l) => l.id === language)) {
    throw new ApiError('parameter_invalid', {
      param: 'language', message: `Unknown language '${language}'; available: ${status.languages.map((l) => l.id).join(', ')} (GET /v1/coding-languages).`,
    });
  }
}
