/**
 * The candidate's code per problem and language, kept in this browser so a reload or a crash loses nothing
 * typed. Storage may be refused (a third-party context, private mode): then drafts live for the page only.
 */
export class Drafts {
  private readonly memory = new Map<string, string>();

  constructor(private readonly sessionId: string) {}

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
