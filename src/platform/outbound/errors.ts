import type { AddressClass } from './address.js';

/**
 * Why an outbound request was refused or failed. Callers (webhook delivery) record the reason on the
 * attempt and treat every one of them like a non-2xx answer: retried on the normal schedule.
 */
export type OutboundErrorReason =
  | 'invalid_url' // unparsable, or carries credentials
  | 'scheme_not_allowed' // not https (http only for allowed loopback names in test mode)
  | 'blocked_address' // the host is, or resolves to, a non-public address
  | 'dns_error' // the name does not resolve
  | 'timeout' // connect + response exceeded the time limit
  | 'tls_error' // certificate not trusted or not valid for the host name
  | 'connect_error' // refused, reset, unreachable
  | 'network_error'; // anything else on the wire

export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly reason: OutboundErrorReason,
    message: string,
    readonly details: { address?: string; addressClass?: AddressClass; code?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
