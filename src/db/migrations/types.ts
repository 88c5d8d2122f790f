import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Column types that differ by engine, so each migration is written once for both.
 * ids: uuid on PostgreSQL, text on SQLite; times: bigint epoch ms; flags: integer 0/1; JSON: text.
 */
export function columnTypes(db: Kysely<any>): { id: RawBuilder<unknown>; time: 'bigint'; flag: 'integer' } {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return { id: postgres ? sql`uuid` : sql`text`, time: 'bigint', flag: 'integer' };
}
