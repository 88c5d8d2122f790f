import { sql, type Kysely } from 'kysely';
import { lockOrganization } from '../../db/locks.js';
import type { Db } from '../../db/database.js';
import type {
  Database, DeliveryStatus, EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable,
} from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export function createWebhookRepo(database: Db) {
  const db = database.kysely;
  const endpointsPage = keysetPager(database, (organizationId: string, livemode: 0 | 1) =>
    db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode)
      .where('deleted_at', 'is', null));
  const attemptsPage = keysetPager(database, (endpointId: string) =>
    db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId));

  return {
    endpointsPage: (tenant: Tenant, page: PageRequest) => endpointsPage(page, tenant.organizationId, livemodeFlag(tenant)),
    insertEndpoint: (tx: Kysely<Database>, row: WebhookEndpointsTable) => tx.insertInto('webhook_endpoints').values(row).execute(),
    getEndpoint: (tx: Kysely<Database>, tenant: Tenant, id: string) => tx.selectFrom('webhook_endpoints').selectAll()
      .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
      .where('deleted_at', 'is', null).executeTakeFirst(),
    endpointById: (tx: Kysely<Database>, id: string) => tx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst(),
    /** Locks the endpoint row until the transaction ends (a no-op update), so a concurrent PATCH waits or is seen. */
    lockEndpoint: (tx: Kysely<Database>, id: string) => tx.updateTable('webhook_endpoints').set({ disabled: sql`disabled` }).where('id', '=', id).execute(),
    updateEndpoint: (tx: Kysely<Database>, id: string, changes: Partial<WebhookEndpointsTable>) =>
      tx.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute(),
    /** Endpoints that take new events of this environment (disabled ones are parked). */
    /** Replaces the secret only if it is still `current`; false when another rotation got there first. */
    async replaceSecret(tx: Kysely<Database>, id: string, current: string, changes: Pick<WebhookEndpointsTable, 'secret' | 'retired_secrets' | 'updated_at'>) {
      const r = await tx.updateTable('webhook_endpoints').set(changes).where('id', '=', id).where('secret', '=', current).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /**
     * Pending deliveries of an endpoint, with their event's type and the attempts made since the delivery was queued
     * or last redelivered (a redelivery stamps `updated_at`; the attempts of earlier budgets are older).
     */
    pendingDeliveriesOf: (tx: Kysely<Database>, endpointId: string) => tx.selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select((eb) => ['webhook_deliveries.id', 'webhook_deliveries.event_id', 'events.type as event_type',
        eb.selectFrom('webhook_attempts').select((e) => e.fn.countAll<number>().as('n')).whereRef('webhook_attempts.delivery_id', '=', 'webhook_deliveries.id')
          .whereRef('webhook_attempts.created_at', '>=', 'webhook_deliveries.updated_at').as('attempts')])
      .where('webhook_deliveries.endpoint_id', '=', endpointId).where('webhook_deliveries.status', '=', 'pending')
      .execute().then((rows) => rows.map((r) => ({ id: r.id, event_id: r.event_id, event_type: r.event_type, attempts: Number(r.attempts ?? 0) }))),
    lockOrganization,
    /** Endpoints of the environment not deleted (disabled ones too: they are re-enabled at will). */
    countEndpoints: async (tx: Kysely<Database>, tenant: Tenant) => Number((await tx.selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', tenant.organizationId)
      .where('livemode', '=', livemodeFlag(tenant)).where('deleted_at', 'is', null).executeTakeFirstOrThrow()).n),
    liveEndpoints: (tx: Kysely<Database>, tenant: Tenant) => tx.selectFrom('webhook_endpoints').selectAll()
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
      .where('deleted_at', 'is', null).where('disabled', '=', 0).execute(),

    insertEvent: (tx: Kysely<Database>, row: EventsTable) => tx.insertInto('events').values(row).execute(),
    getEvent: (tx: Kysely<Database>, tenant: Tenant, id: string) => tx.selectFrom('events').selectAll()
      .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
    eventById: (tx: Kysely<Database>, id: string) => tx.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst(),
    /** Events newest first; event ids are not UUIDs, so the cursor is an event id compared by creation order. */
    async eventsPage(tenant: Tenant, limit: number, startingAfter: string | null, status?: DeliveryStatus) {
      let q = db.selectFrom('events').selectAll().where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant));
      if (status) q = q.where('status', '=', status);
      if (startingAfter) {
        const cursor = await db.selectFrom('events').select(['created_at', 'id']).where('id', '=', startingAfter)
          .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst();
        if (!cursor) return null;
        q = q.where((eb) => eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]));
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
      const has_more = rows.length > limit;
      const data = has_more ? rows.slice(0, limit) : rows;
      return { data, has_more, next_cursor: has_more ? data[data.length - 1].id : null };
    },
    setEventStatus: (tx: Kysely<Database>, id: string, status: DeliveryStatus) => tx.updateTable('events').set({ status }).where('id', '=', id).execute(),
    /**
     * A redelivery's claim: the event goes from failed to pending, as the first write of its transaction; false when it
     * is not failed (a redelivery asked for at the same moment got there first; PostgreSQL makes this one wait for it).
     */
    claimFailedEvent: async (tx: Kysely<Database>, id: string) => Number((await tx.updateTable('events').set({ status: 'pending' })
      .where('id', '=', id).where('status', '=', 'failed').executeTakeFirst()).numUpdatedRows) === 1,
    /**
     * Locks the event row until the transaction ends, so deliveries of one event settling at once (several
     * endpoints, one worker pass) see each other's outcome. A no-op update: the same SQL on both engines.
     */
    lockEvent: (tx: Kysely<Database>, id: string) => tx.updateTable('events').set({ status: sql`status` }).where('id', '=', id).execute(),
    /** The same for many events and their deliveries at once (settleDeliveries). */
    lockEvents: (tx: Kysely<Database>, ids: string[]) => tx.updateTable('events').set({ status: sql`status` }).where('id', 'in', ids).execute(),
    setEventsStatus: (tx: Kysely<Database>, ids: string[], status: DeliveryStatus) => tx.updateTable('events').set({ status }).where('id', 'in', ids).execute(),
    deliveryStatusesOf: (tx: Kysely<Database>, eventIds: string[]) => tx.selectFrom('webhook_deliveries').select(['event_id', 'status'])
      .where('event_id', 'in', eventIds).execute(),
    setDeliveriesStatus: (tx: Kysely<Database>, ids: string[], status: DeliveryStatus, now: number) =>
      tx.updateTable('webhook_deliveries').set({ status, updated_at: now }).where('id', 'in', ids).execute(),

    insertDelivery: (tx: Kysely<Database>, row: WebhookDeliveriesTable) => tx.insertInto('webhook_deliveries').values(row).execute(),
    /** A delivery and its attempts (they cascade). */
    deleteDelivery: (tx: Kysely<Database>, id: string) => tx.deleteFrom('webhook_deliveries').where('id', '=', id).execute(),
    getDelivery: (tx: Kysely<Database>, id: string) => tx.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst(),
    deliveriesOf: (tx: Kysely<Database>, eventId: string) => tx.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute(),
    setDeliveryStatus: (tx: Kysely<Database>, id: string, status: DeliveryStatus, now: number) =>
      tx.updateTable('webhook_deliveries').set({ status, updated_at: now }).where('id', '=', id).execute(),

    insertAttempt: (tx: Kysely<Database>, row: WebhookAttemptsTable) => tx.insertInto('webhook_attempts').values(row).execute(),
    attemptsPage: (endpointId: string, page: PageRequest) => attemptsPage(page, endpointId),

    /** Retention: up to 1,000 events older than the cutoff go, with their deliveries and attempts. */
    async sweep(before: number) {
      const old = await db.selectFrom('events').select('id').where('created_at', '<', before).limit(1000).execute();
      if (old.length === 0) return 0;
      const ids = old.map((r) => r.id);
      // Attempts through their deliveries (by event, then by delivery: both indexed), not by their own event_id (not).
      await db.deleteFrom('webhook_attempts')
        .where('delivery_id', 'in', db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', ids)).execute();
      await db.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).execute();
      await db.deleteFrom('events').where('id', 'in', ids).execute();
      return ids.length;
    },
  };
}

export type WebhookRepo = ReturnType<typeof createWebhookRepo>;
