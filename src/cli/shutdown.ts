/**
 * SIGTERM and SIGINT for the long-running commands (`prep serve`, `prep worker`), handled from before the database is
 * opened. The first signal stops the process the way its `stop` does (no new requests or jobs; those in hand finish),
 * within `graceMs`: past it the process exits anyway, 1, and the jobs still running are left to their leases (another
 * worker takes each once its lease runs out, as if this one had died). A signal during start-up lets the step under
 * way (migrations, catalogue loads: each in a transaction, under a lock) finish, then stops before serving. A second
 * signal exits at once, 1. A clean stop exits 0.
 */
export function exitOnSignals(options: {
  graceMs: number;
  write?: (line: string) => void;
  exit?: (code: number) => void;
  signals?: NodeJS.EventEmitter;
}): { started(stop: () => Promise<void>): boolean; signalled(): boolean } {
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? process;
  let stop: (() => Promise<void>) | null = null;
  let signalled = false;
  const stopNow = (run: () => Promise<void>) => run().then(() => exit(0), (error: unknown) => {
    write(`prep: stopping failed: ${(error as Error).message ?? String(error)}`);
    exit(1);
  });
  const onSignal = (signal: string) => {
    if (signalled) {
      write(`prep: ${signal} again: exiting now; jobs still running are taken again by a worker once their lease runs out`);
      exit(1);
      return;
    }
    signalled = true;
    // Unreferenced: a stop that closed everything ends the process itself; one still waiting keeps it alive till then.
    setTimeout(() => {
      write(`prep: still stopping after ${options.graceMs} ms (PREP_SHUTDOWN_GRACE_MS): exiting; requests still open are cut, `
        + 'jobs still running are taken again by a worker once their lease runs out');
      exit(1);
    }, options.graceMs).unref();
    if (stop) void stopNow(stop);
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  return {
    /** Whether a signal has come (start-up checks it before it starts serving). */
    signalled: () => signalled,
    /** Start-up is over and `stop` shuts down; true when a signal came during start-up (it is stopping now). */
    started(run) {
      stop = run;
      if (signalled) void stopNow(run);
      return signalled;
    },
  };
}
