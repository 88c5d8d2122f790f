import { createHmac } from 'node:crypto';

/**
 * `Svc-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 of `{event_id}.{t}.{raw body}`, one v1 per secret
 * that is valid now (two during a rotation). The key is the whole secret string, `whsec_` prefix included.
 */
export function signatureHeader(eventId: string, timestamp: number, body: string, secrets: string[]): string {
  const signed = `${eventId}.${timestamp}.${body}`;
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(signed).digest('hex')}`)].join(',');
}
