import type { Kysely, Transaction } from 'kysely';
import type { Database, InterviewTurnsTable } from '../../db/schema.js';
import type { Limiter } from '../../ai/limiter.js';
import type { TextModel } from '../../ai/model.js';
import type { Clock } from '../../platform/clock.js';
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

export type ConversationRefusal = 'not_joined' | 'paused' | 'ended' | 'too_long' | 'empty' | 'too_many_turns';

export class ConversationError extends Error {
  constructor(readonly code: ConversationRefusal, message: string) {
    super(message);
  }
}

export interface ConversationListener {
  /** Turns or the interview's state changed: connections send what is new from the database. */
  changed(interviewId: string): void;
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
  const setups = new Map<string, InterviewSetup>();

  /** Runs `work` after everything queued for this interview in this process. */
  function serial<T>(interviewId: string, work: () => Promise<T>): Promise<T> {
    const previous = chains.get(interviewId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    chains.set(interviewId, next);
    void next.catch(() => undefined).finally(() => { if (chains.get(interviewId) === next) chains.delete(interviewId); });
    return next;
  }

  /** What the interviewer knows (fixed once the interview runs, so kept per process). */
  async function setupOf(tx: Kysely<Database>, row: InterviewRow): Promise<InterviewSetup> {
    const cached = setups.get(row.id);
    if (cached) return cached;
    const setup = await loadSetup(tx, repo, row);
    if (setups.size > 2000) setups.delete(setups.keys().next().value!);
    setups.set(row.id, setup);
    return setup;
  }

  function refuseUnlessRunning(row: InterviewRow): void {
    if (row.status === 'scheduled') throw new ConversationError('not_joined', 'Join the interview first.');
    if (row.status === 'paused') throw new ConversationError('paused', 'The interview is paused; join again to resume it.');
    if (row.status !== 'in_progress' || remainingMs(row, clock.now()) === 0) throw new ConversationError('ended', 'The interview has ended.');
  }

  /** Stores the interviewer's move (and ends the interview when it closes). The caller holds the interview's lock. */
  async function store(tx: Transaction<Database>, row: InterviewRow, move: InterviewerMove, text: string): Promise<void> {
    const now = clock.now();
    await repo.appendTurn(tx, {
      interview_id: row.id, speaker: 'interviewer', kind: 'text', text, question_position: move.questionPosition, client_id: null,
      data: move.problem ? JSON.stringify({ problem: move.problem }) : null, at_ms: elapsedMs(row, now), created_at: now,
    });
    await repo.update(tx, row.id, { interviewer: JSON.stringify(move.state), updated_at: now });
    if (move.end) await ending.end(tx, { ...row, interviewer: JSON.stringify(move.state) }, 'interviewer');
  }

  /**
   * Says the interviewer's next move: the built-in words at once, or the model's, streamed and stored when whole,
   * provided nothing was stored meanwhile (`expectSeq`); a model failure falls back to the built-in words.
   */
  async function say(row: InterviewRow, setup: InterviewSetup, turns: Turn[], move: InterviewerMove): Promise<void> {
    let text = move.text;
    if (model) {
      const ref = `pending-${row.next_seq}`;
      let streamed = false;
      try {
        text = await deps.limit(() => phraseWithModel(model, setup, turns, move, (piece) => {
          streamed = true;
          listener.delta(row.id, ref, piece);
        }));
      } catch (error) {
        deps.log?.warn({ err: error, interview_id: row.id }, 'the model failed mid-interview; the built-in interviewer takes the turn');
        if (streamed) listener.discard(row.id, ref);
        text = move.text;
      }
    }
    await db.transaction().execute(async (tx) => {
      const current = (await repo.locked(tx, row.id))!;
      if (current.next_seq !== row.next_seq || current.status !== 'in_progress') return; // someone else spoke, or it ended
      await store(tx, current, move, text);
    });
    listener.changed(row.id);
  }

  /** The interviewer's move now, from the stored state and transcript: what is owed to the candidate, if anything. */
  async function pendingMove(row: InterviewRow, setup: InterviewSetup, turns: Turn[]): Promise<InterviewerMove | null> {
    const state = JSON.parse(row.interviewer) as InterviewerState;
    const elapsed = elapsedMs(row, clock.now());
    const last = turns[turns.length - 1];
    if (!turns.some((t) => t.speaker === 'interviewer')) return openInterview(setup, elapsed);
    if (state.phase === 'done') return null;
    if (last.speaker === 'candidate' && last.kind === 'text') return respond(setup, state, turns, last.text, elapsed);
    if (last.speaker === 'candidate' && last.kind === 'code' && last.code) return onCode(setup, state, turns, last.code, elapsed);
    if (remainingMs(row, clock.now()) <= WRAP_UP_MS && state.phase !== 'closing') return closeForTime(setup, state, elapsed);
    return null;
  }

  /** Whatever the interviewer owes now (an opening, a reply cut off by a crash, a wrap-up), said once. */
  async function catchUp(interviewId: string): Promise<void> {
    const row = await repo.byId(db, interviewId);
    if (!row || row.status !== 'in_progress') return;
    const setup = await setupOf(db, row);
    const turns = (await repo.turns(db, interviewId)).map(turnOf);
    const move = await pendingMove(row, setup, turns);
    if (move) await say(row, setup, turns, move);
  }

  return {
    catchUp: (interviewId: string) => serial(interviewId, () => catchUp(interviewId)),

    /**
     * The candidate's turn, stored once however often it is sent (`clientId`), then the interviewer's reply. Without a
     * model both are stored in one transaction (one commit per exchange).
     */
    answer(interviewId: string, clientId: string, text: string): Promise<void> {
      // U+0000 cannot be stored in PostgreSQL text (the HTTP routes refuse it; a channel message is kept, marked).
      const said = text.trim().replaceAll('\u0000', '\uFFFD');
      if (said.length === 0) return Promise.reject(new ConversationError('empty', 'The turn is empty.'));
      if (said.length > ANSWER_MAX_CHARS) return Promise.reject(new ConversationError('too_long', `A turn is at most ${ANSWER_MAX_CHARS} characters; send it in parts.`));
      return serial(interviewId, async () => {
        const replied = await db.transaction().execute(async (tx) => {
          const row = (await repo.locked(tx, interviewId))!;
          if (await repo.turnByClientId(tx, interviewId, clientId)) return true; // a resend: already stored (and answered)
          refuseUnlessRunning(row);
          if (row.next_seq > CANDIDATE_TURNS_MAX * 3) throw new ConversationError('too_many_turns', 'This interview has reached its length in turns.');
          const state = JSON.parse(row.interviewer) as InterviewerState;
          const now = clock.now();
          const turn = await repo.appendTurn(tx, {
            interview_id: interviewId, speaker: 'candidate', kind: 'text', text: said,
            question_position: state.phase === 'question' ? state.index : null, client_id: clientId, data: null, at_ms: elapsedMs(row, now), created_at: now,
          });
          if (model) return false;
          const setup = await setupOf(tx, row);
          const turns = (await repo.turns(tx, interviewId)).map(turnOf);
          const move = await pendingMove({ ...row, next_seq: turn.seq + 1 }, setup, turns);
          if (move) await store(tx, { ...row, next_seq: turn.seq + 1 }, move, move.text);
          return true;
        });
        listener.changed(interviewId);
        if (!replied) await catchUp(interviewId);
      });
    },

    /** A code snapshot or a pause changed things: the interviewer reacts if it should. */
    nudge: (interviewId: string) => serial(interviewId, () => catchUp(interviewId)),
    forget: (interviewId: string) => setups.delete(interviewId),
  };
}

export type Conversation = ReturnType<typeof createConversation>;
