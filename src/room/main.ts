import { mount, type EmbedHandle, type EmbedOptions } from './embed.js';
import { bootLaunch } from './launch.js';

// Where this script was loaded from is where the API is: captured now, while currentScript is set.
const scriptOrigin = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  try {
    return src ? new URL(src).origin : location.origin;
  } catch {
    return location.origin;
  }
})();

declare global {
  interface Window {
    PrepEmbed?: { mount(target: Element | string, options: EmbedOptions): EmbedHandle; version: string };
  }
}

window.PrepEmbed = { mount: (target, options) => mount(target, options, scriptOrigin), version: '1' };

// Only the service's own launch page boots the hosted room (a customer page may have any element ids).
const launch = document.getElementById('prep-launch');
if (launch && location.origin === scriptOrigin && location.pathname === '/launch') bootLaunch(launch);
