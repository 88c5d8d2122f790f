/**
 * How long a session's drafts outlive their last write: longer than any session can run (an untimed one is swept
 * after 7 days). A tab closed before its session ended never clears its drafts; this keeps them from staying for
 * good in a shared browser.
 */
export const DRAFTS_KEPT_MS = 8 * 24 * 3600_000;
const TOUCHED = 'touched';

/**
 * The candidate's code per problem and language, kept in this browser so a reload or a crash loses nothing
 * typed. Storage may be refused (a third-party context, private mode): then drafts live for the page only.
 */
export class Drafts {
  private readonly memory = new Map<string, string>();

  constructor(private readonly sessionId: string) {
    Drafts.prune(Date.now());
  }

  /**
   * Removes every session's drafts last written over DRAFTS_KEPT_MS ago. A session's drafts without a time (kept
   * before times were) are given the time now, so they go in DRAFTS_KEPT_MS too.
   */
  static prune(now: number): void {
    try {
      const keys = Object.keys(localStorage).filter((k) => k.startsWith('prep:'));
      const sessions = new Set(keys.map((k) => k.slice(0, k.indexOf(':', 5) + 1)).filter((p) => p.length > 5));
      for (const prefix of sessions) {
        const touched = Number(localStorage.getItem(`${prefix}${TOUCHED}`));
        if (!(touched > 0)) localStorage.setItem(`${prefix}${TOUCHED}`, String(now));
        else if (now - touched > DRAFTS_KEPT_MS) for (const k of keys) if (k.startsWith(prefix)) localStorage.removeItem(k);
      }
    } catch {
      // storage refused: nothing was kept there
    }
  }

  private key(...parts: string[]) {
    return ['prep', this.sessionId, ...parts].join(':');
  }

  // Memory first: once storage is full, the newest text is only there.
  private read(key: string): string | null {
    const kept = this.memory.get(key);
    if (kept !== undefined) return kept;
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  }

  private write(key: string, value: string) {
    this.memory.set(key, value);
    try {
      localStorage.setItem(key, value);
      localStorage.setItem(this.key(TOUCHED), String(Date.now()));
    } catch {
      // kept in memory only
    }
  }

  load = (problemId: string, language: string) => this.read(this.key('code', problemId, language));
  save = (problemId: string, language: string, code: string) => this.write(this.key('code', problemId, language), code);
  lastLanguage = (problemId: string) => this.read(this.key('language', problemId));
  rememberLanguage = (problemId: string, language: string) => this.write(this.key('language', problemId), language);

  /** Once the session is over, nothing of the candidate's code stays in this browser. */
  clear(): void {
    this.memory.clear();
    try {
      const prefix = this.key('');
      for (const key of Object.keys(localStorage)) if (key.startsWith(prefix)) localStorage.removeItem(key);
    } catch {
      // storage refused: nothing was kept there
    }
  }
}
