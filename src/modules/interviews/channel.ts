import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { App } from '../../app-types.js';
import type { SessionAuthenticator } from '../../platform/auth.js';
import { toUnixSeconds, type Clock } from '../../platform/clock.js';
import type { Tenant } from '../../platform/context.js';
import { ApiError } from '../../platform/errors.js';
import { ConversationError, turnOf, WRAP_UP_MS, type Conversation, type ConversationListener } from './conversation.js';
import type { InterviewerState } from './interviewer/types.js';
import type { InterviewRepo, InterviewRow } from './repo.js';
import type { InterviewService } from './service.js';
import { CLOSED, remainingMs, STATUS_CODES } from './states.js';

/** The conversation channel's path: outside /v1 (not an API operation), like the room's pages. */
export const CHANNEL_PATH = '/interview-channel';
export const CHANNEL_PROTOCOL = 'prep.interview.v1';
export const MESSAGE_MAX_BYTES = 64 * 1024;
const AUTH_TIMEOUT_MS = 10_000;
const TICK_MS = 1000;
const CLOCK_EVERY_MS = 5000;
/** The token is checked again this often (revoked or expired: the channel closes unless the room sent a fresh one). */
const RECHECK_MS = 30_000;
/** Messages a client may send per second; past it the channel closes (4429). */
const MESSAGES_PER_SECOND = 20;
/** Messages kept while the auth is checked (a client that sends more before `ready` is misbehaving). */
const EARLY_MAX = 100;
/** Answers of one connection waiting for the interviewer at once; more are refused (`rate_limited`, not fatal). */
const ANSWERS_WAITING_MAX = 10;
/** How long a closed connection's client has to finish the close handshake before the socket is cut. */
const CLOSE_GRACE_MS = 2000;
/** The interview's row is read at least this often by each connection (other processes' changes); local ones are told at once. */
const READ_EVERY_MS = 5000;
/** A second connection waits this long for the first to answer a ping before taking its place. */
const TAKEOVER_PING_MS = 2000;
/**
 * A reply owed this long (the candidate's turn the last stored) is said by the connection that shows it: no reply can
 * still be under way (a model slot is waited for 5 s, a model's turn lasts 20 s at most), so the turn was abandoned
 * where it was asked for (its channel closed, or its process died) after this connection's own catch-up had run.
 */
const OWED_TOO_LONG_MS = 60_000;

/** Close codes (documented in docs/interviews.md). */
export const CLOSE = {
  ended: 1000, internal: 1011, badMessage: 4400, unauthenticated: 4401, forbidden: 4403, authTimeout: 4408, alreadyConnected: 4409, tooMany: 4429,
} as const;

interface Connection {
  interviewId: string;
  socket: WebSocket;
  /** The network connection under the WebSocket (the upgraded request's socket), corked to send several messages in one write. */
  wire: { cork(): void; uncork(): void } | null;
  lastSent: number;
  /** The last turn sent (its speaker and when it was stored), once any has been. */
  lastTurn: { seq: number; speaker: 'interviewer' | 'candidate'; createdAt: number } | null;
  flushing: Promise<void> | null;
  dirty: boolean;
  /** The interview changed in this process (a pause, a join, the end): look at its state now. */
  recheck(): void;
  /** Aborted when the channel closes: the model calls made for it (an interviewer's turn being worded) are abandoned. */
  signal: AbortSignal;
}

type Outgoing = Record<string, unknown> & { type: string };

function send(socket: WebSocket, message: Outgoing): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

/** Messages that go out together (a candidate's turn and the reply to it) in one write: one system call and packet, not one each. */
function sendAll(c: Connection, messages: Outgoing[]): void {
  if (messages.length > 1) c.wire?.cork();
  try {
    for (const message of messages) send(c.socket, message);
  } finally {
    if (messages.length > 1) c.wire?.uncork();
  }
}

/** Stored turns, in order, to a connection that has every turn before them. */
function sendTurns(c: Connection, rows: Parameters<typeof turnMessage>[0][]): void {
  sendAll(c, rows.map(turnMessage));
  const last = rows.at(-1);
  if (!last) return;
  c.lastSent = last.seq;
  c.lastTurn = { seq: last.seq, speaker: last.speaker, createdAt: last.created_at };
}

/**
 * A ping's payload: only the pong that echoes it answers that ping (a client's own pong, sent unasked, proves nothing:
 * a client that stopped reading can still send one, but it has to read the ping to echo it).
 */
const pingPayload = () => randomBytes(8);

/** Answers a ping within `ms`: the connection is alive. */
function alive(socket: WebSocket, ms: number): Promise<boolean> {
  if (socket.readyState !== socket.OPEN) return Promise.resolve(false);
  return new Promise((resolve) => {
    const payload = pingPayload();
    const timer = setTimeout(() => { socket.off('pong', onPong); resolve(false); }, ms);
    const onPong = (data: Buffer) => {
      if (!data.equals(payload)) return;
      clearTimeout(timer);
      socket.off('pong', onPong);
      resolve(true);
    };
    socket.on('pong', onPong);
    socket.ping(payload);
  });
}

/**
 * The live connections of this process, one per interview. The transcript in the database is what is sent: a
 * connection sends every stored turn after the last it sent, so nothing is lost or doubled across reconnects, and
 * a turn stored by another process reaches the candidate on the next tick.
 */
export function createChannelHub(deps: { repo: InterviewRepo }) {
  const connections = new Map<string, Connection>();

  async function flushOnce(c: Connection): Promise<void> {
    sendTurns(c, await deps.repo.turnsNow(c.interviewId, c.lastSent));
  }

  function flush(c: Connection): Promise<void> {
    if (c.flushing) {
      c.dirty = true;
      return c.flushing;
    }
    c.flushing = (async () => {
      try {
        do {
          c.dirty = false;
          await flushOnce(c);
        } while (c.dirty);
      } finally {
        c.flushing = null;
      }
    })();
    return c.flushing;
  }

  const listener: ConversationListener = {
    changed: (id) => {
      const c = connections.get(id);
      if (!c) return;
      void flush(c).catch(() => undefined);
      c.recheck();
    },
    stored: (id, rows) => {
      const c = connections.get(id);
      if (!c) return;
      // The common case: the connection has everything before these, so they go out without a read.
      if (!c.flushing && rows.length > 0 && rows[0].seq === c.lastSent + 1) {
        sendTurns(c, rows);
      } else void flush(c).catch(() => undefined);
    },
    delta: (id, ref, text) => {
      const c = connections.get(id);
      if (c) send(c.socket, { type: 'turn.delta', ref, text });
    },
    discard: (id, ref) => {
      const c = connections.get(id);
      if (c) send(c.socket, { type: 'turn.discard', ref });
    },
  };

  return {
    connections, listener, flush, size: () => connections.size,
    /** The signal of the interview's live connection in this process, if it has one (aborted when that one closes). */
    signalOf: (interviewId: string): AbortSignal | undefined => connections.get(interviewId)?.signal,
  };
}

export type ChannelHub = ReturnType<typeof createChannelHub>;

function turnMessage(row: Awaited<ReturnType<InterviewRepo['turns']>>[number]): Outgoing {
  const turn = turnOf(row);
  const data = row.data ? JSON.parse(row.data) as Record<string, unknown> : null;
  return {
    type: 'turn', seq: turn.seq, speaker: turn.speaker, kind: turn.kind, text: turn.text, question_position: turn.questionPosition,
    at_seconds: Math.floor(turn.atMs / 1000), client_id: row.client_id,
    ...(data?.problem ? { problem: data.problem } : {}),
    ...(turn.code ? { code: { language: turn.code.language, run: turn.code.run } } : {}),
    ...(row.kind === 'board' && data ? { image: { key: data.key } } : {}),
  };
}

function statusMessage(row: InterviewRow, now: number): Outgoing {
  return {
    type: 'status', status: row.status, status_code: STATUS_CODES[row.status], running: row.status === 'in_progress',
    remaining_seconds: Math.ceil(remainingMs(row, now) / 1000),
  };
}

/**
 * The WebSocket route. The first message authenticates (`auth` with the session token: never in the URL, which ends
 * up in logs); the upgrade request's Origin must be the token's, as on every session request.
 */
export function channelRoute(app: App, deps: {
  hub: ChannelHub; repo: InterviewRepo; service: InterviewService; conversation: Conversation; clock: Clock; authenticate: SessionAuthenticator;
  /** A WebSocket ping this often; a connection that has not answered the previous one is cut (dead, or not reading). */
  heartbeatMs: number;
}): void {
  const { hub, repo, service, conversation, clock } = deps;

  app.get(CHANNEL_PATH, { websocket: true, schema: { hide: true }, config: { rateClass: 'standard' } }, (socket: WebSocket, request: FastifyRequest) => {
    let connection: Connection | null = null;
    let authenticating = false;
    /** Set once the answers that arrived during the auth are handled: until then new answers queue behind them. */
    let live = false;
    let token: string | null = null;
    let sessionOf: Tenant | null = null;
    let lastClock = 0;
    let lastRecheck = clock.now();
    let lastStatus: string | null = null;
    let wrapUpAsked = false;
    /** The seq of the candidate's turn whose long-owed reply this connection asked for (OWED_TOO_LONG_MS). */
    let owedAsked: number | null = null;
    let known: InterviewRow | null = null;
    let ticking = false;
    let recheckWanted = false;
    let lastRead = 0;
    let windowStart = Date.now();
    let windowCount = 0;
    /**
     * Set when the server closes the channel or the socket closes: nothing the client sends afterwards is handled (a
     * client that ignores the close frame would otherwise be served until ws's own 30 s timeout), and work still
     * under way (an auth) must not register the connection after it.
     */
    let closed = false;
    let answersWaiting = 0;
    /** Messages that arrive while the auth is being checked (and answers until those are handled), handled in order. */
    const early: Array<Record<string, unknown>> = [];
    let tick: NodeJS.Timeout | null = null;
    /**
     * Aborted once the channel closes (either side): a model call made for it (the interviewer's turn it asked for,
     * being worded) is aborted at once, freeing its model slot, rather than paid for with nobody to read it; the turn
     * stays owed and the next connection's catchUp says it.
     */
    const leaving = new AbortController();
    // A half-open connection (a laptop shut), or a client that stopped reading while the server's messages pile up
    // in its send buffer, does not answer pings: it is cut, rather than kept (and read for) until TCP gives up.
    let pongDue: Buffer | null = null;
    socket.on('pong', (data: Buffer) => {
      if (pongDue?.equals(data)) pongDue = null;
    });
    const heartbeat = setInterval(() => {
      if (pongDue) return socket.terminate();
      pongDue = pingPayload();
      socket.ping(pongDue);
    }, deps.heartbeatMs);
    heartbeat.unref();

    /** Closes the channel from this side: out of the hub at once, the socket cut if the client never answers the close. */
    function closeWith(code: number, reason: string): void {
      closed = true;
      leaving.abort();
      clearTimeout(authTimer);
      if (tick) clearInterval(tick);
      if (connection && hub.connections.get(connection.interviewId) === connection) hub.connections.delete(connection.interviewId);
      socket.close(code, reason);
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    }
    const authTimer = setTimeout(() => closeWith(CLOSE.authTimeout, 'authenticate first'), AUTH_TIMEOUT_MS);

    const fail = (code: number, errorCode: string, message: string) => {
      send(socket, { type: 'error', code: errorCode, message, fatal: true });
      closeWith(code, errorCode);
    };
    /**
     * A server fault while the channel opens (the database failing, say): 1011, so the client reconnects and resends
     * what it has not seen stored. Never a refusal (4401, 4403: the room stops there), never the fault's own words.
     */
    const cannotOpen = (error: unknown) => {
      request.log.error({ err: error }, 'interview channel could not open');
      fail(CLOSE.internal, 'internal_error', 'The interview could not be opened; reconnect.');
    };

    async function authenticate(message: { token?: unknown; interview_id?: unknown; last_seq?: unknown }): Promise<void> {
      if (typeof message.token !== 'string' || typeof message.interview_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(message.interview_id)) {
        return fail(CLOSE.badMessage, 'parameter_invalid', 'auth needs token and interview_id.');
      }
      const lastSeq = message.last_seq === undefined ? 0 : message.last_seq;
      if (typeof lastSeq !== 'number' || !Number.isSafeInteger(lastSeq) || lastSeq < 0) return fail(CLOSE.badMessage, 'parameter_invalid', 'last_seq is a whole number.');
      const interviewId = message.interview_id.toLowerCase();
      let session;
      try {
        session = await deps.authenticate(request, message.token, { subject: 'interview', subjectId: interviewId });
      } catch (error) {
        if (!(error instanceof ApiError)) return cannotOpen(error);
        return fail(error.status === 401 ? CLOSE.unauthenticated : CLOSE.forbidden, error.code, error.message);
      }
      token = message.token;
      sessionOf = session;
      let row: InterviewRow;
      try {
        row = await service.settled(session, interviewId);
      } catch (error) {
        return cannotOpen(error);
      }
      if (closed) return;
      if (row.status === 'scheduled') return fail(CLOSE.forbidden, 'session_not_started', 'Join the interview (POST …/join) before opening the channel.');
      if (CLOSED.has(row.status)) return fail(CLOSE.ended, 'session_already_finalized', 'The interview has ended.');

      const existing = hub.connections.get(interviewId);
      if (existing && existing.socket !== socket) {
        // A reconnect after a network loss may find its old connection not yet noticed dead: a ping tells. Another
        // window may have taken over while this one waited for the answer: then that one is the live connection.
        if (await alive(existing.socket, TAKEOVER_PING_MS) || (hub.connections.get(interviewId) ?? existing) !== existing) {
          return fail(CLOSE.alreadyConnected, 'already_connected', 'The interview is open in another window.');
        }
        existing.socket.terminate();
      }
      if (closed) return;
      clearTimeout(authTimer);
      // A last_seq beyond the transcript would hide the turns still to come: it counts as the latest there is.
      const wire = request.raw.socket as Connection['wire'] | undefined;
      connection = { interviewId, socket, wire: typeof wire?.cork === 'function' ? wire : null, lastSent: Math.min(lastSeq, row.next_seq - 1), lastTurn: null, flushing: null, dirty: false, recheck: () => void onTick(true).catch(() => undefined), signal: leaving.signal };
      known = row;
      lastRead = Date.now();
      hub.connections.set(interviewId, connection);
      send(socket, { ...statusMessage(row, clock.now()), type: 'ready', interview_id: interviewId, protocol: CHANNEL_PROTOCOL, last_seq: row.next_seq - 1 });
      lastStatus = row.status;
      try {
        await hub.flush(connection);
        if (closed) return;
        tick = setInterval(() => void onTick().catch((error) => request.log.warn({ err: error }, 'interview channel tick failed')), TICK_MS);
        await conversation.catchUp(interviewId, leaving.signal);
      } catch (error) {
        // Left open, the answers queued behind the opening would never be handled.
        return cannotOpen(error);
      }
      try {
        while (early.length > 0 && !closed) await handle(early.shift()!).catch(failed);
      } finally {
        live = true;
      }
    }

    /**
     * The clock, the interview's state as another request or process may have changed it, the wrap-up, the token. The
     * row is read when told of a change, every few seconds, and whenever the time left is short; in between, the clock
     * is worked out from the last read.
     */
    async function onTick(force = false): Promise<void> {
      if (ticking) {
        recheckWanted ||= force;
        return;
      }
      ticking = true;
      try {
        await tickOnce(force);
      } finally {
        ticking = false;
        if (recheckWanted) {
          recheckWanted = false;
          void onTick(true).catch(() => undefined);
        }
      }
    }

    async function tickOnce(force: boolean): Promise<void> {
      if (!connection) return;
      const now = clock.now();
      const due = force || !known || Date.now() - lastRead >= READ_EVERY_MS || remainingMs(known, now) <= WRAP_UP_MS + TICK_MS;
      if (due) {
        const read = await repo.byIdNow(connection.interviewId);
        if (!read) return closeWith(CLOSE.ended, 'gone');
        known = await service.ending.settle(repo.db, read);
        lastRead = Date.now();
        // Turns another process stored (a code snapshot posted there, its interviewer's reply) go out now.
        if (known.next_seq - 1 > connection.lastSent) await hub.flush(connection);
      }
      const row = known!;
      if (row.status !== lastStatus) {
        lastStatus = row.status;
        await hub.flush(connection);
        send(socket, statusMessage(row, now));
      }
      if (CLOSED.has(row.status)) {
        await hub.flush(connection);
        send(socket, { type: 'ended', status: row.status, status_code: STATUS_CODES[row.status], reason: row.end_reason });
        return closeWith(CLOSE.ended, 'ended');
      }
      if (now - lastClock >= CLOCK_EVERY_MS) {
        lastClock = now;
        send(socket, { type: 'clock', running: row.status === 'in_progress', remaining_seconds: Math.ceil(remainingMs(row, now) / 1000) });
      }
      const phase = (JSON.parse(row.interviewer) as InterviewerState).phase;
      if (!wrapUpAsked && row.status === 'in_progress' && remainingMs(row, now) <= WRAP_UP_MS && phase !== 'closing' && phase !== 'done') {
        wrapUpAsked = true;
        // Caught: a rejection left unhandled ends the process (every interview on it). Asked again on the next tick.
        void conversation.nudge(connection.interviewId, leaving.signal).catch((error) => {
          wrapUpAsked = false;
          request.log.warn({ err: error }, 'interview channel wrap-up failed');
        });
      }
      // A reply owed for long was abandoned elsewhere: its channel closed (or its process died) after this connection's
      // catch-up had found nothing owed, e.g. the candidate reconnected to this process while the old one still worked
      // through the old channel's queued answers. Nothing else would say it. Asked once per turn; the conversation
      // says only what is still owed.
      const last = connection.lastTurn;
      if (last?.speaker === 'candidate' && last.seq === row.next_seq - 1 && owedAsked !== last.seq && row.status === 'in_progress'
        && now - last.createdAt >= OWED_TOO_LONG_MS) {
        owedAsked = last.seq;
        void conversation.nudge(connection.interviewId, leaving.signal).catch((error) => {
          owedAsked = null;
          request.log.warn({ err: error }, 'interview channel catch-up failed');
        });
      }
      if (now - lastRecheck >= RECHECK_MS) {
        lastRecheck = now;
        try {
          await deps.authenticate(request, token, { subject: 'interview', subjectId: connection.interviewId });
        } catch (error) {
          // Only a token refused closes the channel; a check that could not be made (the database failing for a
          // moment) is made again at the next round.
          if (!(error instanceof ApiError)) return request.log.warn({ err: error }, 'interview channel token check failed');
          fail(CLOSE.unauthenticated, error.code, 'The session token expired or was revoked; reconnect with a fresh one.');
        }
      }
    }

    async function onMessage(raw: Buffer, isBinary: boolean): Promise<void> {
      if (closed || socket.readyState !== socket.OPEN) return;
      const now = Date.now();
      if (now - windowStart >= 1000) {
        windowStart = now;
        windowCount = 0;
      }
      if (++windowCount > MESSAGES_PER_SECOND) return fail(CLOSE.tooMany, 'rate_limited', `At most ${MESSAGES_PER_SECOND} messages a second.`);
      let message: Record<string, unknown>;
      try {
        if (isBinary) throw new Error('binary');
        message = JSON.parse(raw.toString('utf8'));
        if (!message || typeof message !== 'object' || Array.isArray(message) || typeof message.type !== 'string') throw new Error('shape');
      } catch {
        return fail(CLOSE.badMessage, 'invalid_json', 'Messages are JSON objects with a type.');
      }
      // Answers sent right behind auth wait until it is checked, and later answers wait behind them, so the turns
      // are stored in the order they were sent; once the connection is registered anything else is handled at once
      // (a ping must be answered even while the interviewer's first words are still being worded).
      if (!live && (!connection || message.type === 'answer')) {
        if (authenticating) {
          if (message.type === 'auth') return fail(CLOSE.badMessage, 'parameter_invalid', 'auth is sent once.');
          if (early.length >= EARLY_MAX) return fail(CLOSE.tooMany, 'rate_limited', `At most ${EARLY_MAX} messages wait for the auth.`);
          early.push(message);
          return;
        }
        if (message.type !== 'auth') return fail(CLOSE.unauthenticated, 'invalid_session_token', 'The first message must be auth.');
        authenticating = true;
        return authenticate(message);
      }
      return handle(message);
    }

    async function handle(message: Record<string, unknown>): Promise<void> {
      if (!connection || closed) return;
      switch (message.type) {
        case 'auth':
          return fail(CLOSE.badMessage, 'parameter_invalid', 'auth is sent once.');
        case 'answer': {
          const id = message.id;
          if (typeof id !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(id) || typeof message.text !== 'string') {
            return send(socket, { type: 'error', code: 'parameter_invalid', message: 'answer needs id (1–64 printable ASCII characters) and text.' });
          }
          if (answersWaiting >= ANSWERS_WAITING_MAX) {
            return send(socket, { type: 'error', code: 'rate_limited', message: `At most ${ANSWERS_WAITING_MAX} answers wait for the interviewer; send it again once one is stored.`, id });
          }
          answersWaiting++;
          try {
            await conversation.answer(connection.interviewId, id, message.text, leaving.signal);
          } catch (error) {
            // A fault of ours names the answer too: the room gives it back (or resends it), never leaves it hanging.
            if (!(error instanceof ConversationError)) return failed(error, id);
            send(socket, { type: 'error', code: error.code, message: error.message, id });
          } finally {
            answersWaiting--;
          }
          return;
        }
        case 'interim':
          return; // shown by the room as the candidate speaks; never stored
        case 'ack':
          return;
        case 'auth.refresh':
          if (typeof message.token !== 'string') return send(socket, { type: 'error', code: 'parameter_invalid', message: 'auth.refresh needs token.' });
          try {
            await deps.authenticate(request, message.token, { subject: 'interview', subjectId: connection.interviewId });
            token = message.token;
            lastRecheck = clock.now();
          } catch (error) {
            if (!(error instanceof ApiError)) return failed(error);
            send(socket, { type: 'error', code: error.code, message: 'That token is not valid for this interview.' });
          }
          return;
        case 'recording.chunk_url': {
          // A number, not whatever Number() makes of it (null, false and "" would ask for piece 0).
          const index = typeof message.index === 'number' ? message.index : NaN;
          try {
            const upload = await service.recordingChunkUrl(sessionOf!, connection.interviewId, index);
            return send(socket, { type: 'recording.chunk_url', index, url: upload.url, expires_in: upload.expiresIn, max_bytes: upload.maxBytes });
          } catch (error) {
            if (error instanceof ApiError) return send(socket, { type: 'error', code: error.code, message: error.message, index });
            request.log.error({ err: error }, 'interview channel recording URL failed');
            return send(socket, { type: 'error', code: 'internal_error', message: 'Something went wrong on our side; ask again.', index });
          }
        }
        case 'ping':
          return send(socket, { type: 'pong', at: toUnixSeconds(clock.now()) });
        default:
          return send(socket, { type: 'error', code: 'parameter_invalid', message: `Unknown message type '${String(message.type).slice(0, 40)}'.` });
      }
    }

    function failed(error: unknown, id?: string): void {
      request.log.error({ err: error }, 'interview channel message failed');
      send(socket, { type: 'error', code: 'internal_error', message: 'Something went wrong on our side; send it again.', ...(id === undefined ? {} : { id }) });
    }

    socket.on('message', (raw: Buffer, isBinary: boolean) => void onMessage(raw, isBinary).catch(failed));
    socket.on('close', () => {
      closed = true;
      leaving.abort();
      clearInterval(heartbeat);
      clearTimeout(authTimer);
      if (tick) clearInterval(tick);
      if (connection && hub.connections.get(connection.interviewId) === connection) hub.connections.delete(connection.interviewId);
    });
    socket.on('error', () => socket.terminate());
  });
}
