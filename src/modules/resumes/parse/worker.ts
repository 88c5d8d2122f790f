/** The parse worker's entry: one file at a time from the pool, answered with the fields or the reason it failed. */
import { parentPort } from 'node:worker_threads';
import { parseResume, UnprocessableResume } from './index.js';

export interface ParseRequest { id: number; bytes: Uint8Array; asOf: string }
export type ParseReply =
  | { id: number; ok: true; result: Awaited<ReturnType<typeof parseResume>> }
  | { id: number; ok: false; unprocessable: string | null; error: string };

parentPort?.on('message', async (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
    reply = { id: request.id, ok: true, result: await parseResume(bytes, { asOf: request.asOf }) };
  } catch (error) {
    const unprocessable = error instanceof UnprocessableResume ? error.reason : null;
    reply = { id: request.id, ok: false, unprocessable, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
