import type { Api } from './api.js';

export interface ProctoringEvent { type: string; meta?: Record<string, unknown> }

const FLUSH_MS = 5000;
const BATCH_MAX = 100;

/**
 * Signals for the reviewer, never a verdict: tab hidden, window blur, paste and copy in the room (with the
 * length of the text, not the text). Batched every few seconds; sent at once, with keepalive, when the tab
 * is hidden, since the page may never come back.
 */
export function startProctoring(options: { root: Node; api: Api; path: string; onRecorded?(event: ProctoringEvent): void }): () => void {
  let queue: ProctoringEvent[] = [];
  let sending = false;

  const record = (event: ProctoringEvent) => {
    queue.push(event);
    options.onRecorded?.(event);
  };

  const flush = async (keepalive = false) => {
    if (sending || queue.length === 0) return;
    sending = true;
    const batch = queue.slice(0, BATCH_MAX);
    queue = queue.slice(BATCH_MAX);
    try {
      await options.api.post(options.path, { events: batch }, { keepalive });
    } catch {
      // Signals are best effort: a batch the service refused or could not take is dropped, not retried forever.
    } finally {
      sending = false;
    }
  };

  const onVisibility = () => {
    if (document.visibilityState === 'hidden') {
      record({ type: 'tab_hidden', meta: { at: Date.now() } });
      void flush(true);
    }
  };
  const onBlur = () => record({ type: 'window_blur', meta: { at: Date.now() } });
  const onPaste = (e: Event) => record({ type: 'paste', meta: { chars: (e as ClipboardEvent).clipboardData?.getData('text/plain').length ?? 0 } });
  const onCopy = () => record({ type: 'copy', meta: { chars: String(document.getSelection() ?? '').length } });

  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('blur', onBlur);
  options.root.addEventListener('paste', onPaste, true);
  options.root.addEventListener('copy', onCopy, true);
  const timer = setInterval(() => void flush(), FLUSH_MS);

  return () => {
    clearInterval(timer);
    document.removeEventListener('visibilitychange', onVisibility);
    window.removeEventListener('blur', onBlur);
    options.root.removeEventListener('paste', onPaste, true);
    options.root.removeEventListener('copy', onCopy, true);
    void flush(true);
  };
}
