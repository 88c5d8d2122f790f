import type { Kysely } from 'kysely';
import type { BackgroundJobsTable, Database, DeliveryStatus, WebhookEndpointsTable } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import { JobPostponed, type JobHandler } from '../../jobs/worker.js';
import type { Clock } from '../../platform/clock.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import type { Encryption } from '../../platform/encryption.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId, randomToken, sortableToken } from '../../platform/ids.js';
import { OutboundError, type OutboundSender } from '../../platform/outbound/index.js';
import type { DeliveryFairness } from './fairness.js';
import type { WebhookRepo } from './repo.js';
import { signatureHeader } from './signing.js';

/** Attempts per delivery, and the waits between them (the contract's schedule). */
export const DELIVERY_ATTEMPTS = 5;
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 3600, 21_600];
/** After rotate-secret the old secret keeps signing this long. */
export const SECRET_ROTATION_GRACE_MS = 24 * 3_600_000;
/** Rotated-out secrets that may be inside their grace at once (each adds a `v1` to every signature header). */
export const RETIRED_SECRETS_MAX = 5;
/** Endpoints an environment may have: each event is one signed POST per endpoint, written in the emitting transaction. */
export const ENDPOINTS_MAX = 16;
export const EVENT_RETENTION_MS = 30 * 86_400_000;

/** Attempts one delivery gets: `webhook.test` once, every other event five times. */
const attemptBudget = (eventType: string) => (eventType === 'webhook.test' ? 1 : DELIVERY_ATTEMPTS);
const newSecret = () => `whsec_${randomToken(32)}`;
/** Event ids sort in the order the events were emitted (two events of one transaction included). */
const newEventId = () => `whevt_${sortableToken()}`;

interface RetiredSecret {
  /** Encrypted, like the current secret. */
  secret: string;
  expires_at: number;
}

export interface DeliverPayload {
  delivery_id: string;
}

/** Emits an event in the caller's transaction (emitEvent's shape, for the modules that emit). */
export type Emit = (tx: Kysely<Database>, tenant: Tenant, type: string, object: unknown) => Promise<string>;

/** An event's status from its deliveries': failed if any failed, delivered when all were (or there are none), else pending. */
const eventStatusOf = (statuses: DeliveryStatus[]): DeliveryStatus =>
  (statuses.includes('failed') ? 'failed' : statuses.every((s) => s === 'delivered') ? 'delivered' : 'pending');

/** U+0000 (any binary or compressed reply holds one) cannot be stored in PostgreSQL text: kept as U+FFFD. */
const storable = (text: string | null) => text?.replaceAll('\u0000', '\uFFFD') ?? null;

/** An attempt that was made and recorded, and failed (non-2xx, time-out, refused address, …). */
class AttemptFailed extends Error {}

/** How long a delivery that must wait for a slow organisation's deliveries in flight waits (plus up to as much again). */
const WAIT_MS = 5_000;
/** Deliveries settled per statement (bound parameters stay far below either engine's limit). */
const SETTLE_CHUNK = 500;

export function createWebhookService(deps: {
  db: Kysely<Database>; clock: Clock; repo: WebhookRepo; queue: JobQueue; encryption: Encryption; sender: OutboundSender; fairness: DeliveryFairness;
}) {
  const { db, clock, repo, queue, encryption, sender, fairness } = deps;

  async function mustGetEndpoint(tx: Kysely<Database>, tenant: Tenant, id: string) {
    const row = await repo.getEndpoint(tx, tenant, id);
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  /** The URL must be https and resolve only to public addresses (checked again at every delivery). */
  async function assertDeliverable(url: string) {
    try {
      await sender.check(url);
    } catch (error) {
      if (error instanceof OutboundError) {
        throw new ApiError('parameter_invalid', { param: 'url', message: `The url cannot receive webhooks: ${error.message}` });
      }
      throw error;
    }
  }

  /** Rotated-out secrets still inside their grace window (encrypted), oldest first. */
  function retiredSecrets(endpoint: WebhookEndpointsTable): RetiredSecret[] {
    return (JSON.parse(endpoint.retired_secrets) as RetiredSecret[]).filter((r) => r.expires_at > clock.now());
  }

  /** The secrets that sign now: the current one, and every rotated-out one during its 24 hours. */
  function signingSecrets(endpoint: WebhookEndpointsTable): string[] {
    return [endpoint.secret, ...retiredSecrets(endpoint).map((r) => r.secret).reverse()].map((sealed) => encryption.decrypt(sealed));
  }

  /**
   * Queues the attempts of one delivery: `webhook.test` is attempted once, every other event five times; a delivery
   * held while its endpoint was disabled gets the attempts it had left, and its retries go on with the schedule where
   * they left off. One queued job per delivery at most.
   */
  function attemptsJob(organizationId: string, deliveryId: string, eventType: string, attemptsMade = 0) {
    const maxAttempts = attemptBudget(eventType);
    return {
      kind: 'webhook.deliver', payload: { delivery_id: deliveryId } satisfies DeliverPayload,
      options: { maxAttempts, attemptsMade: Math.min(attemptsMade, maxAttempts - 1), uniqueKey: `webhook.deliver:${deliveryId}`, organizationId },
    };
  }
  async function queueAttempts(tx: Kysely<Database>, tenant: Tenant, deliveryId: string, eventType: string) {
    const job = attemptsJob(tenant.organizationId, deliveryId, eventType);
    await queue.enqueue(tx, job.kind, job.payload, job.options);
  }

  /**
   * Deliveries held while the endpoint was disabled go out again (at least once), each with the attempts it had left,
   * queued in a few statements (an endpoint disabled for days can hold thousands).
   */
  async function releaseHeld(tx: Kysely<Database>, tenant: Tenant, endpointId: string) {
    await queue.enqueueMany(tx, (await repo.pendingDeliveriesOf(tx, endpointId)).map((held) => attemptsJob(tenant.organizationId, held.id, held.event_type, held.attempts)));
  }

  async function queueDelivery(tx: Kysely<Database>, tenant: Tenant, eventId: string, eventType: string, endpointId: string) {
    const id = newId();
    const now = clock.now();
    await repo.insertDelivery(tx, { id, event_id: eventId, endpoint_id: endpointId, status: 'pending', created_at: now, updated_at: now });
    await queueAttempts(tx, tenant, id, eventType);
  }

  /**
   * A delivery's final status, and its event's after it: failed if any delivery failed, delivered when all were, else
   * pending. `eventId` null: the event is gone, so only the delivery is settled.
   */
  async function settleDelivery(tx: Kysely<Database>, deliveryId: string, eventId: string | null, status: 'delivered' | 'failed') {
    await repo.setDeliveryStatus(tx, deliveryId, status, clock.now());
    if (eventId === null) return;
    await repo.lockEvent(tx, eventId);
    await repo.setEventStatus(tx, eventId, eventStatusOf((await repo.deliveriesOf(tx, eventId)).map((d) => d.status)));
  }

  /**
   * settleDelivery for many deliveries, a few statements per 500 of them rather than four each (an endpoint deleted
   * with thousands of deliveries held or waiting for a retry): the deliveries, then their events locked (in id order),
   * read and set.
   */
  async function settleDeliveries(tx: Kysely<Database>, deliveries: ReadonlyArray<{ id: string; event_id: string }>, status: 'delivered' | 'failed') {
    for (let i = 0; i < deliveries.length; i += SETTLE_CHUNK) {
      const chunk = deliveries.slice(i, i + SETTLE_CHUNK);
      await repo.setDeliveriesStatus(tx, chunk.map((d) => d.id), status, clock.now());
      const eventIds = [...new Set(chunk.map((d) => d.event_id))].sort();
      await repo.lockEvents(tx, eventIds);
      const statuses = new Map<string, DeliveryStatus[]>(eventIds.map((e) => [e, []]));
      for (const d of await repo.deliveryStatusesOf(tx, eventIds)) statuses.get(d.event_id)!.push(d.status);
      const byStatus = new Map<DeliveryStatus, string[]>();
      for (const [eventId, of] of statuses) {
        const next = eventStatusOf(of);
        const ids = byStatus.get(next);
        if (ids) ids.push(eventId);
        else byStatus.set(next, [eventId]);
      }
      for (const [next, ids] of byStatus) await repo.setEventsStatus(tx, ids, next);
    }
  }

  /**
   * A delivery found held (its endpoint disabled), checked again with the endpoint row locked: still disabled (or
   * deleted), the job gives up its unique key in that transaction, so re-enabling the endpoint, even before the worker
   * has recorded this job, queues the delivery again; null then. Re-enabled meanwhile: the endpoint, to send to now.
   */
  async function holdOrResume(endpointId: string, job: Pick<BackgroundJobsTable, 'id'>): Promise<WebhookEndpointsTable | null> {
    return db.transaction().execute(async (tx) => {
      await repo.lockEndpoint(tx, endpointId);
      const current = await repo.endpointById(tx, endpointId);
      if (current && current.deleted_at === null && current.disabled === 0) return current;
      await queue.releaseKey(tx, job);
      return null;
    });
  }

  function envelope(id: string, type: string, createdAt: number, object: unknown): string {
    return JSON.stringify({ id, type, created_at: Math.floor(createdAt / 1000), data: { object } });
  }

  return {
    signingSecrets,

    async createEndpoint(tenant: Tenant, input: { url: string; description?: string; enabled_events?: string[] }) {
      await assertDeliverable(input.url);
      const now = clock.now();
      const secret = newSecret();
      const row: WebhookEndpointsTable = {
        id: newId(), organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), url: input.url,
        description: input.description ?? null, enabled_events: JSON.stringify([...new Set(input.enabled_events ?? [])]), disabled: 0,
        secret: encryption.encrypt(secret), retired_secrets: '[]', created_at: now, updated_at: now, deleted_at: null,
      };
      await db.transaction().execute(async (tx) => {
        await repo.lockOrganization(tx, tenant.organizationId);
        if (await repo.countEndpoints(tx, tenant) >= ENDPOINTS_MAX) {
          throw new ApiError('webhook_endpoint_limit', { message: `This environment has ${ENDPOINTS_MAX} webhook endpoints, the most it may have; delete one first.` });
        }
        await repo.insertEndpoint(tx, row);
      });
      return { row, secret };
    },

    listEndpoints: repo.endpointsPage,
    getEndpoint: (tenant: Tenant, id: string) => mustGetEndpoint(db, tenant, id),

    /**
     * `enabled_events` replaces the whole filter (empty: every event); `disabled` parks or resumes. Retries already
     * queued when an endpoint is disabled are held (no attempt is made or used) and go out when it is re-enabled.
     */
    async updateEndpoint(tenant: Tenant, id: string, changes: { enabled_events?: string[]; disabled?: boolean; description?: string | null }) {
      return db.transaction().execute(async (tx) => {
        const row = await mustGetEndpoint(tx, tenant, id);
        const next: Partial<WebhookEndpointsTable> = { updated_at: clock.now() };
        if (changes.enabled_events !== undefined) next.enabled_events = JSON.stringify([...new Set(changes.enabled_events)]);
        if (changes.disabled !== undefined) next.disabled = changes.disabled ? 1 : 0;
        if (changes.description !== undefined) next.description = changes.description;
        await repo.updateEndpoint(tx, id, next);
        if (row.disabled === 1 && next.disabled === 0) await releaseHeld(tx, tenant, id);
        return { ...row, ...next } as WebhookEndpointsTable;
      });
    },

    /**
     * Deliveries still pending (held while the endpoint was disabled, or waiting for a retry) can no longer go out:
     * they fail now, so their events settle and can be redelivered to the endpoints left.
     */
    async deleteEndpoint(tenant: Tenant, id: string) {
      await db.transaction().execute(async (tx) => {
        await mustGetEndpoint(tx, tenant, id);
        await repo.updateEndpoint(tx, id, { deleted_at: clock.now(), disabled: 1 });
        await settleDeliveries(tx, await repo.pendingDeliveriesOf(tx, id), 'failed');
      });
    },

    /** A new secret; every rotated-out secret keeps signing for 24 hours from its own rotation. */
    async rotateSecret(tenant: Tenant, id: string) {
      for (;;) {
        const row = await mustGetEndpoint(db, tenant, id);
        const retired = retiredSecrets(row);
        if (retired.length >= RETIRED_SECRETS_MAX) {
          throw new ApiError('secret_rotation_limit', {
            message: `${RETIRED_SECRETS_MAX} rotated secrets are still inside their 24-hour grace; rotate again after the oldest expires.`,
          });
        }
        const secret = newSecret();
        const now = clock.now();
        const changes = {
          secret: encryption.encrypt(secret), updated_at: now,
          retired_secrets: JSON.stringify([...retired, { secret: row.secret, expires_at: now + SECRET_ROTATION_GRACE_MS }]),
        };
        // Only over the secret just read: two rotations at once must not drop one another's retired secret.
        if (await repo.replaceSecret(db, id, row.secret, changes)) return { row: { ...row, ...changes }, secret };
      }
    },

    /**
     * The one way a module announces a state change: call it inside the transaction that makes the change,
     * so the event exists exactly when the change does. Each endpoint that wants the type gets a delivery job.
     */
    async emitEvent(tx: Kysely<Database>, tenant: Tenant, type: string, object: unknown): Promise<string> {
      const id = newEventId();
      const now = clock.now();
      await repo.insertEvent(tx, { id, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), type, payload: envelope(id, type, now, object), status: 'pending', created_at: now });
      let deliveries = 0;
      for (const endpoint of await repo.liveEndpoints(tx, tenant)) {
        const wanted = JSON.parse(endpoint.enabled_events) as string[];
        if (wanted.length > 0 && !wanted.includes(type)) continue;
        await queueDelivery(tx, tenant, id, type, endpoint.id);
        deliveries++;
      }
      if (deliveries === 0) await repo.setEventStatus(tx, id, 'delivered'); // nobody to tell: nothing pending
      return id;
    },

    /** `webhook.test` to one endpoint: ignores its filter, signed like any event, attempted once. */
    async sendTest(tenant: Tenant, endpointId: string) {
      return db.transaction().execute(async (tx) => {
        const endpoint = await mustGetEndpoint(tx, tenant, endpointId);
        const id = newEventId();
        const now = clock.now();
        const object = { object: 'webhook_endpoint', id: endpoint.id, url: endpoint.url };
        await repo.insertEvent(tx, { id, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), type: 'webhook.test', payload: envelope(id, 'webhook.test', now, object), status: 'pending', created_at: now });
        await queueDelivery(tx, tenant, id, 'webhook.test', endpoint.id);
        return (await repo.eventById(tx, id))!;
      });
    },

    listEvents: repo.eventsPage,
    async getEvent(tenant: Tenant, id: string) {
      const row = await repo.getEvent(db, tenant, id);
      if (!row) throw notFound('event', id);
      return row;
    },

    /**
     * A failed event goes out again to the endpoints that failed, with a fresh attempt budget and the same id. A
     * delivery to an endpoint deleted since is dropped instead (its attempts went with the endpoint), so the event
     * settles on the endpoints that remain: delivered once they all have it.
     */
    async redeliver(tenant: Tenant, id: string) {
      return db.transaction().execute(async (tx) => {
        const event = await repo.getEvent(tx, tenant, id);
        if (!event) throw notFound('event', id);
        if (!(await repo.claimFailedEvent(tx, id))) {
          throw new ApiError('event_not_replayable', { message: `Event ${id} is ${event.status === 'failed' ? 'being redelivered' : event.status}; only a failed event can be redelivered.` });
        }
        const remaining: DeliveryStatus[] = [];
        for (const delivery of await repo.deliveriesOf(tx, id)) {
          if (delivery.status !== 'failed') {
            remaining.push(delivery.status);
            continue;
          }
          const endpoint = await repo.endpointById(tx, delivery.endpoint_id);
          if (!endpoint || endpoint.deleted_at !== null) {
            await repo.deleteDelivery(tx, delivery.id);
            continue;
          }
          await repo.setDeliveryStatus(tx, delivery.id, 'pending', clock.now());
          await queueAttempts(tx, tenant, delivery.id, event.type);
          remaining.push('pending');
        }
        const status = eventStatusOf(remaining);
        await repo.setEventStatus(tx, id, status);
        return { ...event, status };
      });
    },

    deliveries: (endpointId: string, page: Parameters<WebhookRepo['attemptsPage']>[1]) => repo.attemptsPage(endpointId, page),

    /**
     * One delivery attempt (the `webhook.deliver` job). The network call happens outside any transaction;
     * a failure throws so the queue retries on the schedule, and the last failure marks the delivery failed.
     */
    async deliver(payload: DeliverPayload, job: Pick<BackgroundJobsTable, 'id' | 'attempts' | 'max_attempts'>) {
      const delivery = await repo.getDelivery(db, payload.delivery_id);
      if (!delivery || delivery.status !== 'pending') return;
      const [event, found] = await Promise.all([repo.eventById(db, delivery.event_id), repo.endpointById(db, delivery.endpoint_id)]);
      if (!event || !found || found.deleted_at !== null) {
        await db.transaction().execute((tx) => settleDelivery(tx, delivery.id, event?.id ?? null, 'failed'));
        return;
      }
      // Held: the delivery stays pending, no attempt is made or used; re-enabling the endpoint queues it again. A test
      // event is asked for this endpoint alone, by the customer (checking a receiver before re-enabling it): it goes out.
      const endpoint = found.disabled === 1 && event.type !== 'webhook.test' ? await holdOrResume(found.id, job) : found;
      if (!endpoint) return;
      if (fairness.mustWait(endpoint.organization_id)) throw new JobPostponed(clock.now() + WAIT_MS * (1 + Math.random()));
      const timestamp = Math.floor(clock.now() / 1000);
      let outcome: { status: number | null; body: string | null; ms: number | null; error: string | null };
      const ended = fairness.begin(endpoint.organization_id);
      try {
        const res = await sender.send({
          url: endpoint.url,
          headers: {
            'content-type': 'application/json', 'user-agent': 'Prep-Webhooks/1.0',
            'svc-event-id': event.id, 'svc-signature': signatureHeader(event.id, timestamp, event.payload, signingSecrets(endpoint)),
          },
          body: event.payload,
        });
        outcome = { status: res.status, body: storable(res.body), ms: Math.round(res.durationMs), error: null };
      } catch (error) {
        outcome = { status: null, body: null, ms: null, error: storable(error instanceof OutboundError ? `${error.reason}: ${error.message}` : String(error)) };
      } finally {
        ended();
      }
      const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
      const last = job.attempts >= job.max_attempts;
      await db.transaction().execute(async (tx) => {
        await repo.insertAttempt(tx, {
          id: newId(), delivery_id: delivery.id, endpoint_id: endpoint.id, event_id: event.id, status_code: outcome.status,
          response_body: outcome.body, response_ms: outcome.ms, error: outcome.error, succeeded: succeeded ? 1 : 0, created_at: clock.now(),
        });
        if (succeeded || last) {
          await settleDelivery(tx, delivery.id, event.id, succeeded ? 'delivered' : 'failed');
          // A redelivery asked for as soon as this commits gets its own job, though this one is still running.
          await queue.releaseKey(tx, job);
        }
      });
      // The last failure throws too, so the job reads failed like its delivery and event.
      if (!succeeded) throw new AttemptFailed(outcome.error ?? `endpoint answered ${outcome.status}`);
    },

    /** A delivery whose worker died on every attempt: failed, so its event settles and can be redelivered. */
    async abandon(payload: DeliverPayload, job: Pick<BackgroundJobsTable, 'id'>) {
      await db.transaction().execute(async (tx) => {
        const delivery = await repo.getDelivery(tx, payload.delivery_id);
        if (!delivery || delivery.status !== 'pending') return;
        await settleDelivery(tx, delivery.id, delivery.event_id, 'failed');
        await queue.releaseKey(tx, job);
      });
    },

    /** Retention, in batches until none is left: the hourly run must keep up with any event rate. */
    async sweep() {
      const before = clock.now() - EVENT_RETENTION_MS;
      let total = 0;
      for (let swept = await repo.sweep(before); swept > 0; swept = await repo.sweep(before)) total += swept;
      return total;
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** The webhook module's background work: one delivery attempt per job, on the contract's retry schedule. */
export function webhookJobs(service: WebhookService): JobHandler[] {
  return [{
    // A slow organisation's deliveries wait their turn (fairness.ts), postponed with no attempt used.
    kind: 'webhook.deliver', retryDelaysSeconds: RETRY_DELAYS_SECONDS,
    async run(payload, job) {
      try {
        await service.deliver(payload as DeliverPayload, job);
      } catch (error) {
        // The last attempt was not recorded (the database failed mid-way): the job fails for good now, so the delivery
        // must too, or it and its event read pending for ever, neither tried again nor redeliverable. A recorded failure
        // has settled the delivery already (and a redelivery may have queued it again since: it is left alone).
        const recorded = error instanceof AttemptFailed || error instanceof JobPostponed;
        if (!recorded && job.attempts >= job.max_attempts) await service.abandon(payload as DeliverPayload, job).catch(() => {});
        throw error;
      }
    },
    abandoned: (payload, job) => service.abandon(payload as DeliverPayload, job),
  }];
}
