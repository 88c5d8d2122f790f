/**
 * Uploads through the local storage's URLs are held in memory until their type is checked and they are written. The
 * bytes in flight are bounded for the whole process, and a link takes one upload at a time, so a candidate who opens
 * many slow uploads at once (a link may be used again until it expires) cannot exhaust the server's memory.
 */
export function createUploadBudget(maxBytes: number) {
  let reserved = 0;
  const uploading = new Set<string>();
  return {
    /** Holds `bytes` for an upload to `key`: the release to call once it is done, or why it must wait. */
    take(key: string, bytes: number): { release(): void } | { refused: 'key_busy' | 'full' } {
      if (uploading.has(key)) return { refused: 'key_busy' };
      if (reserved + bytes > maxBytes) return { refused: 'full' };
      reserved += bytes;
      uploading.add(key);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          reserved -= bytes;
          uploading.delete(key);
        },
      };
    },
    /** Bytes held now (for tests and metrics). */
    inFlight: () => reserved,
  };
}

export type UploadBudget = ReturnType<typeof createUploadBudget>;

/** What the uploads of one process may hold in memory at once: 25 resumes at their 10 MiB cap. */
export const UPLOADS_IN_FLIGHT_BYTES = 256 * 1024 * 1024;
