import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { INTERIM_EVERY_MS, InterviewChannel, type ChannelEvents, type ChannelTurn } from '../../src/room/interview-channel.js';
import { InterviewClock } from '../../src/room/interview-clock.js';
import { chooseVoice, createSpeaker, listenFailure, speakingMs } from '../../src/room/speech.js';

/** A socket the test drives: what the room sent, and the server's side of the conversation. */
class FakeSocket {
  readyState = 0;
  sent: Array<Record<string, any>> = [];
  closed: number | null = null;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000) {
    this.closed = code;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  say(message: Record<string, unknown>) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  of(type: string) {
    return this.sent.filter((m) => m.type === type);
  }
}

const turn = (seq: number, extra: Partial<ChannelTurn> = {}) => ({
  type: 'turn', seq, speaker: 'interviewer', kind: 'text', text: `turn ${seq}`, question_position: 0, at_seconds: seq, client_id: null, ...extra,
});

function setup(token = 'tok-1') {
  const sockets: FakeSocket[] = [];
  const seen = { turns: [] as ChannelTurn[], states: [] as string[], refused: [] as Array<[string, string | undefined]>, ended: [] as string[], clocks: [] as number[], unsent: [] as string[][] };
  let hidden = false;
  const events: ChannelEvents = {
    turn: (t) => seen.turns.push(t),
    delta: () => {},
    discard: () => {},
    clock: (c) => seen.clocks.push(c.remaining_seconds),
    ended: (status) => seen.ended.push(status),
    refused: (code, _message, answer) => seen.refused.push([code, answer]),
    connection: (state, detail) => seen.states.push(detail ? `${state}:${detail.code}` : state),
    unsent: (answers) => seen.unsent.push(answers.map((a) => a.text)),
  };
  let n = 0;
  const channel = new InterviewChannel({
    url: 'ws://prep.test/interview-channel', interviewId: 'iv-1', token: () => token, events,
    socket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    newId: () => `id-${++n}`,
    hidden: () => hidden,
  });
  const ready = (s: FakeSocket, lastSeq = 0) => {
    s.open();
    s.say({ type: 'ready', status: 'in_progress', running: true, remaining_seconds: 900, last_seq: lastSeq });
  };
  return { channel, sockets, seen, ready, hide: (value: boolean) => { hidden = value; } };
}

describe('the interview channel client', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('authenticates in the first message (never in the URL) and keeps each turn once by seq', () => {
    const { channel, sockets, seen, ready } = setup('secret-token');
    channel.start();
    const s = sockets[0]!;
    expect(s.url).not.toContain('secret-token');
    ready(s);
    expect(s.sent[0]).toEqual({ type: 'auth', token: 'secret-token', interview_id: 'iv-1', last_seq: 0 });
    s.say(turn(1));
    s.say(turn(1));
    s.say(turn(2));
    expect(seen.turns.map((t) => t.seq)).toEqual([1, 2]);
    vi.advanceTimersByTime(300);
    expect(s.of('ack')).toEqual([{ type: 'ack', seq: 2 }]);
    expect(seen.clocks).toEqual([900]);
  });

  // Was a bug: every speech-recognition result went out as an `interim` message; talking fast sent over 20 a second,
  // which the server answers by closing the channel (4429), and the room reconnected in a loop.
  it('sends what is heard at most every 250 ms, the latest text, and none of it once the answer is said', () => {
    const { channel, sockets, ready } = setup();
    channel.start();
    const s = sockets[0]!;
    ready(s);
    for (let i = 1; i <= 60; i++) {
      channel.interim(`word `.repeat(i).trim());
      vi.advanceTimersByTime(20); // 50 results a second, for 1.2 s
    }
    const sent = s.of('interim');
    expect(sent.length).toBeLessThanOrEqual(Math.ceil(1200 / INTERIM_EVERY_MS) + 1);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    vi.advanceTimersByTime(INTERIM_EVERY_MS);
    expect(s.of('interim').at(-1)!.text).toBe('word '.repeat(60).trim()); // the last heard goes out
    channel.interim('the final words');
    channel.interim('the final words, said');
    channel.answer('the final words, said.');
    vi.advanceTimersByTime(1000);
    expect(s.of('interim').map((m) => m.text)).not.toContain('the final words, said');
    expect(s.of('answer')).toHaveLength(1);
  });

  it('resends an answer not yet stored after a reconnect, from the last turn it holds, and drops it once stored', () => {
    const { channel, sockets, seen, ready } = setup();
    channel.start();
    ready(sockets[0]!);
    sockets[0]!.say(turn(1));
    sockets[0]!.drop(); // the network went away
    const id = channel.answer('said while offline');
    expect(channel.unsent).toBe(1);
    expect(seen.states.at(-1)).toBe('reconnecting');
    vi.advanceTimersByTime(300);
    const again = sockets[1]!;
    ready(again, 1);
    expect(again.sent[0]).toMatchObject({ type: 'auth', last_seq: 1 });
    expect(seen.unsent).toEqual([['said while offline']]); // shown as sending while away
    expect(again.of('answer')).toEqual([{ type: 'answer', id, text: 'said while offline' }]);
    again.say(turn(2, { speaker: 'candidate', text: 'said while offline', client_id: id }));
    expect(channel.unsent).toBe(0);
    expect(seen.unsent.at(-1)).toEqual([]);
    // Another drop: nothing is resent, since the server has it.
    again.drop();
    vi.advanceTimersByTime(1100);
    ready(sockets[2]!, 2);
    expect(sockets[2]!.of('answer')).toEqual([]);
    expect(sockets[2]!.sent[0]).toMatchObject({ last_seq: 2 });
  });

  it('keeps unsent answers across a reload of the page, resends them, and forgets them once stored', () => {
    let kept: Array<{ id: string; text: string }> = [];
    const store = { load: () => kept, save: (answers: ReadonlyArray<{ id: string; text: string }>) => { kept = [...answers]; } };
    const first = new InterviewChannel({ url: 'ws://prep.test/c', interviewId: 'iv-1', token: () => 't', events: {
      turn: () => {}, delta: () => {}, discard: () => {}, clock: () => {}, ended: () => {}, refused: () => {}, connection: () => {},
    }, socket: (url) => new FakeSocket(url), newId: () => 'kept-1', outboxStore: store });
    first.start(); // never connects: offline
    first.answer('typed while offline');
    first.stop();
    expect(kept).toEqual([{ id: 'kept-1', text: 'typed while offline' }]);

    // The reloaded page: a new channel on the same tab's store.
    const sockets: FakeSocket[] = [];
    const unsent: string[][] = [];
    const second = new InterviewChannel({ url: 'ws://prep.test/c', interviewId: 'iv-1', token: () => 't', events: {
      turn: () => {}, delta: () => {}, discard: () => {}, clock: () => {}, ended: () => {}, refused: () => {}, connection: () => {},
      unsent: (answers) => unsent.push(answers.map((a) => a.text)),
    }, socket: (url) => { const s = new FakeSocket(url); sockets.push(s); return s; }, outboxStore: store });
    second.start();
    expect(unsent[0]).toEqual(['typed while offline']); // shown as sending at once
    sockets[0]!.open();
    sockets[0]!.say({ type: 'ready', status: 'in_progress', running: true, remaining_seconds: 600, last_seq: 0 });
    expect(sockets[0]!.of('answer')).toEqual([{ type: 'answer', id: 'kept-1', text: 'typed while offline' }]);
    sockets[0]!.say(turn(1, { speaker: 'candidate', text: 'typed while offline', client_id: 'kept-1' }));
    expect(kept).toEqual([]);
    second.stop();
  });

  it('says why it stopped for a refusal (a second tab) instead of reconnecting, and reconnects on retry', () => {
    const { channel, sockets, seen, ready } = setup();
    channel.start();
    sockets[0]!.open();
    sockets[0]!.say({ type: 'error', code: 'already_connected', message: 'open elsewhere', fatal: true });
    sockets[0]!.drop(4409, 'already connected');
    vi.advanceTimersByTime(10_000);
    expect(sockets.length).toBe(1);
    expect(seen.states.at(-1)).toBe('refused:already_connected');
    channel.retry();
    ready(sockets[1]!);
    expect(seen.states.at(-1)).toBe('open');
  });

  it('gives a refused answer back, resends one the server was too busy to store, and settles recording URLs', async () => {
    const { channel, sockets, seen, ready } = setup();
    channel.start();
    const s = sockets[0]!;
    ready(s);
    const paused = channel.answer('during a pause');
    s.say({ type: 'error', code: 'paused', message: 'paused', id: paused });
    expect(seen.refused).toEqual([['paused', 'during a pause']]);
    expect(channel.unsent).toBe(0);
    const busy = channel.answer('busy one');
    s.say({ type: 'error', code: 'busy', message: 'again', id: busy });
    expect(s.of('answer').filter((m) => m.id === busy).length).toBe(2);
    const url = channel.recordingUrl(0);
    expect(s.of('recording.chunk_url')).toEqual([{ type: 'recording.chunk_url', index: 0 }]);
    s.say({ type: 'recording.chunk_url', index: 0, url: 'http://prep.test/files/x', max_bytes: 5 });
    await expect(url).resolves.toEqual({ url: 'http://prep.test/files/x', max_bytes: 5 });
    const refused = channel.recordingUrl(1);
    s.say({ type: 'error', code: 'recording_not_ready', message: 'test mode' });
    await expect(refused).rejects.toThrow('recording_not_ready');
    // Another failure for one piece settles that piece only (its upload tries again), and is not shown as a refusal.
    const failing = channel.recordingUrl(2);
    const waiting = channel.recordingUrl(3);
    s.say({ type: 'error', code: 'internal_error', message: 'storage down', index: 2 });
    await expect(failing).rejects.toThrow('internal_error');
    s.say({ type: 'recording.chunk_url', index: 3, url: 'http://prep.test/files/y', max_bytes: 5 });
    await expect(waiting).resolves.toMatchObject({ url: 'http://prep.test/files/y' });
    expect(seen.refused.map(([code]) => code)).toEqual(['paused']);
  });

  // Was a bug: on every `ready` the room resent its whole outbox at once. The server keeps at most 10 answers waiting
  // (the rest refused, and given back to the candidate) and closes past 20 messages a second with 4429, after which
  // the room reconnected and did the same again: with 20 answers said while offline (kept across reloads) it never
  // got back in. It now has at most 10 answers out at a time, and sends the next as one is stored.
  it('has at most ten answers out at a time, sending the next as each is stored', () => {
    const { channel, sockets, seen, ready } = setup();
    channel.start();
    ready(sockets[0]!);
    sockets[0]!.drop();
    const ids = Array.from({ length: 25 }, (_, i) => channel.answer(`said while offline ${i}`));
    vi.advanceTimersByTime(300);
    const s = sockets[1]!;
    ready(s);
    vi.advanceTimersByTime(300);
    expect(s.sent.length).toBeLessThan(20); // auth, answers, an ack: well under the flood limit
    expect(s.of('answer').map((m) => m.id)).toEqual(ids.slice(0, 10));
    let seq = 0;
    for (const id of ids) s.say(turn(++seq, { speaker: 'candidate', text: 'x', client_id: id }));
    expect(s.of('answer').map((m) => m.id)).toEqual(ids);
    expect(channel.unsent).toBe(0);
    // Said while connected: out at once, ten at most.
    const more = Array.from({ length: 12 }, (_, i) => channel.answer(`typed fast ${i}`));
    expect(s.of('answer').map((m) => m.id)).toEqual([...ids, ...more.slice(0, 10)]);
    s.say({ type: 'error', code: 'paused', message: 'paused', id: more[0] }); // refused: given back, the next goes out
    expect(s.of('answer').map((m) => m.id)).toEqual([...ids, ...more.slice(0, 11)]);
    expect(seen.refused).toEqual([['paused', 'typed fast 0']]);
  });

  it('acknowledges a replayed burst of turns once (the server allows 20 messages a second)', () => {
    const { channel, sockets, ready } = setup();
    channel.start();
    ready(sockets[0]!);
    for (let seq = 1; seq <= 40; seq++) sockets[0]!.say(turn(seq));
    vi.advanceTimersByTime(300);
    expect(sockets[0]!.of('ack')).toEqual([{ type: 'ack', seq: 40 }]);
  });

  it('says the interview is over when it ended while the tab was away (a fatal error, then a normal close)', () => {
    const { channel, sockets, seen } = setup();
    channel.start();
    sockets[0]!.open();
    sockets[0]!.say({ type: 'error', code: 'session_already_finalized', message: 'This interview has ended.', fatal: true });
    sockets[0]!.drop(1000, 'finalized');
    vi.advanceTimersByTime(10_000);
    expect(sockets.length).toBe(1);
    expect(seen.states.at(-1)).toBe('refused:session_already_finalized');
    expect(channel.answer('too late') && sockets.length).toBe(1);
  });

  it('pings, and drops a connection that stopped answering to connect again', () => {
    const { channel, sockets, ready } = setup();
    channel.start();
    ready(sockets[0]!);
    vi.advanceTimersByTime(15_000);
    expect(sockets[0]!.of('ping').length).toBe(1);
    vi.advanceTimersByTime(15_000); // no pong for 30 s
    vi.advanceTimersByTime(300);
    expect(sockets.length).toBe(2);
  });

  it('does not take a hidden tab\'s throttled timers for a dead connection', () => {
    const { channel, sockets, ready, hide } = setup();
    channel.start();
    ready(sockets[0]!);
    hide(true);
    vi.advanceTimersByTime(60_000); // late ticks, no pong: the page is hidden
    expect(sockets.length).toBe(1);
    hide(false);
    vi.advanceTimersByTime(15_000);
    vi.advanceTimersByTime(300);
    expect(sockets.length).toBe(2);
  });

  it('stops for good when the interview ends', () => {
    const { channel, sockets, seen, ready } = setup();
    channel.start();
    ready(sockets[0]!);
    sockets[0]!.say({ type: 'ended', status: 'ended', status_code: 30, reason: 'time_up' });
    sockets[0]!.drop(1000, 'ended');
    vi.advanceTimersByTime(20_000);
    expect(seen.ended).toEqual(['ended']);
    expect(sockets.length).toBe(1);
  });
});

describe('the interview clock', () => {
  it('counts down while running, holds while paused, and takes the server\'s value after a pause', () => {
    let now = 0;
    const clock = new InterviewClock(() => now);
    expect(clock.remaining()).toBeNull();
    clock.sync({ running: true, remaining_seconds: 600 });
    now = 10_000;
    expect(clock.remaining()).toBe(590);
    clock.sync({ running: false, remaining_seconds: 590 });
    now = 100_000;
    expect(clock.remaining()).toBe(590);
    clock.sync({ running: true, remaining_seconds: 590 });
    now = 700_000;
    expect(clock.remaining()).toBe(0);
  });
});

describe('speech helpers', () => {
  const voice = (name: string, lang: string, localService: boolean) => ({ name, lang, localService });

  it('prefers a voice on this device in the exact language, then the language, then any', () => {
    const voices = [voice('cloud-us', 'en-US', false), voice('local-gb', 'en-GB', true), voice('local-us', 'en-US', true), voice('local-de', 'de-DE', true)];
    expect(chooseVoice(voices, 'en-US')!.name).toBe('local-us');
    expect(chooseVoice(voices, 'en')!.name).toBe('local-gb');
    expect(chooseVoice([voice('cloud-fr', 'fr-FR', false)], 'fr')!.name).toBe('cloud-fr');
    expect(chooseVoice(voices, 'ja')).toBeNull();
  });

  it('maps recognition errors to what the room says, and ignores silence', () => {
    expect(listenFailure('not-allowed')).toBe('not_allowed');
    expect(listenFailure('service-not-allowed')).toBe('not_allowed');
    expect(listenFailure('audio-capture')).toBe('no_microphone');
    expect(listenFailure('network')).toBe('network');
    expect(listenFailure('no-speech')).toBeNull();
    expect(listenFailure('aborted')).toBeNull();
    expect(listenFailure('something-new')).toBe('failed');
  });

  it('a turn said over another drops the first one\'s callback, and the first one\'s late end does not cut the second short', async () => {
    const spoken: Array<{ text: string; onend: (() => void) | null }> = [];
    const g = globalThis as Record<string, unknown>;
    g.SpeechSynthesisUtterance = class { onend = null; onerror = null; lang = ''; rate = 1; voice = null; constructor(readonly text: string) {} };
    // cancel() ends what was queued, later (as browsers do).
    g.speechSynthesis = { speak: (u: never) => spoken.push(u), cancel: () => spoken.forEach((u) => queueMicrotask(() => u.onend?.())), getVoices: () => [] };
    try {
      const speaker = createSpeaker('en', { rate: 1, muted: false });
      const done: string[] = [];
      speaker.say('first question', () => done.push('first'));
      speaker.say('second question', () => done.push('second'));
      await Promise.resolve();
      await Promise.resolve();
      expect(done).toEqual([]); // the first is dropped; the second is still being said
      expect(speaker.speaking).toBe(true);
      spoken[1]!.onend?.();
      expect(done).toEqual(['second']);
    } finally {
      delete g.SpeechSynthesisUtterance;
      delete g.speechSynthesis;
    }
  });

  it('gives up on a voice that never ends after about its speaking time', () => {
    expect(speakingMs('one two three four five six seven eight nine ten eleven twelve thirteen', 1)).toBe(7500);
    expect(speakingMs('one two three four five six seven eight nine ten eleven twelve thirteen', 2)).toBeLessThan(7500);
  });
});

// Was missing (a review of recording storage): the server now refuses pieces past the recording's 64 MiB
// (interview_limit_reached). The recorder tried each refused piece four times over 15 s and said "failed", piece after
// piece; now it stops recording there and says the recording is full, and the interview goes on.
describe('the recorder when the recording is full', () => {
  class FakeRecorder {
    static last: FakeRecorder;
    static isTypeSupported = () => true;
    state: 'inactive' | 'recording' | 'paused' = 'inactive';
    ondataavailable: ((event: { data: Blob }) => void) | null = null;
    onstop: (() => void) | null = null;
    onerror: (() => void) | null = null;
    constructor() { FakeRecorder.last = this; }
    start() { this.state = 'recording'; }
    stop() { this.state = 'inactive'; this.onstop?.(); }
    piece(bytes: number) { this.ondataavailable?.({ data: new Blob([new Uint8Array(bytes)]) }); }
  }
  afterEach(() => vi.unstubAllGlobals());

  it('stops recording at the refusal instead of retrying, and uploads nothing more', async () => {
    const stopped: string[] = [];
    vi.stubGlobal('MediaRecorder', FakeRecorder);
    vi.stubGlobal('navigator', { mediaDevices: { getUserMedia: async () => ({ getTracks: () => [{ stop: () => stopped.push('track') }] }) } });
    const puts: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => { puts.push(url); return new Response(null, { status: 200 }); });
    // Not imported by name: the room's sources are typechecked with the DOM types (src/room/tsconfig.json), not here.
    const recorderModule = '../../src/room/recorder.js';
    const { startRecording } = (await import(recorderModule)) as { startRecording(options: {
      interviewId: string; uploadUrl(index: number): Promise<{ url: string; max_bytes: number }>; onState(state: string): void;
    }): Promise<unknown> };
    const states: string[] = [];
    const asked: number[] = [];
    await startRecording({
      interviewId: 'int_full',
      uploadUrl: async (index) => {
        asked.push(index);
        if (index === 0) return { url: 'http://prep.test/files/0', max_bytes: 5 };
        throw new Error('interview_limit_reached');
      },
      onState: (state) => states.push(state),
    });
    const recorder = FakeRecorder.last;
    recorder.piece(3);
    recorder.piece(3);
    await vi.waitFor(() => expect(states).toContain('full'));
    recorder.piece(3); // after the stop: never uploaded
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual([0, 1]);
    expect(puts).toEqual(['http://prep.test/files/0']);
    expect(states).toEqual(['recording', 'full']);
    expect(recorder.state).toBe('inactive');
    expect(stopped).toEqual(['track']);
  });
});
