import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The question bank's taxonomy gets an owner, as its imported statistics have one: '' for Prep's catalogue and an
 * installation-wide import, else the organisation whose import named the topic. Topic names an organisation's import
 * brought were written to the one shared taxonomy: another organisation's own question files could then name them
 * (and learn from a refusal or an acceptance that they existed), and another's import of the same name took the
 * first organisation's slug and its spelling of the name.
 * A topic no shared question has but organisations' questions have goes to each of those organisations (the
 * catalogue's own topics are written again, owner '', by the next start's load of the bank).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table question_bank_taxonomy add column owner text not null default ''`.execute(db);
    await sql`alter table question_bank_taxonomy drop constraint question_bank_taxonomy_pk`.execute(db);
    await sql`alter table question_bank_taxonomy add constraint question_bank_taxonomy_pk primary key (owner, kind, slug)`.execute(db);
  } else {
    // SQLite cannot change a primary key: the table is made again.
    await db.schema.createTable('question_bank_taxonomy_new')
      .addColumn('owner', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addPrimaryKeyConstraint('question_bank_taxonomy_pk', ['owner', 'kind', 'slug'])
      .execute();
    await sql`insert into question_bank_taxonomy_new (owner, kind, slug, name, description) select '', kind, slug, name, description from question_bank_taxonomy`.execute(db);
    await sql`drop table question_bank_taxonomy`.execute(db);
    await sql`alter table question_bank_taxonomy_new rename to question_bank_taxonomy`.execute(db);
  }
  const sharedUse = sql`exists (select 1 from question_bank_question_topics s join question_bank_questions sq on sq.id = s.question_id
    where s.topic = x.slug and sq.organization_id is null)`;
  await sql`insert into question_bank_taxonomy (owner, kind, slug, name, description)
    select distinct cast(q.organization_id as text), x.kind, x.slug, x.name, x.description from question_bank_taxonomy x
    join question_bank_question_topics t on t.topic = x.slug join question_bank_questions q on q.id = t.question_id
    where x.kind = 'topic' and x.owner = '' and q.organization_id is not null and not ${sharedUse}`.execute(db);
  await sql`delete from question_bank_taxonomy as x where x.kind = 'topic' and x.owner = '' and not ${sharedUse} and exists
    (select 1 from question_bank_taxonomy o where o.kind = 'topic' and o.slug = x.slug and o.owner <> '')`.execute(db);
}
