import type { ComponentChildren } from 'preact';
import type { Notice } from './messages.js';
import type { Branding } from './types.js';

const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const DEFAULTS = { primary_color: '#4f46e5', accent_color: '#0ea5e9', background_color: '#f8fafc', text_color: '#0f172a' };

/** The customer's colours as CSS variables (anything that is not a plain hex colour falls back to the default). */
export function brandStyle(branding: Branding | null): Record<string, string> {
  const pick = (key: keyof typeof DEFAULTS) => {
    const value = branding?.[key];
    return typeof value === 'string' && COLOR.test(value) ? value : DEFAULTS[key];
  };
  return {
    '--prep-primary': pick('primary_color'), '--prep-accent': pick('accent_color'),
    '--prep-bg': pick('background_color'), '--prep-text': pick('text_color'),
  };
}

export function Brand({ branding }: { branding: Branding | null }) {
  if (!branding) return <span class="prep-brand" />;
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
