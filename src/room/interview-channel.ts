/**
 * The room's side of the interview channel (docs/interviews.md, "The conversation channel"): authenticate with the
 * session token in the first message, keep every stored turn once by `seq`, resend answers the server has not yet
 * stored (it keeps a resent one once, by its `id`), and reconnect after a network loss from the last turn held.
 */

export interface ChannelTurn {
  seq: number;
  speaker: 'interviewer' | 'candidate';
  kind: 'text' | 'code' | 'board';
  text: string;
  question_position: number | null;
  at_seconds: number;
  client_id: string | null;
  problem?: { slug: string; title: string; statement: string };
  code?: { language: string; run: { status: string } | null };
}

export interface ChannelClock { status: string; running: boolean; remaining_seconds: number }

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'refused';

export interface ChannelEvents {
  turn(turn: ChannelTurn): void;
  delta(ref: string, text: string): void;
  discard(ref: string): void;
  clock(clock: ChannelClock): void;
  ended(status: string, reason: string | null): void;
  /** A message the server refused (not fatal); `answer` is the text of a refused answer, given back to the candidate. */
  refused(code: string, message: string, answer?: string): void;
  connection(state: ConnectionState, detail?: { code: string; message: string }): void;
  /** Answers said but not yet stored (shown as sending); called whenever the list changes. */
  unsent?(answers: ReadonlyArray<{ id: string; text: string }>): void;
}

interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

export interface OutboxStore {
  load(): Array<{ id: string; text: string }>;
  save(answers: ReadonlyArray<{ id: string; text: string }>): void;
}

/** Close codes after which reconnecting cannot help (docs/interviews.md): the room says why instead. */
const FINAL_CLOSES = new Set([1000, 4400, 4401, 4403, 4409]);
const BACKOFF_MS = [250, 1000, 2000, 4000, 8000];
const PING_EVERY_MS = 15_000;
/** No pong in this long after a ping: the connection is dead even if the browser has not noticed. */
const PONG_WITHIN_MS = 10_000;
const ACK_AFTER_MS = 250;
/**
 * Answers out at once (the server keeps at most 10 waiting and refuses more; it also closes past 20 messages a second):
 * the rest wait in the outbox and go out as earlier ones are stored.
 */
const ANSWERS_OUT_MAX = 10;
/**
 * Speech recognition reports what it hears many times a second: the interim text goes at most this often (the latest
 * then), so that talking never trips the server's 20-messages-a-second close.
 */
export const INTERIM_EVERY_MS = 250;
const pageHidden = () => (globalThis as { document?: { visibilityState: string } }).document?.visibilityState === 'hidden';
const OPEN = 1;

export class InterviewChannel {
  private socket: SocketLike | null = null;
  private seen = new Set<number>();
  private lastSeq = 0;
  /** Answers sent but not yet seen stored, in the order said: resent after every reconnect. */
  private outbox: Array<{ id: string; text: string }> = [];
  /** The outbox's answers sent on this connection and not yet seen stored or refused. */
  private out = new Set<string>();
  private pendingUrls = new Map<number, Array<(answer: { url: string; max_bytes: number } | Error) => void>>();
  private attempt = 0;
  private stopped = false;
  private ready = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private lastPong = 0;
  private counter = 0;
  private interimText: string | null = null;
  private interimTimer: ReturnType<typeof setTimeout> | null = null;
  private interimSentAt = -Infinity;

  constructor(private readonly options: {
    url: string; interviewId: string; token: () => string; events: ChannelEvents;
    socket?: SocketFactory; now?: () => number; newId?: () => string;
    /** The page is hidden (its timers are throttled); default: document.visibilityState. */
    hidden?: () => boolean;
    /** Where unsent answers are kept across a reload of the page (the room uses sessionStorage). */
    outboxStore?: OutboxStore;
  }) {}

  get unsent(): number {
    return this.outbox.length;
  }

  start(): void {
    this.stopped = false;
    // Answers a previous page said but never saw stored: resent after `ready` (the server keeps a resent one once).
    const kept = this.options.outboxStore?.load() ?? [];
    if (kept.length && !this.outbox.length) {
      this.outbox = kept.filter((a) => typeof a?.id === 'string' && typeof a?.text === 'string');
      this.outboxChanged();
    }
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.close(1000, 'left');
    }
  }

  /** Says a final answer; returns its id. Kept until the server's stored turn carries the id back. */
  answer(text: string): string {
    const id = this.options.newId?.() ?? `a-${Date.now().toString(36)}-${(this.counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.interimText = null; // the answer says it all; what was heard on the way is stale
    this.outbox.push({ id, text });
    this.outboxChanged();
    this.sendAnswers();
    return id;
  }

  /** What is heard so far of an answer: the latest goes out, at most every INTERIM_EVERY_MS. */
  interim(text: string): void {
    this.interimText = text.slice(0, 8000);
    if (this.interimTimer) return;
    const wait = this.interimSentAt + INTERIM_EVERY_MS - this.now();
    if (wait <= 0) return this.sendInterim();
    this.interimTimer = setTimeout(() => {
      this.interimTimer = null;
      this.sendInterim();
    }, wait);
  }

  private sendInterim(): void {
    if (this.ready && this.interimText !== null) {
      this.send({ type: 'interim', text: this.interimText });
      this.interimSentAt = this.now();
    }
    this.interimText = null;
  }

  /** The session token was refreshed: the server rechecks the channel's token every 30 s. */
  refreshToken(token: string): void {
    if (this.ready) this.send({ type: 'auth.refresh', token });
  }

  /** A signed upload URL for recording piece `index` (live mode). */
  recordingUrl(index: number): Promise<{ url: string; max_bytes: number }> {
    return new Promise((resolve, reject) => {
      const waiters = this.pendingUrls.get(index) ?? [];
      waiters.push((answer) => (answer instanceof Error ? reject(answer) : resolve(answer)));
      this.pendingUrls.set(index, waiters);
      if (this.ready) this.send({ type: 'recording.chunk_url', index });
    });
  }

  /** Connect again now (the "Try again" of a refused second tab). */
  retry(): void {
    this.attempt = 0;
    this.stopped = false;
    if (!this.socket) this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    this.options.events.connection(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let socket: SocketLike;
    try {
      socket = (this.options.socket ?? ((url) => new WebSocket(url) as unknown as SocketLike))(this.options.url);
    } catch {
      return this.scheduleReconnect();
    }
    this.socket = socket;
    this.ready = false;
    this.out.clear();
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: 'auth', token: this.options.token(), interview_id: this.options.interviewId, last_seq: this.lastSeq }));
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let message: Record<string, any>;
      try {
        message = JSON.parse(event.data) as Record<string, any>;
      } catch {
        return;
      }
      this.handle(message);
    };
    socket.onerror = () => {};
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      this.clearTimers();
      if (this.stopped) return;
      if (FINAL_CLOSES.has(event.code)) {
        // After `ended` the channel is stopped already; any other final close (1000 after a fatal error such as
        // session_already_finalized, when the interview ended while this tab was away) says why it will not come back.
        this.stopped = true;
        return this.options.events.connection('refused', { code: this.refusal?.code ?? 'closed', message: this.refusal?.message ?? event.reason });
      }
      this.scheduleReconnect();
    };
  }

  private refusal: { code: string; message: string } | null = null;

  private handle(message: Record<string, any>): void {
    const { events } = this.options;
    switch (message.type) {
      case 'ready': {
        this.ready = true;
        this.attempt = 0;
        this.refusal = null;
        this.lastPong = this.now();
        events.clock({ status: message.status, running: message.running, remaining_seconds: message.remaining_seconds });
        events.connection('open'); // after the clock, so the room knows on open whether the interview is paused
        this.sendAnswers();
        for (const index of this.pendingUrls.keys()) this.send({ type: 'recording.chunk_url', index });
        this.pingTimer = setInterval(() => this.keepAlive(), PING_EVERY_MS);
        return;
      }
      case 'turn': {
        const turn = message as unknown as ChannelTurn & { type: string };
        if (turn.client_id && this.outbox.some((item) => item.id === turn.client_id)) {
          this.outbox = this.outbox.filter((item) => item.id !== turn.client_id);
          this.out.delete(turn.client_id);
          this.outboxChanged();
          this.sendAnswers();
        }
        if (this.seen.has(turn.seq)) return;
        this.seen.add(turn.seq);
        this.lastSeq = Math.max(this.lastSeq, turn.seq);
        this.scheduleAck();
        return events.turn(turn);
      }
      case 'turn.delta':
        return events.delta(String(message.ref), String(message.text ?? ''));
      case 'turn.discard':
        return events.discard(String(message.ref));
      case 'status':
      case 'clock':
        return events.clock({ status: message.status ?? '', running: Boolean(message.running), remaining_seconds: Number(message.remaining_seconds) });
      case 'ended':
        this.stopped = true;
        return events.ended(String(message.status), message.reason ?? null);
      case 'pong':
        this.lastPong = this.now();
        return;
      case 'recording.chunk_url':
        return this.settleUrl(Number(message.index), { url: String(message.url), max_bytes: Number(message.max_bytes) });
      case 'error': {
        const code = String(message.code);
        if (message.fatal) {
          this.refusal = { code, message: String(message.message ?? '') };
          return;
        }
        if (message.index !== undefined && message.index !== null && this.pendingUrls.has(Number(message.index))) {
          return this.settleUrl(Number(message.index), new Error(code)); // that piece's upload gives up or tries again
        }
        if (code === 'recording_not_ready' || (code === 'parameter_invalid' && this.pendingUrls.size > 0 && !message.id)) {
          for (const index of [...this.pendingUrls.keys()]) this.settleUrl(index, new Error(code));
          return;
        }
        const said = message.id ? this.outbox.find((item) => item.id === message.id) : undefined;
        if (said && code === 'busy') return this.send({ type: 'answer', id: said.id, text: said.text });
        if (said) {
          this.outbox = this.outbox.filter((item) => item !== said);
          this.out.delete(said.id);
          this.outboxChanged();
        }
        events.refused(code, String(message.message ?? ''), said?.text);
        return this.sendAnswers();
      }
      default:
    }
  }

  /** The outbox's answers not yet out on this connection, while fewer than ANSWERS_OUT_MAX are. */
  private sendAnswers(): void {
    if (!this.ready) return;
    for (const item of this.outbox) {
      if (this.out.size >= ANSWERS_OUT_MAX) return;
      if (this.out.has(item.id)) continue;
      this.out.add(item.id);
      this.send({ type: 'answer', id: item.id, text: item.text });
    }
  }

  private outboxChanged(): void {
    this.options.outboxStore?.save(this.outbox);
    this.options.events.unsent?.([...this.outbox]);
  }

  private settleUrl(index: number, answer: { url: string; max_bytes: number } | Error): void {
    const waiters = this.pendingUrls.get(index);
    this.pendingUrls.delete(index);
    waiters?.forEach((w) => w(answer));
  }

  /** One ack for a burst of turns (a replay after a reload can be dozens: the server allows 20 messages a second). */
  private scheduleAck(): void {
    if (this.ackTimer) return;
    this.ackTimer = setTimeout(() => {
      this.ackTimer = null;
      this.send({ type: 'ack', seq: this.lastSeq });
    }, ACK_AFTER_MS);
  }

  private keepAlive(): void {
    // A hidden tab's timers may fire once a minute: a late tick there is the browser's throttling, not a dead network.
    if (this.now() - this.lastPong > PING_EVERY_MS + PONG_WITHIN_MS && !(this.options.hidden ?? pageHidden)()) {
      // The network went away without a close: drop this socket and connect again.
      const socket = this.socket;
      if (socket) {
        socket.onclose?.({ code: 1006, reason: 'no pong' });
        socket.onclose = null;
        socket.close();
      }
      return;
    }
    this.send({ type: 'ping' });
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.options.events.connection('reconnecting');
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.ackTimer) clearTimeout(this.ackTimer);
    if (this.interimTimer) clearTimeout(this.interimTimer);
    this.retryTimer = null;
    this.pingTimer = null;
    this.ackTimer = null;
    this.interimTimer = null;
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
