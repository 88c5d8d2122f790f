import { checkMount, type EmbedHandle, type EmbedOptions } from './embed-api.js';
import { sessionGrant } from './embed-session.js';

/**
 * /embed.js: the small classic script a customer's page loads. It defines `window.PrepEmbed` at once, so `mount`
 * can be called as soon as the script has run, and imports the widget's module (and, through it, only the room
 * the session needs) from the same server. The handle it returns works before the module has arrived.
 */

type WidgetModule = { mount(target: Element, options: EmbedOptions, defaultBase: string): EmbedHandle };

declare global {
  interface Window {
    PrepEmbed?: { mount(target: Element | string, options: EmbedOptions): EmbedHandle; version: string };
  }
}

// Where this script was loaded from is where the API and the module are: captured now, while currentScript is set.
const origin = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  try {
    return src ? new URL(src).origin : location.origin;
  } catch {
    return location.origin;
  }
})();

let widget: Promise<WidgetModule> | null = null;
const loadWidget = (): Promise<WidgetModule> => (widget ??= (import(/* @vite-ignore */ `${origin}/room/embed-room.js`) as Promise<WidgetModule>)
  .catch((error: unknown) => {
    widget = null; // a later mount tries again
    throw error;
  }));

/** One room per element: mounting again into the same element replaces the room there (two would fight over one session). */
const mounted = new WeakMap<Element, EmbedHandle>();

function mount(target: Element | string, options: EmbedOptions): EmbedHandle {
  const { element } = checkMount(target, options);
  mounted.get(element)?.unmount();
  let handle: EmbedHandle | null = null;
  let session: Parameters<EmbedHandle['setSession']>[0] | null = null;
  let unmounted = false;
  const failed = (code: string, message: string) =>
    element.dispatchEvent(new CustomEvent('prep:error', { detail: { code, message }, bubbles: true, composed: true }));
  loadWidget().then((m) => {
    if (unmounted) return;
    try {
      handle = m.mount(element, options, origin);
    } catch (error) {
      return failed('embed_failed', (error as Error)?.message ?? String(error));
    }
    if (session !== null) handle.setSession(session);
  }, () => {
    if (!unmounted) failed('network_error', `The assessment could not be loaded from ${origin}. Check the connection and try again.`);
  });
  const outer: EmbedHandle = {
    setSession(next) {
      if (unmounted) return;
      sessionGrant(next, 'setSession'); // refused now, not once the module has arrived
      if (handle) handle.setSession(next);
      else session = next;
    },
    unmount() {
      if (unmounted) return;
      unmounted = true;
      handle?.unmount();
      if (mounted.get(element) === outer) mounted.delete(element);
    },
  };
  mounted.set(element, outer);
  return outer;
}

if (!window.PrepEmbed) {
  window.PrepEmbed = { mount, version: '1' };
  void loadWidget().catch(() => {}); // fetched now, while the page gets its session; a mount reports a failure
}
