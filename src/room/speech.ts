/**
 * The browser's own speech: the interviewer's turns spoken with speechSynthesis, the candidate's answers heard with
 * SpeechRecognition where the browser has it. Both are optional: typing always works, and nothing here blocks the
 * conversation (a voice that never says it finished is given up on after its expected length).
 */

interface RecognitionResultList {
  length: number;
  [index: number]: { isFinal: boolean; 0: { transcript: string } };
}

interface Recognition {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  processLocally?: boolean;
  onresult: ((event: { resultIndex: number; results: RecognitionResultList }) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
}

interface RecognitionClass {
  new (): Recognition;
  available?(options: { langs: string[]; processLocally: boolean }): Promise<string>;
}

function recognitionClass(): RecognitionClass | null {
  const w = globalThis as unknown as { SpeechRecognition?: RecognitionClass; webkitSpeechRecognition?: RecognitionClass };
  return w.SpeechRecognition ?? w.webkitSpeechRecognition ?? null;
}

/** What the room uses of a SpeechSynthesisVoice, SpeechSynthesisUtterance and speechSynthesis (typed here, so Node tests compile). */
export interface Voice { name: string; lang: string; localService: boolean }
interface Utterance { lang: string; rate: number; voice: Voice | null; onend: (() => void) | null; onerror: (() => void) | null }
interface Synthesis {
  synth: { speak(utterance: Utterance): void; cancel(): void; getVoices(): Voice[] };
  Utterance: new (text: string) => Utterance;
}

function synthesis(): Synthesis | null {
  const w = globalThis as unknown as { speechSynthesis?: Synthesis['synth']; SpeechSynthesisUtterance?: Synthesis['Utterance'] };
  return w.speechSynthesis && w.SpeechSynthesisUtterance ? { synth: w.speechSynthesis, Utterance: w.SpeechSynthesisUtterance } : null;
}

export const canListen = (): boolean => recognitionClass() !== null;
export const canSpeak = (): boolean => synthesis() !== null;

/** Where recognised speech is processed: on this device, or by the browser maker's service (said in the room). */
export async function recognitionPlace(lang: string): Promise<'on_device' | 'vendor_service'> {
  const Class = recognitionClass();
  try {
    if (Class?.available && 'processLocally' in Class.prototype) {
      if ((await Class.available({ langs: [lang], processLocally: true })) === 'available') return 'on_device';
    }
  } catch {
    // an older browser: its recognition is a service
  }
  return 'vendor_service';
}

/** Expected speaking time of `text` at `rate`, with slack: after it, a voice that never ended is given up on. */
export const speakingMs = (text: string, rate: number): number =>
  Math.round(((text.split(/\s+/).filter(Boolean).length / 2.6) * 1000) / Math.max(0.5, rate)) + 2500;

/** A voice for `lang`: one on this device first (no text leaves the machine), then any that speaks the language. */
export function chooseVoice<V extends Voice>(voices: V[], lang: string): V | null {
  const base = lang.toLowerCase().split('-')[0]!;
  const speaks = (v: Voice) => v.lang.toLowerCase().replace('_', '-').split('-')[0] === base;
  const exact = (v: Voice) => v.lang.toLowerCase().replace('_', '-') === lang.toLowerCase();
  return voices.find((v) => v.localService && exact(v)) ?? voices.find((v) => v.localService && speaks(v))
    ?? voices.find(exact) ?? voices.find(speaks) ?? null;
}

export interface Speaker {
  /** Speaks `text`; `done` runs once when it is spoken, cut off, muted or given up on. */
  say(text: string, done: () => void): void;
  /** Stops whatever is being said. */
  hush(): void;
  setRate(rate: number): void;
  setMuted(muted: boolean): void;
  readonly speaking: boolean;
}

export function createSpeaker(lang: string, options: { rate: number; muted: boolean; onCaption?(text: string | null): void }): Speaker {
  let { rate, muted } = options;
  let current: { done: () => void; timer: ReturnType<typeof setTimeout> } | null = null;
  const finish = () => {
    if (!current) return;
    const { done, timer } = current;
    current = null;
    clearTimeout(timer);
    options.onCaption?.(null);
    done();
  };
  const hush = () => {
    synthesis()?.synth.cancel();
    finish();
  };
  return {
    say(text, done) {
      // A new turn replaces the one being said: the old one's `done` (which may start listening) is dropped, not run.
      if (current) {
        clearTimeout(current.timer);
        current = null;
      }
      hush();
      const speech = synthesis();
      if (muted || !speech || !text.trim()) return done();
      const saying = { done, timer: setTimeout(finish, speakingMs(text, rate)) };
      current = saying;
      // The end of this utterance only (cancelling an earlier one reports its end later, over the new one).
      const ended = () => { if (current === saying) finish(); };
      const utterance = new speech.Utterance(text);
      utterance.lang = lang;
      utterance.rate = rate;
      const voice = chooseVoice(speech.synth.getVoices(), lang);
      if (voice) utterance.voice = voice;
      utterance.onend = ended;
      utterance.onerror = ended;
      options.onCaption?.(text);
      speech.synth.speak(utterance);
    },
    hush,
    setRate(value) {
      rate = value;
    },
    setMuted(value) {
      muted = value;
      if (muted) hush();
    },
    get speaking() {
      return current !== null;
    },
  };
}

export type ListenFailure = 'not_allowed' | 'no_microphone' | 'network' | 'unsupported' | 'failed';

/** What a recognition error means for the candidate: the room words each and falls back to typing. */
export function listenFailure(error: string): ListenFailure | null {
  if (error === 'no-speech' || error === 'aborted') return null; // silence or our own stop: not a failure
  if (error === 'not-allowed' || error === 'service-not-allowed') return 'not_allowed';
  if (error === 'audio-capture') return 'no_microphone';
  if (error === 'network') return 'network';
  if (error === 'language-not-supported') return 'unsupported';
  return 'failed';
}

export interface Listener {
  start(): void;
  /** Stops listening; what was heard stays with the caller. */
  stop(): void;
  readonly listening: boolean;
}

/**
 * Continuous recognition with interim results. `heard` gets the whole answer so far (final parts plus the interim
 * tail) on every result; `silence` runs when nothing new was heard for `silenceMs` after some speech (the end of
 * the candidate's turn); `failed` when the browser cannot listen.
 */
export function createListener(lang: string, options: {
  silenceMs: number; onDevice: boolean; heard(text: string, final: boolean): void; silence(): void; failed(reason: ListenFailure): void; stopped(): void;
}): Listener | null {
  const Class = recognitionClass();
  if (!Class) return null;
  let recognition: Recognition | null = null;
  let finals = '';
  let silenceTimer: ReturnType<typeof setTimeout> | null = null;
  let wanted = false;
  const clearSilence = () => {
    if (silenceTimer) clearTimeout(silenceTimer);
    silenceTimer = null;
  };
  const begin = () => {
    const r = new Class();
    r.lang = lang;
    r.continuous = true;
    r.interimResults = true;
    if (options.onDevice && 'processLocally' in r) r.processLocally = true;
    r.onresult = (event) => {
      let interim = '';
      for (let i = event.resultIndex; i < event.results.length; i++) {
        const result = event.results[i]!;
        if (result.isFinal) finals = `${finals} ${result[0].transcript}`.trim();
        else interim += result[0].transcript;
      }
      options.heard(`${finals} ${interim}`.trim(), interim === '');
      clearSilence();
      silenceTimer = setTimeout(() => options.silence(), options.silenceMs);
    };
    r.onerror = (event) => {
      const failure = listenFailure(event.error);
      if (!failure) return;
      wanted = false;
      options.failed(failure);
    };
    // Browsers end recognition on their own after a while: carry on while the candidate is still answering.
    r.onend = () => {
      if (wanted && recognition === r) {
        try {
          r.start();
          return;
        } catch {
          // fall through: stopped
        }
      }
      clearSilence();
      if (recognition === r) recognition = null;
      options.stopped();
    };
    recognition = r;
    r.start();
  };
  return {
    start() {
      if (recognition) return;
      finals = '';
      wanted = true;
      try {
        begin();
      } catch {
        wanted = false;
        options.failed('failed');
      }
    },
    stop() {
      wanted = false;
      clearSilence();
      recognition?.stop();
    },
    get listening() {
      return wanted;
    },
  };
}
