/** SSRF-safe outbound HTTP (webhook delivery). See sender.ts for the guarantees. */
export { classifyAddress, type AddressClass, type V4Reason, type V6Reason } from './address.js';
export { OutboundError, type OutboundErrorReason } from './errors.js';
export { aresResolver, checkAddresses, checkUrl, defaultResolver, systemResolver, type GuardPolicy, type Resolver } from './guard.js';
export {
  createOutboundSender, DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS,
  type OutboundRequest, type OutboundResponse, type OutboundSender, type OutboundSenderOptions,
} from './sender.js';
