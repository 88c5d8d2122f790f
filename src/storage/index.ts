import type { Config } from '../config.js';
import { createLocalStorage, type LocalStorage } from './local.js';
import { createS3Storage } from './s3.js';
import type { ObjectStorage } from './storage.js';

/** The configured object storage: S3-compatible when a bucket is set, else the local directory (whose URLs the service answers). */
export function createStorage(config: Config, secret: () => Buffer, now: () => number = Date.now): { storage: ObjectStorage; local: LocalStorage | null } {
  if (config.storage.s3) return { storage: createS3Storage(config.storage.s3), local: null };
  const local = createLocalStorage({ dir: config.storage.dir, publicUrl: config.publicUrl, secret, now });
  return { storage: local, local };
}
