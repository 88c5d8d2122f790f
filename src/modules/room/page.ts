import { LAUNCH_SCRIPT } from './assets.js';

/**
 * The hosted launch page: an empty shell that loads the room's module, which reads the token from the URL
 * fragment (never sent to a server, so it stays out of logs and Referer headers) and waits for a click.
 */
export const LAUNCH_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>Your assessment</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="prep-launch"><noscript>This assessment needs JavaScript. Please enable it and reload the page.</noscript></div>
<script type="module" src="/room/${LAUNCH_SCRIPT}"></script>
</body>
</html>
`;

/**
 * Only the service's own script and API (the interview channel is a same-origin WebSocket); uploads also go to the
 * object store when it is elsewhere (`uploadOrigins`); styles inline (the editor injects its own); logos from https.
 * The microphone is allowed for this page only (the interview room's voice answers and recording).
 */
export function launchPageHeaders(uploadOrigins: string[] = []): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': [
      "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' https: data: blob:",
      ['connect-src', "'self'", ...uploadOrigins].join(' '), "media-src 'self' blob:", "font-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
      // No HTML is ever written as a string (Markdown becomes elements): any such sink is refused by the browser.
      "require-trusted-types-for 'script'", "trusted-types 'none'",
    ].join('; '),
    'permissions-policy': 'microphone=(self), camera=(), geolocation=()',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

export const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Room not built</title></head>
<body><p>The candidate room has not been built on this server. Run <code>npm run build</code> and restart the service.</p></body></html>`;
