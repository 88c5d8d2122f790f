/**
 * Table shapes as Kysely sees them. Conventions, the same on both engines:
 * ids are UUIDv7 strings; times are epoch milliseconds (bigint); flags are 0/1 integers;
 * JSON is stored as text. Every tenant table carries organization_id and livemode.
 */
export type Flag = 0 | 1;

export interface OrganizationsTable {
  id: string;
  name: string;
  api_enabled: Flag;
  created_at: number;
}

export interface OrganizationModulesTable {
  organization_id: string;
  module: string;
  enabled: Flag;
  updated_at: number;
}

export interface MembersTable {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  type: 'secret' | 'publishable';
  name: string | null;
  key_hash: string;
  key_hint: string;
  rate_limit: number | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  replaced_by: string | null;
  created_by_key_id: string | null;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  livemode: Flag;
  key: string;
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: number;
  locked_until: number;
}

export interface CreditLedgerTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  kind: string;
  amount: number;
  entry_type: 'grant' | 'reserve' | 'commit' | 'release';
  reservation_id: string | null;
  reference: string | null;
  created_at: number;
}

export interface CreditLocksTable {
  organization_id: string;
  livemode: Flag;
  kind: string;
  version: number;
}

export interface SandboxQuotaTable {
  organization_id: string;
  period: string;
  used: number;
}

export interface BrandingTable {
  organization_id: string;
  livemode: Flag;
  company_name: string | null;
  logo_url: string | null;
  primary_color: string | null;
  accent_color: string | null;
  background_color: string | null;
  text_color: string | null;
  updated_at: number;
}

export interface CandidatesTable {
  id: string;
  organization_id: string;
  livemode: Flag;
  email: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface RoundTypesTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  description: string;
  duration_minutes: number;
  created_at: number;
}

export interface CompaniesTable {
  id: string;
  organization_id: string | null;
  slug: string;
  name: string;
  industry: string;
  size: string;
  headquarters: string | null;
  created_at: number;
}

export interface JobsTable {
  id: string;
  organization_id: string | null;
  slug: string;
  title: string;
  company_id: string | null;
  level: string;
  location: string | null;
  employment_type: string;
  description: string;
  skills: string;
  created_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
  created_at: number;
}

export interface Database {
  organizations: OrganizationsTable;
  organization_modules: OrganizationModulesTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  credit_ledger: CreditLedgerTable;
  credit_locks: CreditLocksTable;
  sandbox_quota: SandboxQuotaTable;
  branding: BrandingTable;
  candidates: CandidatesTable;
  round_types: RoundTypesTable;
  companies: CompaniesTable;
  jobs: JobsTable;
  settings: SettingsTable;
}
