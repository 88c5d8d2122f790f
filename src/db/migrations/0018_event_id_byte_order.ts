import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Event ids (`whevt_` + fixed-width base62 of time and a counter) sort in creation order byte by byte, which is how
 * `GET /v1/events` orders events of one millisecond (`interview.ended` and `.completed` are emitted together). On a
 * PostgreSQL database whose default collation is linguistic (en_US, ICU), `a` sorts before `B`: such events listed out
 * of order. The id columns compare bytes ("C") there; SQLite compares bytes already.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table events alter column id type text collate "C"`.execute(db);
  await sql`alter table webhook_deliveries alter column event_id type text collate "C"`.execute(db);
}
