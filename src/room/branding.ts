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
