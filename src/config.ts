import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { S3StorageConfig } from './storage/s3.js';

/** Everything the service reads from the environment, validated once at start. */
export interface Config {
  /** `postgres://…` when set; otherwise SQLite in `dataDir`. */
  databaseUrl: string | null;
  /** PostgreSQL only: the schema (search_path) to use; default the server's default (public). */
  databaseSchema: string | null;
  /** PostgreSQL only: the longest opening one connection may take (a host that does not answer fails in a sentence). */
  databaseConnectTimeoutMs: number;
  dataDir: string;
  port: number;
  host: string;
  publicUrl: string;
  redisUrl: string | null;
  /** Largest request body accepted, in bytes; larger answers 400 body_too_large. */
  bodyLimitBytes: number;
  rateLimit: {
    windowMs: number;
    /** Requests per window per key for ordinary operations. */
    standard: number;
    /** Requests per window per key for operations that run a model. */
    model: number;
  };
  /** Failed credential checks per client address per rate-limit window before that address is refused (429). */
  authFailureLimit: number;
  /**
   * The reverse proxies whose X-Forwarded-For names the client (addresses, CIDR ranges, or proxy-addr's `loopback`,
   * `linklocal`, `uniquelocal`); empty: the connecting address is the client.
   */
  trustProxy: string[];
  /** Billable units a test-mode organisation may reserve per calendar month (UTC). */
  sandboxMonthlyQuota: number;
  logLevel: string;
  /** How long a worker holds a claimed job before another may take it (a worker that died). */
  jobLeaseMs: number;
  /**
   * How long `prep serve` and `prep worker` wait, after SIGTERM or SIGINT, for the requests and jobs in hand before
   * exiting anyway (the jobs are then left to their leases).
   */
  shutdownGraceMs: number;
  /** The interview channel pings each connection this often; one that has not answered the last ping is cut. */
  channelHeartbeatMs: number;
  webhooks: {
    /** Time allowed for one delivery attempt (connect, response, capped body). */
    timeoutMs: number;
    /** A delivery that takes this long marks its organisation's receivers slow for a minute (they then share fewer slots). */
    slowMs: number;
    /** Tests only: host names that may resolve to loopback (a local receiver). Empty in production. */
    allowLoopbackHosts: string[];
    /** Tests only: a CA (PEM file) trusted for receivers, instead of the system roots. */
    caFile: string | null;
  };
  sandbox: {
    /** Code executions at once in this process (each slot runs as its own uid). */
    slots: number;
    /** First uid (and gid) of the slots; slot n of process p runs as base + (p mod 65536) * 64 + n. */
    uidBase: number;
    /** Where the launcher binary is built (outside any sandbox). */
    dir: string;
    /** Longest a `run` request waits for a free slot before answering 429 capacity_unavailable. */
    queueWaitMs: number;
    /** Directories no sandbox may show (the data and storage directories): hidden in every sandbox where a system mount would show them. */
    privateDirs: string[];
  };
  /** An OpenAI-compatible chat model; null: the built-in evaluators only. */
  model: { baseUrl: string; name: string; apiKey: string | null; timeoutMs: number; concurrency: number } | null;
  storage: {
    /** The local backend's directory (default `dataDir/files`); unused when `s3` is set. */
    dir: string;
    /** S3-compatible storage, when PREP_S3_BUCKET is set. */
    s3: S3StorageConfig | null;
  };
  resumes: {
    /** Worker threads that parse resume files (each one file at a time). */
    parseWorkers: number;
    /** Longest one file may take to parse before it is refused (422). */
    parseTimeoutMs: number;
    /** Heap limit of each parse worker, in MiB. */
    parseMemoryMb: number;
  };
  /** Live interview invitations go out through this SMTP server; null: none are sent (the response says so). */
  smtp: { url: string; from: string } | null;
  /** 32-byte key that encrypts secrets at rest (signing keys); when unset, one is kept in `dataDir/encryption.key`. */
  encryptionKey: Buffer | null;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function origin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL such as https://prep.example.com, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must use http or https`);
  return url.origin;
}

function s3Config(env: Env): S3StorageConfig | null {
  const bucket = env.PREP_S3_BUCKET?.trim();
  if (!bucket) return null;
  const endpoint = env.PREP_S3_ENDPOINT?.trim() || null;
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new ConfigError('PREP_S3_ENDPOINT must be an http(s) URL');
  const accessKeyId = env.PREP_S3_ACCESS_KEY_ID?.trim() || null;
  const secretAccessKey = env.PREP_S3_SECRET_ACCESS_KEY?.trim() || null;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new ConfigError('PREP_S3_ACCESS_KEY_ID and PREP_S3_SECRET_ACCESS_KEY are set together (or neither, for the AWS default credential chain)');
  const pathStyle = (env.PREP_S3_FORCE_PATH_STYLE ?? '').trim().toLowerCase();
  if (pathStyle && !['true', 'false', '1', '0'].includes(pathStyle)) throw new ConfigError('PREP_S3_FORCE_PATH_STYLE must be true or false');
  return {
    bucket, endpoint, accessKeyId, secretAccessKey,
    region: env.PREP_S3_REGION?.trim() || env.AWS_REGION?.trim() || 'us-east-1',
    forcePathStyle: pathStyle === 'true' || pathStyle === '1',
    prefix: env.PREP_S3_PREFIX?.trim() ?? '',
  };
}

/**
 * PREP_TRUST_PROXY: comma-separated addresses or CIDR ranges of the proxies in front of the service. Never "everyone":
 * a client could then name any address in X-Forwarded-For and dodge the per-address limits.
 */
function proxies(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(',').map((e) => e.trim()).filter((e) => e.length > 0);
  for (const e of entries) {
    const [address, bits, ...rest] = e.split('/');
    const family = isIP(address!);
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(e);
    const range = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!named && (family === 0 || !range || rest.length > 0)) {
      throw new ConfigError(`PREP_TRUST_PROXY lists proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal), comma-separated; "${e}" is none`);
    }
  }
  return entries;
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for SQLite)');
  }
  const databaseSchema = env.PREP_DATABASE_SCHEMA?.trim() || null;
  if (databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    throw new ConfigError('PREP_DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, underscores)');
  }
  const redisUrl = env.REDIS_URL?.trim() || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const logLevel = env.PREP_LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`PREP_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  let encryptionKey: Buffer | null = null;
  const rawKey = env.PREP_ENCRYPTION_KEY?.trim();
  if (rawKey) {
    encryptionKey = /^[0-9a-fA-F]{64}$/.test(rawKey) ? Buffer.from(rawKey, 'hex') : Buffer.from(rawKey, 'base64');
    if (encryptionKey.length !== 32) throw new ConfigError('PREP_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64');
  }
  const jobLeaseMs = integer(env, 'PREP_JOB_LEASE_MS', 120_000, 500, 3_600_000);
  const webhookTimeoutMs = integer(env, 'PREP_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000);
  if (jobLeaseMs <= webhookTimeoutMs) {
    // A lease shorter than a delivery would let a second worker send while the first is still waiting.
    throw new ConfigError(`PREP_JOB_LEASE_MS (${jobLeaseMs}) must be longer than PREP_WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs})`);
  }
  const dataDir = path.resolve(env.PREP_DATA_DIR?.trim() || './data');
  const modelUrl = env.PREP_MODEL_BASE_URL?.trim() || null;
  const modelName = env.PREP_MODEL_NAME?.trim() || null;
  if (modelUrl && !/^https?:\/\//.test(modelUrl)) throw new ConfigError('PREP_MODEL_BASE_URL must be an http(s) URL such as http://localhost:11434/v1');
  if (Boolean(modelUrl) !== Boolean(modelName)) throw new ConfigError('PREP_MODEL_BASE_URL and PREP_MODEL_NAME are set together (or neither)');
  const smtpUrl = env.PREP_SMTP_URL?.trim() || null;
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl)) throw new ConfigError('PREP_SMTP_URL must be an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587');
  return {
    databaseUrl,
    databaseSchema,
    databaseConnectTimeoutMs: integer(env, 'PREP_DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    dataDir,
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    publicUrl: origin('PREP_PUBLIC_URL', env.PREP_PUBLIC_URL?.trim() || `http://localhost:${port}`),
    redisUrl,
    bodyLimitBytes: integer(env, 'PREP_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    rateLimit: {
      windowMs: integer(env, 'PREP_RATE_LIMIT_WINDOW_MS', 60_000, 100, 86_400_000),
      standard: integer(env, 'PREP_RATE_LIMIT', 600, 1, 10_000_000),
      model: integer(env, 'PREP_RATE_LIMIT_MODEL', 60, 1, 10_000_000),
    },
    authFailureLimit: integer(env, 'PREP_AUTH_FAILURE_LIMIT', 100, 1, 10_000_000),
    trustProxy: proxies(env.PREP_TRUST_PROXY),
    sandboxMonthlyQuota: integer(env, 'PREP_SANDBOX_MONTHLY_QUOTA', 500, 0, 100_000_000),
    logLevel,
    encryptionKey,
    jobLeaseMs,
    shutdownGraceMs: integer(env, 'PREP_SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    channelHeartbeatMs: integer(env, 'PREP_CHANNEL_HEARTBEAT_MS', 30_000, 100, 600_000),
    model: modelUrl && modelName
      ? { baseUrl: modelUrl, name: modelName, apiKey: env.PREP_MODEL_API_KEY?.trim() || null, timeoutMs: integer(env, 'PREP_MODEL_TIMEOUT_MS', 60_000, 1000, 600_000),
        concurrency: integer(env, 'PREP_MODEL_CONCURRENCY', 4, 1, 64) }
      : null,
    sandbox: {
      slots: integer(env, 'PREP_SANDBOX_SLOTS', Math.max(1, os.availableParallelism()), 1, 64),
      uidBase: integer(env, 'PREP_SANDBOX_UID_BASE', 200_000, 1000, 4_000_000_000),
      dir: path.resolve(env.PREP_SANDBOX_DIR?.trim() || path.join(dataDir, 'sandbox')),
      queueWaitMs: integer(env, 'PREP_SANDBOX_QUEUE_WAIT_MS', 10_000, 0, 600_000),
      privateDirs: [dataDir, path.resolve(env.PREP_STORAGE_DIR?.trim() || path.join(dataDir, 'files'))],
    },
    storage: {
      dir: path.resolve(env.PREP_STORAGE_DIR?.trim() || path.join(dataDir, 'files')),
      s3: s3Config(env),
    },
    resumes: {
      parseWorkers: integer(env, 'PREP_RESUME_PARSE_WORKERS', 1, 1, 16),
      parseTimeoutMs: integer(env, 'PREP_RESUME_PARSE_TIMEOUT_MS', 15_000, 500, 300_000),
      parseMemoryMb: integer(env, 'PREP_RESUME_PARSE_MEMORY_MB', 256, 64, 4096),
    },
    smtp: smtpUrl ? { url: smtpUrl, from: env.PREP_SMTP_FROM?.trim() || 'Prep <no-reply@localhost>' } : null,
    webhooks: {
      timeoutMs: webhookTimeoutMs,
      slowMs: integer(env, 'PREP_WEBHOOK_SLOW_MS', Math.min(1_000, Math.floor(webhookTimeoutMs / 2)), 1, webhookTimeoutMs),
      allowLoopbackHosts: (env.PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean),
      caFile: env.PREP_WEBHOOK_CA_FILE?.trim() || null,
    },
  };
}
