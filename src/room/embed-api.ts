import { sessionGrant } from './embed-session.js';

/** What a customer's page sees of the widget: `PrepEmbed.mount(target, options)` and the handle it returns. */

export interface EmbedOptions {
  /** The organisation's publishable key (svc_pk_live_… or svc_pk_test_…). */
  publishableKey: string;
  /** The session your server minted with POST /v1/sessions: the whole object, or just its session_token. */
  session?: { session_token: string; refresh_after?: number };
  sessionToken?: string;
  /** The service's address; defaults to where this script was loaded from. */
  apiBase?: string;
}

export interface EmbedHandle {
  /** Hands the widget a token your server minted after the old one was lost (prep:error invalid_session_token). */
  setSession(session: { session_token: string; refresh_after?: number } | string): void;
  unmount(): void;
}

/** The element and the grant of a mount call, or the error a page's developer needs to see at once. */
export function checkMount(target: Element | string, options: EmbedOptions) {
  const element = typeof target === 'string' ? document.querySelector(target) : target;
  if (!element) throw new Error(`PrepEmbed.mount: no element matches ${String(target)}`);
  if (!options?.publishableKey) throw new Error('PrepEmbed.mount needs publishableKey and session (or sessionToken)');
  const grant = sessionGrant(options.session ?? options.sessionToken, 'PrepEmbed.mount');
  return { element, grant };
}
