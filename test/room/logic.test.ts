import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { brandStyle } from '../../src/room/branding.js';
import { Countdown, formatClock, formatDuration } from '../../src/room/countdown.js';
import { noticeFor, TERMINAL } from '../../src/room/messages.js';
import { refreshDelayMs, SessionKeeper, tokenClaims } from '../../src/room/session.js';
import { sessionGrant } from '../../src/room/embed-session.js';
import { Drafts, DRAFTS_KEPT_MS } from '../../src/room/drafts.js';

/** An unsigned token with the given claims: the room reads claims, it never verifies (the service does). */
const tokenWith = (claims: Record<string, unknown>) =>
  `eyJhbGciOiJFZERTQSJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('the countdown', () => {
  it('counts down locally and never lets a later server value add time', () => {
    let now = 0;
    const c = new Countdown(() => now);
    expect(c.remaining()).toBe(Infinity);
    expect(c.sync(600)).toBe(600);
    now = 10_000;
    expect(c.remaining()).toBe(590);
    // The server says more time is left than the local count: the smaller, local value stands.
    expect(c.sync(599)).toBe(590);
    // The server says less: it wins.
    now = 20_000;
    expect(c.sync(500)).toBe(500);
    now = 1_000_000;
    expect(c.remaining()).toBe(0);
    expect(c.sync(-5)).toBe(0);
  });

  it('formats the clock and durations for people', () => {
    expect(formatClock(3600)).toBe('1:00:00');
    expect(formatClock(3599.2)).toBe('1:00:00');
    expect(formatClock(725)).toBe('12:05');
    expect(formatClock(9)).toBe('0:09');
    expect(formatClock(-3)).toBe('0:00');
    expect(formatDuration(3600)).toBe('1 hour');
    expect(formatDuration(5400)).toBe('1 hour 30 minutes');
    expect(formatDuration(60)).toBe('1 minute');
    expect(formatDuration(2700)).toBe('45 minutes');
  });
});

describe('messages', () => {
  it('a human message for each refusal and terminal state, and a generic one for anything else', () => {
    for (const code of ['invalid_launch_token', 'assignment_expired', 'session_cancelled', 'session_already_finalized', 'invalid_session_token', 'network_error']) {
      expect(noticeFor(code).title, code).not.toBe('Something went wrong');
    }
    expect(noticeFor('some_new_code').title).toBe('Something went wrong');
    expect(Object.keys(TERMINAL).sort()).toEqual(['cancelled', 'completed', 'expired', 'timed_out']);
    expect(JSON.stringify([TERMINAL, noticeFor('x')])).not.toMatch(/_[a-z]+_|Error|undefined/);
  });
});

describe('branding', () => {
  it('uses the organisation’s hex colours and falls back on anything else (no CSS injection)', () => {
    const style = brandStyle({
      company_name: 'Acme', logo_url: null, primary_color: '#0f766e', accent_color: 'red; background: url(https://evil)',
      background_color: '#fff', text_color: 'expression(alert(1))',
    });
    expect(style['--prep-primary']).toBe('#0f766e');
    expect(style['--prep-bg']).toBe('#fff');
    expect(style['--prep-accent']).toBe('#0ea5e9');
    expect(style['--prep-text']).toBe('#0f172a');
  });
});

describe('the session token keeper', () => {
  it('refreshes at refresh_after measured from the token’s issue time, whatever the local clock says', () => {
    const token = tokenWith({ iat: 1_000, exp: 1_900 });
    expect(tokenClaims(token)).toEqual({ iat: 1_000, exp: 1_900 });
    expect(refreshDelayMs(token, 1_600)).toBe(600_000);
    expect(refreshDelayMs(token)).toBe(600_000); // five minutes before exp, as the service sets it
    expect(refreshDelayMs('not.a-token')).toBe(0);
    expect(tokenClaims('garbage')).toBeNull();
  });

  describe('over time', () => {
    const calls: Array<{ url: string; authorization: string | null }> = [];
    let answer: () => Response;

    beforeEach(() => {
      vi.useFakeTimers({ now: 5_000_000 });
      calls.length = 0;
      vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
        calls.push({ url, authorization: (init.headers as Record<string, string>).authorization ?? null });
        return answer();
      });
    });
    afterEach(() => {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    });

    const grant = (iat: number) => ({
      session_token: tokenWith({ iat, exp: iat + 900 }), expires_at: iat + 900, refresh_after: iat + 600, subject_kind: 'coding', subject_id: 's',
    });

    it('swaps in the new token at refresh_after, then refreshes again ten minutes later', async () => {
      const first = grant(100);
      const second = grant(700);
      answer = () => new Response(JSON.stringify(second), { status: 201 });
      const refreshed: string[] = [];
      const keeper = new SessionKeeper('https://prep.test', first, { refreshed: (g) => refreshed.push(g.session_token), lost: () => { throw new Error('lost'); } });
      keeper.start();
      await vi.advanceTimersByTimeAsync(599_000);
      expect(calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(calls).toEqual([{ url: 'https://prep.test/v1/sessions/refresh', authorization: `Bearer ${first.session_token}` }]);
      expect(keeper.token()).toBe(second.session_token);
      expect(refreshed).toEqual([second.session_token]);
      await vi.advanceTimersByTimeAsync(601_000);
      expect(calls.map((c) => c.authorization)).toEqual([`Bearer ${first.session_token}`, `Bearer ${second.session_token}`]);
      keeper.stop();
    });

    it('retries a network failure every 10 s until the token expires, and reports a refused refresh as lost', async () => {
      let fail = true;
      answer = () => {
        if (fail) throw new TypeError('network down');
        return new Response(JSON.stringify({ error: { code: 'invalid_session_token', message: 'revoked' } }), { status: 401 });
      };
      const lost: string[] = [];
      const keeper = new SessionKeeper('https://prep.test', grant(100), { refreshed: () => {}, lost: (e) => lost.push(e.code) });
      keeper.start();
      await vi.advanceTimersByTimeAsync(601_000);
      expect(calls.length).toBe(1);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(calls.length).toBe(2);
      expect(lost).toEqual([]);
      fail = false;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(lost).toEqual(['invalid_session_token']);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(calls.length).toBe(3); // stopped after losing the session
    });

    // Was a bug: a token that expired while the service could not be reached (a laptop waking from a long sleep before
    // its network is back) was reported lost as network_error, so the page, which re-mints on invalid_session_token
    // (embedding.md), never did, and the room stayed on "could not be reached" with a dead token.
    it('reports a token that expired while the service was unreachable as invalid_session_token', async () => {
      answer = () => { throw new TypeError('network down'); };
      const lost: string[] = [];
      const keeper = new SessionKeeper('https://prep.test', grant(100), { refreshed: () => {}, lost: (e) => lost.push(e.code) });
      keeper.start();
      await vi.advanceTimersByTimeAsync(890_000);
      expect(lost).toEqual([]); // still retrying while the token lives
      await vi.advanceTimersByTimeAsync(20_000);
      expect(lost).toEqual(['invalid_session_token']);
      const calls_ = calls.length;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(calls.length).toBe(calls_); // and stopped
    });

    // Was a bug: a refresh still in flight when the room ended (stop) or the page handed over a new token (replace)
    // was applied when it answered: the hosted page stored the fresh token again after the room said it had ended
    // (a reload reopened it), the widget reported it after unmount, and the page's new token was overwritten.
    it('drops the answer of a refresh in flight when stopped or handed a new token', async () => {
      let release!: () => void;
      answer = () => new Response(JSON.stringify(grant(700)), { status: 201 });
      vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
        calls.push({ url, authorization: (init.headers as Record<string, string>).authorization ?? null });
        await new Promise<void>((resolve) => { release = resolve; });
        return answer();
      });
      const first = grant(100);
      const events: string[] = [];
      const keeper = new SessionKeeper('https://prep.test', first, { refreshed: (g) => events.push(`refreshed ${g.session_token}`), lost: (e) => events.push(`lost ${e.code}`) });
      keeper.start();
      await vi.advanceTimersByTimeAsync(601_000);
      expect(calls.length).toBe(1);
      keeper.stop(); // the room ended
      release();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(events).toEqual([]);
      expect(keeper.token()).toBe(first.session_token);

      const handed = grant(5_000);
      const again = new SessionKeeper('https://prep.test', first, { refreshed: (g) => events.push(`refreshed ${g.session_token}`), lost: (e) => events.push(`lost ${e.code}`) });
      again.start();
      await vi.advanceTimersByTimeAsync(601_000);
      expect(calls.length).toBe(2);
      again.replace(handed); // the customer's page minted a new one meanwhile
      release();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(again.token()).toBe(handed.session_token);
      expect(events).toEqual([]);
      again.stop();
    });
  });
});

describe('the session a page hands the embed', () => {
  // Was a bug: `PrepEmbed.mount` and `setSession` took any object as the session (`{}`, or a failed mint's error
  // body), and every call then went out without a token; the developer learnt of it from 401s, not at the mount.
  it('is refused at once unless it holds a session_token string (checkMount and setSession ask sessionGrant)', () => {
    for (const session of [{}, { error: { type: 'invalid_request_error', code: 'parameter_missing' } }, { session_token: 7 }, { session_token: '' }]) {
      expect(() => sessionGrant(session, 'PrepEmbed.mount')).toThrow(/PrepEmbed\.mount needs a session: .*without session_token/);
    }
    expect(() => sessionGrant(42, 'PrepEmbed.mount')).toThrow(/got number/);
    expect(() => sessionGrant(null, "setSession")).toThrow(/setSession needs a session: .*got null/);
    expect(() => sessionGrant(undefined, 'setSession')).toThrow(/got undefined/);
  });
  it('takes the mint answer or its token', () => {
    expect(sessionGrant({ session_token: 't1', refresh_after: 5 }, 'PrepEmbed.mount')).toEqual({ session_token: 't1', refresh_after: 5 });
    expect(sessionGrant('t3', 'setSession')).toEqual({ session_token: 't3' });
  });
});

describe('code drafts kept in the browser', () => {
  // Was a bug: drafts were removed only when the room saw its session end; a tab closed before that left the
  // candidate's code in localStorage for good (in a shared browser, for the next person to read).
  let store: Record<string, string>;
  beforeEach(() => {
    store = {};
    const storage = Object.create(null);
    Object.defineProperties(storage, {
      getItem: { value: (k: string) => (k in store ? store[k] : null) },
      setItem: { value: (k: string, v: string) => void (store[k] = String(v), storage[k] = String(v)) },
      removeItem: { value: (k: string) => void (delete store[k], delete storage[k]) },
    });
    vi.stubGlobal('localStorage', storage);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('go once nothing was written to them for longer than any session runs; the rest stay', () => {
    const start = Date.parse('2026-11-01T09:00:00Z');
    vi.useFakeTimers({ now: start });
    try {
      new Drafts('ses_old').save('two-sum', 'python', 'print(1)');
      localStorage.setItem('prep.interview.iv_1.recording', '3'); // not a draft: another scheme, left alone
      vi.setSystemTime(start + DRAFTS_KEPT_MS - 60_000);
      new Drafts('ses_new').save('two-sum', 'python', 'print(2)');
      expect(new Drafts('ses_old').load('two-sum', 'python')).toBe('print(1)'); // not yet
      vi.setSystemTime(start + DRAFTS_KEPT_MS + 60_000);
      const fresh = new Drafts('ses_new');
      expect(Object.keys(store).filter((k) => k.startsWith('prep:ses_old:'))).toEqual([]);
      expect(fresh.load('two-sum', 'python')).toBe('print(2)');
      expect(store['prep.interview.iv_1.recording']).toBe('3');
    } finally {
      vi.useRealTimers();
    }
  });

  it('kept before they had a time are given one now, and go that long after', () => {
    const start = Date.parse('2026-11-01T09:00:00Z');
    localStorage.setItem('prep:ses_legacy:code:two-sum:python', 'print(0)');
    Drafts.prune(start);
    expect(store['prep:ses_legacy:code:two-sum:python']).toBe('print(0)');
    Drafts.prune(start + DRAFTS_KEPT_MS + 1);
    expect(Object.keys(store)).toEqual([]);
  });
});
