// A webhook signature verifier for receivers: copy this file into your service (Node 18+, no dependencies).
//
//   const ok = verifyPrepWebhook({ body: rawBodyString, eventId: req.headers['svc-event-id'],
//     signature: req.headers['svc-signature'], secrets: [process.env.PREP_WEBHOOK_SECRET] });
//
// Verify the exact bytes you received (before any JSON parsing), then deduplicate on the event id.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyInput {
  /** The raw request body, exactly as received. */
  body: string;
  /** The Svc-Event-Id header. */
  eventId: string | undefined;
  /** The Svc-Signature header: t=<unix>,v1=<hex>[,v1=<hex>…]. */
  signature: string | undefined;
  /** Your endpoint secret(s), whole (whsec_…); pass two while you rotate. Empty or missing ones are ignored. */
  secrets: string[];
  /** Oldest acceptable timestamp, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (default the system clock). */
  now?: number;
}

export function verifyPrepWebhook(input: VerifyInput): boolean {
  const { body, eventId, signature } = input;
  // An empty or missing secret (an unset variable) verifies nothing: anyone can sign with the empty key.
  const secrets = input.secrets.filter((s) => typeof s === 'string' && s.length > 0);
  if (!eventId || !signature || secrets.length === 0) return false;
  let timestamp: number | null = null;
  const candidates: Buffer[] = [];
  for (const part of signature.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === 't' && /^\d+$/.test(value ?? '')) timestamp = Number(value);
    if (name === 'v1' && /^[0-9a-f]{64}$/.test(value ?? '')) candidates.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null || candidates.length === 0) return false;
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? 300)) return false;
  const signed = `${eventId}.${timestamp}.${body}`;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(signed).digest();
    // Constant time for each comparison; any matching v1 is enough.
    if (candidates.some((c) => c.length === expected.length && timingSafeEqual(c, expected))) return true;
  }
  return false;
}
