import { exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database, SigningKeysTable } from '../../db/schema.js';
import { BoundedMap } from '../../platform/bounded-map.js';
import type { Clock } from '../../platform/clock.js';
import type { Encryption } from '../../platform/encryption.js';
import { newId } from '../../platform/ids.js';
import type { SigningKeyRepo } from './repo.js';

/** Session tokens live 15 minutes. */
export const TOKEN_LIFETIME_SECONDS = 900;
/** How long a process may keep signing with a key after another process rotated it. */
const CURRENT_KEY_CACHE_MS = 30_000;
/** How long the JWKS may be cached (its Cache-Control max-age), by clients and the proxies between. */
export const JWKS_MAX_AGE_SECONDS = 300;
/**
 * A rotated-in key is published this long before it signs: a verifier that re-fetches the JWKS on an unknown `kid`
 * may get a copy cached up to max-age ago, which must already hold the key.
 */
export const PUBLISH_LEAD_MS = JWKS_MAX_AGE_SECONDS * 1000;
/**
 * A retired key stays published and accepted until no token it signed can still be valid: the token
 * lifetime, plus the time a process may take to notice the rotation, plus a minute of clock skew.
 */
export const RETIRED_KEY_GRACE_MS = (TOKEN_LIFETIME_SECONDS + 60) * 1000 + CURRENT_KEY_CACHE_MS;

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/**
 * Ed25519 signing keys in the database (private halves encrypted at rest). Rotating adds a key, published at once,
 * and retires the others PUBLISH_LEAD_MS later (at once when it must be immediate); the key that signs is the newest
 * not retired that has been published that long, else (the first key; an immediate rotation) the oldest not retired.
 * Parsed keys are cached per process.
 */
export function createSigningKeys(deps: { db: Kysely<Database>; clock: Clock; encryption: Encryption; repo: SigningKeyRepo }) {
  const { db, clock, encryption, repo } = deps;
  let current: { kid: string; key: CryptoKey; loadedAt: number } | null = null;
  const verifying = new BoundedMap<string, { key: CryptoKey | null; until: number }>(1000);

  const retiredAfter = () => clock.now() - RETIRED_KEY_GRACE_MS;

  async function insertKey(tx: Kysely<Database>): Promise<SigningKeysTable> {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const kid = newId();
    const row = {
      kid,
      public_jwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' }),
      private_key: encryption.encrypt(await exportPKCS8(privateKey)),
      created_at: clock.now(),
      retired_at: null,
    };
    await repo.insert(tx, row);
    return row;
  }

  /** The key that signs at `now`: the newest published PUBLISH_LEAD_MS ago, else the oldest (none: undefined). */
  async function signer(now: number): Promise<SigningKeysTable | undefined> {
    const keys = await repo.signable(now);
    return keys.findLast((k) => k.created_at <= now - PUBLISH_LEAD_MS) ?? keys[0];
  }

  return {
    /** Makes sure a signing key exists (first start). */
    async ensureKey(): Promise<void> {
      if (!(await signer(clock.now()))) await insertKey(db);
    },

    /**
     * Adds a key, published at once; it signs once PUBLISH_LEAD_MS has passed, when the others retire (they stay
     * valid for the tokens they signed). `immediately` (a leaked key): the others retire and it signs now.
     */
    async rotate(options: { immediately?: boolean } = {}): Promise<{ kid: string; signsFrom: number }> {
      const lead = options.immediately ? 0 : PUBLISH_LEAD_MS;
      const row = await db.transaction().execute(async (tx) => {
        const fresh = await insertKey(tx);
        await repo.retireAllBut(tx, fresh.kid, fresh.created_at + lead);
        return fresh;
      });
      current = null;
      return { kid: row.kid, signsFrom: row.created_at + lead };
    },

    /** The key that signs new tokens. */
    async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
      if (current && clock.now() - current.loadedAt < CURRENT_KEY_CACHE_MS) return current;
      let row = await signer(clock.now());
      if (!row) {
        await insertKey(db);
        row = (await signer(clock.now()))!;
      }
      if (current?.kid !== row.kid) {
        current = { kid: row.kid, key: await importPKCS8(encryption.decrypt(row.private_key), 'EdDSA'), loadedAt: clock.now() };
      } else {
        current.loadedAt = clock.now();
      }
      return current;
    },

    /** The public key for a `kid`, if it may still verify tokens; null for any other kid. */
    async verificationKey(kid: string): Promise<CryptoKey | null> {
      const cached = verifying.get(kid);
      if (cached && cached.until > clock.now()) return cached.key;
      const row = await repo.usableByKid(kid, retiredAfter());
      const key = row ? ((await importJWK(JSON.parse(row.public_jwk) as JWK, 'EdDSA')) as CryptoKey) : null;
      // Known keys are re-checked every 30 s (to notice retirement); unknown kids are not looked up again for 5 s.
      verifying.set(kid, { key, until: clock.now() + (key ? CURRENT_KEY_CACHE_MS : 5_000) });
      return key;
    },

    /** Every public key that can appear on a token that is still valid. */
    async jwks(): Promise<{ keys: PublicJwk[] }> {
      const rows = await repo.usable(retiredAfter());
      return { keys: rows.map((r) => JSON.parse(r.public_jwk) as PublicJwk) };
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
