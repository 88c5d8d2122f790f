/**
 * The interview's recording (live mode only): the microphone through MediaRecorder, cut into pieces every few
 * seconds and uploaded as the interview goes, so a closed tab loses at most the last piece. Echo cancellation is
 * off for this track: a page cannot capture speechSynthesis itself, so the interviewer's voice is in the recording
 * as the microphone hears it from the speakers (not through headphones; docs/candidate-room.md says so).
 */

import { putSigned } from './api.js';

export const PIECE_MS = 10_000;
const UPLOAD_TRIES = 4;
/** One piece's PUT at most this long: a stalled connection must not hold End (which waits for the last piece). */
const UPLOAD_TIMEOUT_MS = 30_000;

export type RecordingState = 'off' | 'recording' | 'stopped' | 'full' | 'refused' | 'unsupported' | 'failed';

/** Where the next piece of this interview's recording goes (one past the last stored), kept across reloads of the tab. */
export const pieceCounter = (interviewId: string) => {
  const key = `prep.interview.${interviewId}.recording`;
  return {
    next(): number {
      try {
        const n = Number(localStorage.getItem(key));
        return Number.isSafeInteger(n) && n >= 0 ? n : 0;
      } catch {
        return 0;
      }
    },
    set(n: number): void {
      try {
        localStorage.setItem(key, String(n));
      } catch {
        // private mode: a reload starts the numbering again
      }
    },
  };
};

/** The container the browser records into, preferring Opus in WebM (what processing assembles). */
export function recordingType(): string | undefined {
  if (typeof MediaRecorder === 'undefined') return undefined;
  return ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'].find((t) => MediaRecorder.isTypeSupported(t));
}

export interface Recording {
  /** Stops recording and waits (up to `ms`) for every piece to be uploaded. */
  stop(ms?: number): Promise<void>;
  /** Holds the recording while the candidate is away (the interview is paused), and carries on. */
  pause(): void;
  resume(): void;
}

export async function startRecording(options: {
  interviewId: string;
  uploadUrl(index: number): Promise<{ url: string; max_bytes: number }>;
  onState(state: RecordingState, detail?: string): void;
  pieceMs?: number;
}): Promise<Recording | null> {
  if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
    options.onState('unsupported');
    return null;
  }
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: true } });
  } catch (e) {
    options.onState((e as DOMException)?.name === 'NotAllowedError' ? 'refused' : 'failed', (e as Error)?.message);
    return null;
  }
  const counter = pieceCounter(options.interviewId);
  let index = counter.next();
  let chain: Promise<void> = Promise.resolve();
  const mimeType = recordingType();
  const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);

  // The recording has reached its size cap (the server refuses more pieces): recording ends there, the interview goes on.
  let full = false;
  const endFull = () => {
    full = true;
    if (recorder.state !== 'inactive') recorder.stop();
    stream.getTracks().forEach((t) => t.stop());
    options.onState('full');
  };
  const upload = async (piece: Blob, at: number) => {
    if (full) return;
    for (let attempt = 0; attempt < UPLOAD_TRIES; attempt++) {
      let answer: { url: string; max_bytes: number };
      try {
        answer = await options.uploadUrl(at);
      } catch (e) {
        if ((e as Error)?.message === 'interview_limit_reached') return endFull();
        await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt)); // the network or the channel: try again shortly
        continue;
      }
      try {
        const { url, max_bytes } = answer;
        if (piece.size > max_bytes) return endFull(); // what the recording has left (at most 5 MiB a piece) cannot take it
        const response = await putSigned(url, piece, piece.type || 'application/octet-stream', UPLOAD_TIMEOUT_MS);
        if (response.ok) {
          // Remembered once stored, so a reload goes on from the pieces that exist and leaves no gap behind.
          if (at + 1 > counter.next()) counter.set(at + 1);
          return;
        }
        if (response.status < 500 && response.status !== 429) break;
      } catch {
        // the network or the channel: try again shortly
      }
      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
    }
    options.onState('failed', `Recording piece ${at} could not be uploaded.`);
  };

  recorder.ondataavailable = (event) => {
    if (event.data.size === 0) return;
    const at = index++;
    chain = chain.then(() => upload(event.data, at));
  };
  const stopped = new Promise<void>((resolve) => { recorder.onstop = () => resolve(); });
  recorder.onerror = () => options.onState('failed', 'The browser stopped recording.');
  recorder.start(options.pieceMs ?? PIECE_MS);
  options.onState('recording');

  return {
    async stop(ms = 10_000) {
      if (recorder.state !== 'inactive') recorder.stop();
      stream.getTracks().forEach((t) => t.stop());
      await Promise.race([stopped.then(() => chain), new Promise((r) => setTimeout(r, ms))]);
      options.onState('stopped');
    },
    pause() {
      if (recorder.state === 'recording') recorder.pause();
    },
    resume() {
      if (recorder.state === 'paused') recorder.resume();
    },
  };
}
