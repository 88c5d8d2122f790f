import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { makeDirectory } from './directories.js';

/** AES-256-GCM for secrets kept at rest. Format: v1.<iv>.<tag>.<ciphertext>, base64url parts. */
export interface Encryption {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

/**
 * The configured key, or (for a one-machine install) a key generated once into the data directory with
 * owner-only permissions. Several machines sharing one database must all be given PREP_ENCRYPTION_KEY.
 */
export function loadEncryptionKey(config: Pick<Config, 'encryptionKey' | 'dataDir'>): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  const file = path.join(config.dataDir, 'encryption.key');
  if (!existsSync(file)) {
    makeDirectory(config.dataDir, 'PREP_DATA_DIR'); // with PostgreSQL, nothing else makes it
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another process wrote it first
    }
  }
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

/** `key` is asked for on first use, so commands that never touch a secret never create a key file. */
export function createEncryption(keyOf: () => Buffer): Encryption {
  let cached: Buffer | null = null;
  const key = () => (cached ??= keyOf());
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key(), iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
