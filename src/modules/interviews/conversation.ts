import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database, InterviewTurnsTable } from '../../db/schema.js';
import type { Limiter } from '../../platform/limiter.js';
import type { TextModel } from '../../ai/model.js';
import type { Clock } from '../../platform/clock.js';
import { BoundedMap } from '../../platform/bounded-map.js';
import type { Ending } from './ending.js';
import { closeForTime, onCode, openInterview, respond } from './interviewer/interviewer.js';
import type { CodeSnapshot, InterviewerMove, InterviewerState, InterviewSetup, Turn } from './interviewer/types.js';
import { phraseWithModel } from './model-interviewer.js';
import { loadSetup } from './setup.js';
import type { InterviewRepo, InterviewRow } from './repo.js';
import { elapsedMs, remainingMs } from './states.js';

/** A candidate's turn: at most this many characters (a long spoken answer is a few thousand). */
export const ANSWER_MAX_CHARS = 8000;
/** Candidate turns per interview. */
export const CANDIDATE_TURNS_MAX = 400;
/** With this little time left the interviewer wraps up on its own. */
export const WRAP_UP_MS = 60_000;

export type ConversationRefusal = 'not_joined' | 'paused' | 'ended' | 'too_long' | 'empty' | 'too_many_turns' | 'busy';

export class ConversationError extends Error {
  constructor(readonly code: ConversationRefusal, message: string) {
    super(message);
  }
}

export interface ConversationListener {
  /** Turns or the interview's state changed: connections send what is new from the database. */
  changed(interviewId: string): void;
  /** These turns were just stored (in order, gapless): a connection that has everything before them sends them as they are. */
  stored(interviewId: string, turns: InterviewTurnsTable[]): void;
  /** A piece of the interviewer's turn being streamed (not stored until the turn is whole). */
  delta(interviewId: string, ref: string, text: string): void;
  /** The streamed turn was dropped (the model failed mid-turn); its replacement follows as a stored turn. */
  discard(interviewId: string, ref: string): void;
}

export function turnOf(row: InterviewTurnsTable): Turn {
  const data = row.data ? JSON.parse(row.data) as { language?: string; source?: string; run?: CodeSnapshot['run'] } : null;
  return {
    seq: row.seq, speaker: row.speaker, kind: row.kind, text: row.text, questionPosition: row.question_position, atMs: row.at_ms,
    code: row.kind === 'code' && data ? { seq: row.seq, language: data.language!, source: data.source!, run: data.run ?? null } : null,
  };
}

/**
 * The conversation: the candidate's turns in, the interviewer's turns out, each stored as it is said. The built-in
 * interviewer decides every move (what to ask, when to probe, move on or close); a configured model, when there is
 * one, says it in its own words, streamed, and if it fails the built-in words are used instead: the interview never
 * stops for a model. Work on one interview is serialised in this process; across processes the interviewer's turn
 * is stored only if nothing was said meanwhile.
 */
export function createConversation(deps: {
  db: Kysely<Database>; clock: Clock; repo: InterviewRepo; ending: Ending; model: TextModel | null; limit: Limiter; listener: ConversationListener;
  log?: { warn(obj: object, msg: string): void };
}) {
  const { db, clock, repo, ending, model, listener } = deps;
  const chains = new Map<string, Promise<unknown>>();
  const setups = new BoundedMap<string, InterviewSetup>(SNAPSHOTS_MAX);
  /**
   * The interview as this process last read or wrote it: its row and its turns. A write goes through only if the row
   * is still exactly this (`repo.advance`), so a stale snapshot costs a re-read, never a wrong transcript.
   */
  const snapshots = new BoundedMap<string, Snapshot>(SNAPSHOTS_MAX);

  /** Runs `work` after everything queued for this interview in this process. */
  function serial<T>(interviewId: string, work: () => Promise<T>): Promise<T> {
    const previous = chains.get(interviewId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    chains.set(interviewId, next);
    void next.catch(() => undefined).finally(() => { if (chains.get(interviewId) === next) chains.delete(interviewId); });
    return next;
  }

  async function snapshotOf(interviewId: string, fresh: boolean): Promise<Snapshot | null> {
    const cached = fresh ? undefined : snapshots.get(interviewId);
    if (cached) return cached;
    const [row, turns] = await Promise.all([repo.byIdNow(interviewId), repo.turnsNow(interviewId)]);
    if (!row) return null;
    const snap = { row, turns };
    snapshots.set(interviewId, snap);
    return snap;
  }

  /** What the interviewer knows (fixed once the interview runs, so kept per process). */
  async function setupOf(row: InterviewRow): Promise<InterviewSetup> {
    let setup = setups.get(row.id);
    if (!setup) setups.set(row.id, (setup = await loadSetup(db, repo, row)));
    return setup;
  }

  function refuseUnlessRunning(row: InterviewRow): void {
    if (row.status === 'scheduled') throw new ConversationError('not_joined', 'Join the interview first.');
    if (row.status === 'paused') throw new ConversationError('paused', 'The interview is paused; join again to resume it.');
    if (row.status !== 'in_progress' || remainingMs(row, clock.now()) === 0) throw new ConversationError('ended', 'The interview has ended.');
  }

  function interviewerTurn(row: InterviewRow, seq: number, move: InterviewerMove, text: string, now: number): InterviewTurnsTable {
    return {
      interview_id: row.id, seq, speaker: 'interviewer', kind: 'text', text: text.replaceAll('\u0000', '\uFFFD'), question_position: move.questionPosition, client_id: null,
      data: move.problem ? JSON.stringify({ problem: move.problem }) : null, at_ms: elapsedMs(row, now), created_at: now,
    };
  }

  /**
   * Stores `turns` (numbered from the snapshot's next_seq) and the interviewer's state in one transaction of two
   * statements, only if the interview is as the snapshot saw it; ends the interview when the interviewer closed it.
   * Null: it changed meanwhile (or a resent turn is already stored), and nothing was written. An exchange that does
   * not end the interview is committed with the other writes of its turn of the event loop (group commit).
   */
  async function commit(snap: Snapshot, turns: InterviewTurnsTable[], move: InterviewerMove | null, now: number): Promise<InterviewTurnsTable[] | null> {
    const interviewer = move ? JSON.stringify(move.state) : null;
    try {
      if (!move?.end) {
        if (!(await repo.advanceWithTurns(snap.row, turns, interviewer, now))) throw STALE;
      } else {
        await db.transaction().execute(async (tx) => {
          if (!(await repo.advance(tx, snap.row, turns.length, interviewer, now))) throw STALE;
          await repo.insertTurns(tx, turns);
          await ending.end(tx, { ...snap.row, next_seq: snap.row.next_seq + turns.length, updated_at: now, ...(interviewer ? { interviewer } : {}) }, 'interviewer');
        });
      }
    } catch (error) {
      if (error === STALE || isUniqueViolation(error)) {
        snapshots.delete(snap.row.id);
        return null;
      }
      throw error;
    }
    if (move?.end) snapshots.delete(snap.row.id);
    else {
      snap.row = { ...snap.row, next_seq: snap.row.next_seq + turns.length, updated_at: now, ...(interviewer ? { interviewer } : {}) };
      snap.turns.push(...turns);
    }
    listener.stored(snap.row.id, turns);
    if (move?.end) listener.changed(snap.row.id); // the room closes: the channel says so now
    return turns;
  }

  /** The interviewer's move now, from the state and the transcript: what is owed to the candidate, if anything. */
  function pendingMove(row: InterviewRow, setup: InterviewSetup, turns: Turn[], now: number): InterviewerMove | null {
    const state = JSON.parse(row.interviewer) as InterviewerState;
    const elapsed = elapsedMs(row, now);
    const last = turns[turns.length - 1];
    if (!turns.some((t) => t.speaker === 'interviewer')) return openInterview(setup, elapsed);
    if (state.phase === 'done') return null;
    if (last.speaker === 'candidate' && last.kind === 'text') return respond(setup, state, turns, last.text, elapsed);
    if (last.speaker === 'candidate' && last.kind === 'code' && last.code) return onCode(setup, state, turns, last.code, elapsed);
    if (remainingMs(row, now) <= WRAP_UP_MS && state.phase !== 'closing') return closeForTime(setup, state, elapsed);
    return null;
  }

  /**
   * The model's wording of the move, streamed under `ref`; the built-in words when it fails, or when no model slot
   * frees up within MODEL_SLOT_WAIT_MS (a busy model must not keep a candidate waiting), announcing that what was
   * streamed is void. `streamed` says whether any piece went out.
   *
   * Null when `signal` is aborted (the channel that asked for the turn closed): the model's request is aborted at once,
   * freeing its slot (or the wait for a slot is given up, the slot handed straight on), what was streamed is void,
   * and no words are said: the turn is still owed, and the candidate's next connection has it said (catchUp).
   */
  async function wording(row: InterviewRow, setup: InterviewSetup, turns: Turn[], move: InterviewerMove, ref: string,
    signal?: AbortSignal): Promise<{ text: string; streamed: boolean } | null> {
    if (!model) return { text: move.text, streamed: false };
    if (signal?.aborted) return null;
    let streamed = false;
    let gaveUp = false;
    let timer: NodeJS.Timeout | undefined;
    const slotTimeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('no model slot in time')), MODEL_SLOT_WAIT_MS); });
    let onLeft = () => undefined as void;
    const left = new Promise<never>((_, reject) => { onLeft = () => reject(CHANNEL_LEFT); });
    signal?.addEventListener('abort', onLeft, { once: true });
    try {
      const text = await Promise.race([
        deps.limit(async () => {
          clearTimeout(timer);
          if (gaveUp) return move.text; // the turn was already given to the built-in words (or given up)
          return phraseWithModel(model, setup, turns, move, (piece) => {
            if (gaveUp) return; // a piece read before the abort took effect: void already
            streamed = true;
            listener.delta(row.id, ref, piece);
          }, signal);
        }),
        slotTimeout,
        ...(signal ? [left] : []),
      ]);
      return { text, streamed };
    } catch (error) {
      gaveUp = true;
      clearTimeout(timer);
      if (streamed) listener.discard(row.id, ref);
      if (signal?.aborted) return null;
      deps.log?.warn({ err: error, interview_id: row.id }, 'the model failed or was busy; the built-in interviewer takes the turn');
      return { text: move.text, streamed: false };
    } finally {
      signal?.removeEventListener('abort', onLeft);
    }
  }

  /**
   * Whatever the interviewer owes now (an opening, a reply cut off by a crash, a wrap-up, a reaction to code), said once.
   * `signal`: the channel that asked for it closed; a model's wording under way is abandoned, nothing stored (wording()).
   */
  async function catchUp(interviewId: string, signal?: AbortSignal): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const snap = await snapshotOf(interviewId, true);
      if (!snap || snap.row.status !== 'in_progress') return;
      const setup = await setupOf(snap.row);
      const turns = snap.turns.map(turnOf);
      const move = pendingMove(snap.row, setup, turns, clock.now());
      if (!move) return;
      const ref = `pending-${snap.row.next_seq}-${attempt}`;
      const worded = await wording(snap.row, setup, turns, move, ref, signal);
      if (!worded) return; // the channel left: the turn stays owed
      const { text, streamed } = worded;
      if (await commit(snap, [interviewerTurn(snap.row, snap.row.next_seq, move, text, clock.now())], move, clock.now())) return;
      // The interview changed while the turn was being worded (a pause, a code snapshot, another process): what was
      // streamed is void, and what is owed now is worked out again from a fresh read.
      if (streamed) listener.discard(interviewId, ref);
    }
  }

  return {
    /** `signal`: aborted when the channel that asks closes (the model's wording is then abandoned: wording()). */
    catchUp: (interviewId: string, signal?: AbortSignal) => serial(interviewId, () => catchUp(interviewId, signal)),

    /**
     * The candidate's turn, stored once however often it is sent (`clientId`), then the interviewer's reply. Without a
     * model both are stored together: one transaction of two statements per exchange, from this process's snapshot.
     * With a model, an answer whose channel (`signal`) has closed before its turn in the queue came is not stored: it
     * was never acknowledged, so the room resends it, and the candidate's turns are never left two in a row unanswered.
     */
    answer(interviewId: string, clientId: string, text: string, signal?: AbortSignal): Promise<void> {
      // U+0000 cannot be stored in PostgreSQL text (the HTTP routes refuse it; a channel message is kept, marked).
      const said = text.trim().replaceAll('\u0000', '\uFFFD');
      if (said.length === 0) return Promise.reject(new ConversationError('empty', 'The turn is empty.'));
      if (said.length > ANSWER_MAX_CHARS) return Promise.reject(new ConversationError('too_long', `A turn is at most ${ANSWER_MAX_CHARS} characters; send it in parts.`));
      return serial(interviewId, async () => {
        if (model && signal?.aborted) return;
        for (let attempt = 0; attempt < 3; attempt++) {
          const snap = await snapshotOf(interviewId, attempt > 0);
          if (!snap) throw new ConversationError('ended', 'The interview is gone.');
          if (snap.turns.some((t) => t.client_id === clientId)) { // a resend: already stored (and answered)
            listener.changed(interviewId);
            return;
          }
          try {
            refuseUnlessRunning(snap.row);
          } catch (error) {
            if (attempt === 0) continue; // a kept snapshot may be out of date (a rejoin since): decide on a fresh read
            throw error;
          }
          if (snap.row.next_seq > CANDIDATE_TURNS_MAX * 3) throw new ConversationError('too_many_turns', 'This interview has reached its length in turns.');
          const now = clock.now();
          const state = JSON.parse(snap.row.interviewer) as InterviewerState;
          const seq = snap.row.next_seq;
          const mine: InterviewTurnsTable = {
            interview_id: interviewId, seq, speaker: 'candidate', kind: 'text', text: said, question_position: state.phase === 'question' ? state.index : null,
            client_id: clientId, data: null, at_ms: elapsedMs(snap.row, now), created_at: now,
          };
          const move = model ? null : pendingMove({ ...snap.row, next_seq: seq + 1 }, await setupOf(snap.row), [...snap.turns, mine].map(turnOf), now);
          const reply = move ? [interviewerTurn(snap.row, seq + 1, move, move.text, now)] : [];
          if (!(await commit(snap, [mine, ...reply], move, now))) continue;
          if (model) await catchUp(interviewId, signal);
          return;
        }
        throw new ConversationError('busy', 'The interview changed while your turn was being stored; send it again.');
      });
    },

    /** A code snapshot or a pause changed things: the interviewer reacts if it should. */
    nudge: (interviewId: string, signal?: AbortSignal) => serial(interviewId, () => catchUp(interviewId, signal)),
  };
}

interface Snapshot { row: InterviewRow; turns: InterviewTurnsTable[] }
/** Interviews whose snapshot and setup a process keeps (the ones talking now). */
const SNAPSHOTS_MAX = 500;
/** How long a turn waits for a free model slot before the built-in words are said instead. */
const MODEL_SLOT_WAIT_MS = 5000;
const STALE = new Error('the interview changed');
const CHANNEL_LEFT = new Error('the channel that asked for the turn closed');

export type Conversation = ReturnType<typeof createConversation>;
