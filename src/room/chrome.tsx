import type { ComponentChildren } from 'preact';
import type { Notice } from './messages.js';
import { brandStyle } from './branding.js';
import type { Branding } from './types.js';

export function Brand({ branding }: { branding: Branding | null }) {
  if (!branding) return null;
  return (
    <span class="prep-brand">
      {branding.logo_url && /^https:\/\//.test(branding.logo_url) ? <img class="prep-logo" src={branding.logo_url} alt="" /> : null}
      <span class="prep-company">{branding.company_name}</span>
    </span>
  );
}

/** A full-page message: the terminal states, refused links, errors. */
export function NoticePage({ branding, notice, tone = 'info', children }: {
  branding: Branding | null; notice: Notice; tone?: 'info' | 'success' | 'warning'; children?: ComponentChildren;
}) {
  return (
    <div class="prep-page" style={brandStyle(branding)}>
      <main class="prep-card" role="main" aria-live="polite">
        <Brand branding={branding} />
        <div class={`prep-notice-icon prep-tone-${tone}`} aria-hidden="true">{tone === 'success' ? '✓' : tone === 'warning' ? '!' : 'i'}</div>
        <h1>{notice.title}</h1>
        <p>{notice.body}</p>
        {children}
      </main>
    </div>
  );
}
