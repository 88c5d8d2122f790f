import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { startHarness, type Harness } from './harness.js';
import { ORIGIN, testClient } from './client.js';

/** A message the interview channel sent. */
export type ChannelMessage = Record<string, any> & { type: string };

/** A fake model's interviewer turn: the move the built-in interviewer planned (its prompt's MOVE block), marked as the model's. */
export function planned(request: { user: string }): string {
  const move = /<<<MOVE-\w+\n([\s\S]*)\nMOVE-\w+>>>/.exec(request.user)?.[1] ?? '';
  return `(model) ${move}`;
}

/**
 * A candidate's side of the conversation channel: every message kept in order, and waits on what should arrive.
 * Turns are kept by seq (a resent turn would show as a duplicate seq in `turnSeqs`).
 */
export class ChannelClient {
  readonly messages: ChannelMessage[] = [];
  readonly turnSeqs: number[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as ChannelMessage;
      this.messages.push(message);
      if (message.type === 'turn') this.turnSeqs.push(message.seq);
      this.waiters.splice(0).forEach((w) => w());
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.waiters.splice(0).forEach((w) => w());
    });
  }

  get turns(): ChannelMessage[] {
    return this.messages.filter((m) => m.type === 'turn');
  }

  get lastSeq(): number {
    return this.turnSeqs.length === 0 ? 0 : Math.max(...this.turnSeqs);
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Waits until `test` holds (checked on every message and on close), or fails after `ms`. */
  async until<T>(test: () => T | undefined | null | false, what: string, ms = 10_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = test();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages.slice(-6))}, closed ${JSON.stringify(this.closed)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }

  /** The next message of `type` after the first `after` messages. */
  next(type: string, after = 0, ms?: number): Promise<ChannelMessage> {
    return this.until(() => this.messages.slice(after).find((m) => m.type === type), `a ${type} message`, ms);
  }

  /** The interviewer turn after seq `afterSeq`. */
  interviewerTurn(afterSeq: number, ms?: number): Promise<ChannelMessage> {
    return this.until(() => this.turns.find((t) => t.speaker === 'interviewer' && t.seq > afterSeq), `an interviewer turn after ${afterSeq}`, ms);
  }

  /** Says `text` and waits for the interviewer's reply to it. */
  async answer(text: string, id = `answer-${randomUUID()}`): Promise<ChannelMessage> {
    this.send({ type: 'answer', id, text });
    const mine = await this.until(() => this.turns.find((t) => t.client_id === id), `the stored turn ${id}`);
    return this.interviewerTurn(mine.seq);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}

/**
 * A test file's interviews: a harness (rate limits out of the way, plus `env`), its kit, and an organisation with
 * credits for every interview the file joins.
 */
export async function interviewSuite(env: Record<string, string> = {}) {
  const h = await startHarness({ env: { PREP_RATE_LIMIT: '100000', ...env } });
  const kit = await interviewKit(h);
  return { h, kit, org: await kit.organization() };
}

/** Interviews in the tests: the app listening on a real port (for the WebSocket; a port it already listens on is kept), and the usual steps of a customer and a candidate. */
export async function interviewKit(h: Harness) {
  if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (h.app.server.address() as AddressInfo).port;
  const client = testClient(h);
  const kit = {
    client,
    call: client.call,
    port,
    channelUrl: `ws://127.0.0.1:${port}/interview-channel`,

    /** An organisation with `credits` of every kind and room for any number of interviews at once. */
    async organization(name = 'Interviews', credits = 200) {
      const org = await h.createOrg(name, credits);
      await h.db.kysely.updateTable('organizations').set({ max_concurrent_interviews: 100_000 }).where('id', '=', org.id).execute();
      return org;
    },

    async create(key: string, body: Record<string, unknown> = {}, candidateId?: string): Promise<any> {
      return client.ok('POST', '/v1/interviews', {
        key, body: { candidate_id: candidateId ?? (await client.candidate(key)), round_type: 'behavioral', difficulty: 3, role: 'Backend Engineer', ...body },
      });
    },

    async token(key: string, interviewId: string, origin = ORIGIN): Promise<string> {
      await client.allowOrigin(key, origin);
      return (await client.ok('POST', '/v1/sessions', { key, body: { origin, interview_id: interviewId } })).session_token as string;
    },

    join: (token: string, id: string) => client.ok('POST', `/v1/interviews/${id}/join`, { token }, 200),

    /** Opens the channel (Origin as given, ORIGIN by default) and, unless `auth` is false, authenticates. */
    async connect(token: string, interviewId: string, options: { origin?: string; lastSeq?: number; auth?: boolean } = {}): Promise<ChannelClient> {
      const socket = new WebSocket(kit.channelUrl, { origin: options.origin ?? ORIGIN });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const channel = new ChannelClient(socket);
      if (options.auth !== false) channel.send({ type: 'auth', token, interview_id: interviewId, last_seq: options.lastSeq ?? 0 });
      return channel;
    },

    /** Created, token minted, joined and connected: an interview under way, with the interviewer's opening received. */
    async started(key: string, body: Record<string, unknown> = {}) {
      const interview = await kit.create(key, body);
      const token = await kit.token(key, interview.id);
      const room = await kit.join(token, interview.id);
      const channel = await kit.connect(token, interview.id);
      await channel.next('ready');
      const opening = await channel.interviewerTurn(0);
      return { interview, token, room, channel, opening };
    },
  };
  return kit;
}

export type InterviewKit = Awaited<ReturnType<typeof interviewKit>>;

/** The smallest PNG the whiteboard check takes (signature and a 1×1 header), with `extra` bytes before its padding. */
export const tinyPng = (...extra: Buffer[]) => Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'),
  Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde]), ...extra, Buffer.alloc(32),
]);

/** A PUT of `body` to a signed local-storage URL, through the app. */
export function putSigned(h: Harness, url: string, body: Buffer, type = 'application/octet-stream') {
  const { pathname, search } = new URL(url);
  return h.app.inject({ method: 'PUT', url: pathname + search, payload: body, headers: { 'content-type': type } });
}
