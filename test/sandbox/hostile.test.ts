import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdtempSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotIdentities } from '../../src/sandbox/sandbox.js';
import { runOnce, testSandbox, type TestSandbox } from './helpers.js';

/**
 * Hostile code: each case must be contained, end with the right verdict, and leave the host untouched.
 * The "host" here is this test process, which plays the service: its pid, environment, files and port.
 */
let sandbox: TestSandbox;
let server: Server;
let port: number;
let hits = 0;
let dir: string;
let canary: string;
let database: string;
const MARKER = `prep-secret-${process.pid}-${Date.now()}`;

beforeAll(async () => {
  process.env.PREP_HOSTILE_TEST_SECRET = MARKER;
  sandbox = testSandbox({ PREP_SANDBOX_UID_BASE: '300000' });
  server = createServer((_req, res) => {
    hits++;
    res.end('reached');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
  dir = mkdtempSync(path.join(os.tmpdir(), 'prep-hostile-'));
  chmodSync(dir, 0o755);
  canary = path.join(dir, 'canary.txt');
  writeFileSync(canary, 'untouched\n');
  chmodSync(canary, 0o666); // even a world-writable host file must be out of reach
  database = path.join(dir, 'prep.db');
  writeFileSync(database, `database ${MARKER}\n`);
  chmodSync(database, 0o644);
});

afterAll(async () => {
  delete process.env.PREP_HOSTILE_TEST_SECRET;
  await new Promise((r) => server.close(r));
});

/** This process's slot uids (other test files run sandboxes of their own at the same time, under other uids). */
const slotUids = new Set(slotIdentities({ uidBase: 300000, slots: 2 }).map((s) => s.uid));

/**
 * Processes on the host owned by the sandbox's uids (none may survive a run), but for each slot's next
 * sandbox being made or waiting for work.
 */
function leftovers(): string[] {
  const uids = new Set<string>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const uid = statSync(`/proc/${pid}`).uid;
      const command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      // A slot's next sandbox may be starting: the launcher between setuid and exec, bubblewrap, the inner launcher.
      const machinery = command === 'bwrap' || command === 'prep-init' || command.startsWith('prep-launch');
      if (slotUids.has(uid) && !machinery) uids.add(`${pid} ${command}`);
    } catch {
      // exited meanwhile
    }
  }
  return [...uids];
}

const py = (source: string, options: Parameters<typeof runOnce>[3] = {}) => runOnce(sandbox, 'python', source, options);

describe('hostile code', () => {
  it('a fork bomb hits the process limit and is killed with all its children', async () => {
    const r = await py('import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n', { limits: { timeLimitMs: 1000, memoryLimitMb: 128 } });
    expect(['TIME_LIMIT_EXCEEDED', 'RUNTIME_ERROR', 'MEMORY_LIMIT_EXCEEDED']).toContain(r.case!.verdict);
    expect(leftovers()).toEqual([]);
    const bash = await runOnce(sandbox, 'bash', 'bomb() { bomb | bomb & }; bomb\nsleep 5\n', { limits: { timeLimitMs: 1000, memoryLimitMb: 128 } });
    // bash itself may finish its script; whatever the bomb forked dies with it (or, their memory summed, past the limit)
    expect(['TIME_LIMIT_EXCEEDED', 'RUNTIME_ERROR', 'COMPLETED', 'MEMORY_LIMIT_EXCEEDED']).toContain(bash.case!.verdict);
    expect(leftovers()).toEqual([]);
  });

  it('a memory bomb is stopped at the memory limit', async () => {
    const r = await py('chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))\n', { limits: { timeLimitMs: 2000, memoryLimitMb: 128 } });
    expect(r.case!.verdict).toBe('MEMORY_LIMIT_EXCEEDED');
    const c = await runOnce(sandbox, 'c', '#include <stdlib.h>\n#include <string.h>\nint main(void){ for(;;){ char *p = malloc(1<<20); if(!p) return 3; memset(p, 1, 1<<20); } }\n', { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    expect(c.case!.verdict).toBe('MEMORY_LIMIT_EXCEEDED');
  });

  it('an infinite loop uses up its CPU time; sleeping forever runs out of wall-clock time', async () => {
    const loop = await py('while True:\n    pass\n', { limits: { timeLimitMs: 500, memoryLimitMb: 64 } });
    expect(loop.case!.verdict).toBe('TIME_LIMIT_EXCEEDED');
    const sleep = await py('import time\ntime.sleep(3600)\n', { limits: { timeLimitMs: 500, memoryLimitMb: 64 } });
    expect(sleep.case!.verdict).toBe('TIME_LIMIT_EXCEEDED');
    expect(sleep.case!.wallMs).toBeLessThan(10_000);
  });

  // Was a bug: CPU time and memory were counted for the program's own process only (rlimits are per process), so
  // work spread over child processes passed the time limit, and children held memory past the limit (64 processes
  // of 320 MB each for a Python run: more than the host has).
  it('counts the CPU time of every process of the run, waited for or not', async () => {
    const r = await py([
      'import os, time',
      'r, w = os.pipe()',
      'for i in range(3):',
      '    if os.fork() == 0:',
      '        t = time.process_time()',
      '        while time.process_time() - t < 0.6: pass',
      "        os.write(w, b'x'); os._exit(0)",
      'for i in range(3): os.read(r, 1)',
      "print('done')",
    ].join('\n'), { limits: { timeLimitMs: 1000, memoryLimitMb: 128 } });
    expect(r.case!.verdict).toBe('TIME_LIMIT_EXCEEDED');
    expect(r.case!.timeMs).toBeGreaterThanOrEqual(1000);
  });

  // Was a bug: a child's CPU time moves into its parent's cutime when the parent waits for it, and the sampling read
  // utime and stime only: a run of 1 s that ran its work in short children, one after another, ran for its whole wall
  // clock (7 s) and was stopped by it.
  it('stops a run at its CPU time when its work is done in children it waits for', async () => {
    const r = await py([
      'import os, time',
      'for i in range(40):',
      '    pid = os.fork()',
      '    if pid == 0:',
      '        t = time.process_time()',
      '        while time.process_time() - t < 0.15: pass',
      '        os._exit(0)',
      '    os.waitpid(pid, 0)',
      "print('done')",
    ].join('\n'), { limits: { timeLimitMs: 1000, memoryLimitMb: 128 } });
    expect(r.case!.verdict).toBe('TIME_LIMIT_EXCEEDED');
    expect(r.stdout).not.toContain('done');
    // Stopped by the CPU check, which reports the figures, soon after 1 s (the wall clock's kill leaves none: 0). On a
    // machine loaded far past its cores the run may not get 1 s of CPU before the wall clock: not checked then (a
    // broken CPU check also ends in the wall clock's kill, so only when the machine was loaded is it let pass).
    if (r.case!.timeMs === 0 && os.loadavg()[0] > 2 * os.availableParallelism()) return;
    expect(r.case!.timeMs).toBeGreaterThanOrEqual(1000);
    expect(r.case!.timeMs).toBeLessThan(1500);
  });

  it('holds the memory of every process of the run to the memory limit together', async () => {
    const r = await py([
      'import os, time',
      'r, w = os.pipe()',
      'for i in range(4):',
      '    if os.fork() == 0:',
      '        b = bytearray(40 * 1024 * 1024)',
      '        for j in range(0, len(b), 4096): b[j] = 1',
      "        os.write(w, b'x'); time.sleep(3); os._exit(0)",
      'for i in range(4): os.read(r, 1)',
      "print('held')",
    ].join('\n'), { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    expect(r.case!.verdict).toBe('MEMORY_LIMIT_EXCEEDED');
    expect(r.stdout).not.toContain('held');
    expect(r.case!.memoryKb).toBeGreaterThan(64 * 1024);
  });

  // Was a bug: the sampling launcher ran at the program's nice 10, one among its 60 busy processes, and was scheduled
  // late: a 64 MB run of 60 processes allocating at once was seen at 250–870 MB before it was stopped (now 65–105).
  it('samples ahead of the program (which runs at nice 10), so many processes allocating at once are stopped early', async () => {
    const nice = await py("import os\nprint(open('/proc/1/stat').read().rsplit(')', 1)[1].split()[16], os.nice(0))\n");
    expect(nice.stdout.trim()).toBe('0 10'); // the launcher, the program
    const r = await runOnce(sandbox, 'c', `#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {
  int go[2];
  if (pipe(go) != 0) return 1;
  for (int k = 0; k < 60; k++) {
    if (fork() == 0) {
      char c;
      close(go[1]);
      read(go[0], &c, 1); /* all start together, when the parent closes the pipe */
      for (;;) { char *p = malloc(1 << 20); if (!p) pause(); memset(p, 1, 1 << 20); }
    }
  }
  close(go[1]);
  for (;;) pause();
}
`, { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    expect(r.case!.verdict).toBe('MEMORY_LIMIT_EXCEEDED');
    // On a machine loaded far past its cores even a nice-0 sampler is scheduled late (one run in four at load 15 was
    // seen above 256 MB): the overshoot is checked only when the machine is not (as the CPU-time test above does).
    if (os.loadavg()[0] > 2 * os.availableParallelism()) return;
    expect(r.case!.memoryKb).toBeLessThan(256 * 1024);
  });

  // Was a bug: data queued in sockets is kernel memory no process's resident memory shows: 60 processes of a run with
  // 256 MB held 1.6 GB in socket pairs.
  it('counts data held in its sockets against the memory limit', async () => {
    const r = await runOnce(sandbox, 'c', `#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
static char buf[65536];
int main(void) {
  int done[2];
  if (pipe(done) != 0) return 1;
  for (int k = 0; k < 8; k++) {
    if (fork() == 0) {
      for (int i = 0; i < 60; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) break;
        for (int j = 0; j < 2; j++) {
          fcntl(sv[j], F_SETFL, O_NONBLOCK);
          while (write(sv[j], buf, sizeof buf) > 0) {}
        }
      }
      write(done[1], "x", 1);
      sleep(3);
      _exit(0);
    }
  }
  char c;
  for (int k = 0; k < 8; k++) read(done[0], &c, 1);
  puts("held");
  fflush(stdout);
  sleep(1);
  return 0;
}
`, { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    expect(r.case!.verdict).toBe('MEMORY_LIMIT_EXCEEDED');
    expect(r.stdout).not.toContain('held');
    expect(r.case!.memoryKb).toBeGreaterThan(64 * 1024);
  });

  // Was a bug: a memfd's pages and a detached System V segment's are shared memory outside every mounted filesystem
  // and, unmapped, in no process's resident memory: one process of a 64 MB run held 600 MB in each (a memfd is capped
  // only by the file-size limit, and a run has 64 processes of 128 files).
  it('cannot hold memory in memfds or System V shared memory outside the memory limit', async () => {
    const r = await runOnce(sandbox, 'c', `#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>
static char buf[1 << 20];
int main(void) {
  memset(buf, 1, sizeof buf);
  long memfd = 0, sysv = 0;
  for (int i = 0; i < 13; i++) {
    int fd = memfd_create("held", 0);
    if (fd < 0) break;
    for (int j = 0; j < 15 && write(fd, buf, sizeof buf) > 0; j++) memfd++;
  }
  printf("memfd MB %ld\\n", memfd);
  fflush(stdout);
  for (int i = 0; i < 13; i++) {
    int id = shmget(IPC_PRIVATE, 16 << 20, IPC_CREAT | 0600);
    if (id < 0) break;
    char *p = shmat(id, 0, 0);
    if (p == (void *)-1) break;
    for (long k = 0; k < (16 << 20); k += 4096) p[k] = 1;
    shmdt(p);
    sysv += 16;
  }
  printf("sysv MB %ld\\n", sysv);
  fflush(stdout);
  sleep(1);
  return 0;
}
`, { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    const held = (what: string) => Number(new RegExp(`${what} MB (\\d+)`).exec(r.stdout)?.[1] ?? 0);
    expect(held('memfd')).toBeLessThanOrEqual(64);
    expect(held('sysv')).toBeLessThanOrEqual(64);
  });

  // Hardening: io_uring is a large kernel surface no program here needs, and its queued work runs in kernel threads
  // outside the step's accounting (container runtimes deny it by default).
  it('cannot set up io_uring', async () => {
    const r = await runOnce(sandbox, 'python', `import ctypes
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 8, params)  # io_uring_setup
print('io_uring', fd, ctypes.get_errno())
`);
    expect(r.case!.verdict).toBe('COMPLETED');
    expect(r.stdout.trim()).toBe('io_uring -1 1'); // EPERM
  });

  // Hardening: perf_event_open and userfaultfd are open to any uid here (perf_event_paranoid 2, user-mode-only faults)
  // and are two of the kernel's most used exploit primitives; no program here needs them (container runtimes deny both).
  it('cannot open perf events or a userfaultfd', async () => {
    const r = await runOnce(sandbox, 'python', `import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(128)
struct.pack_into('IIQ', attr, 0, 1, 128, 1)  # PERF_TYPE_SOFTWARE, size, PERF_COUNT_SW_TASK_CLOCK
struct.pack_into('Q', attr, 40, 0x60)  # exclude_kernel, exclude_hv
fd = libc.syscall(298, attr, 0, -1, -1, 0)  # perf_event_open, this process
print('perf', fd, ctypes.get_errno())
fd = libc.syscall(323, 0o2000000 | 1)  # userfaultfd(O_CLOEXEC | UFFD_USER_MODE_ONLY)
print('userfaultfd', fd, ctypes.get_errno())
`);
    expect(r.case!.verdict).toBe('COMPLETED');
    expect(r.stdout.trim().split('\n')).toEqual(['perf -1 1', 'userfaultfd -1 1']); // EPERM
  });

  // Was a bug: a network namespace isolates only its own families. AF_VSOCK is not among them: on a virtual machine a
  // run opened a vsock socket and its connect to the hypervisor host (CID 2) was answered (a reset from an unused port).
  it('can open sockets of the namespaced families only (no vsock to the hypervisor host)', async () => {
    const r = await py(`
import errno, socket
for name, family, kind in (('unix', 1, 1), ('inet', 2, 1), ('inet6', 10, 1), ('netlink', 16, 3), ('vsock', 40, 1), ('alg', 38, 5)):
    try:
        socket.socket(family, kind).close()
        print(name, 'opened')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
`);
    expect(r.case!.verdict).toBe('COMPLETED');
    const lines = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(' ') as [string, string]));
    expect(lines).toEqual({ unix: 'opened', inet: 'opened', inet6: 'opened', netlink: 'opened', vsock: 'EPERM', alg: 'EPERM' });
  });

  it('still lets a program use nearly its whole time and memory in one process, and reports its figures', async () => {
    const r = await py('b = bytearray(40 * 1024 * 1024)\nfor j in range(0, len(b), 4096): b[j] = 1\nprint(len(b))\n', { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    expect(r.case!.verdict).toBe('COMPLETED');
    expect(r.case!.memoryKb).toBeGreaterThan(40 * 1024);
    expect(r.case!.memoryKb).toBeLessThan(64 * 1024);
  });

  it('sleeping on every case cannot hold a judge past its time budget', async () => {
    const started = Date.now();
    const execution = await sandbox.execute({
      language: 'python', source: 'import time\ntime.sleep(3600)\n', comparator: 'exact', priority: 'batch', budgetMs: 2000,
      limits: { timeLimitMs: 200, memoryLimitMb: 64 },
      cases: Array.from({ length: 6 }, (_, i) => ({ name: `case-${i}`, input: '', expected: 'x' })),
    });
    expect(execution.cases.map((c) => c.verdict)).toEqual(Array(6).fill('TIME_LIMIT_EXCEEDED'));
    expect(execution.cases.filter((c) => c.wallMs === 0).length).toBeGreaterThanOrEqual(4); // not run at all
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  // Was a bug: the budget counted from the call, so a correct program judged while another held the slot had its
  // last cases reported TIME_LIMIT_EXCEEDED without running them: the server's load became the candidate's fault.
  it('time spent waiting for a slot does not count against the judging budget', async () => {
    const one = testSandbox({ PREP_SANDBOX_UID_BASE: '310000', PREP_SANDBOX_SLOTS: '1' });
    // Holds the only slot for 4 s and a little (its sleep, well inside its 7 s wall clock: the hold ends with the
    // program, not at a limit a busy machine might overrun).
    const blocker = one.execute({
      language: 'python', source: 'import time\ntime.sleep(4)\n', comparator: 'exact', priority: 'interactive',
      limits: { timeLimitMs: 1000, memoryLimitMb: 64 }, cases: [{ name: 'stdin', input: '' }],
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Two cases of 3 s at the least each (sleeps: no machine runs them faster), so the second starts 3 s or more after
    // the slot is had. Counted from the call, the budget would leave at most 6.5 - 4 + 0.2 = 2.7 s then: the second
    // case would be cut. Counted from the slot, it is cut only if the first case's start-up takes over 3.5 s (0.1 s
    // measured; four cases of 1 s left the three first start-ups 1.2 s between them), and the wait (about 4.2 s) stays
    // under the 6.5 s a batch caller waits for a slot.
    const judged = await one.execute({
      language: 'python', source: 'import time\ntime.sleep(3)\nprint(input())\n', comparator: 'exact', priority: 'batch', budgetMs: 6500,
      limits: { timeLimitMs: 1000, memoryLimitMb: 64 },
      cases: Array.from({ length: 2 }, (_, i) => ({ name: `case-${i}`, input: `${i}\n`, expected: `${i}\n` })),
    });
    expect((await blocker).cases.map((c) => c.verdict)).toEqual(['COMPLETED']);
    expect(judged.cases.map((c) => c.verdict)).toEqual(Array(2).fill('ACCEPTED'));
  }, 60_000);

  it('1 GB of output is cut off at the cap', async () => {
    const r = await py('import sys\nblock = "x" * 65536\nfor _ in range(16384):\n    sys.stdout.write(block)\n', { stdoutBytes: 1_048_576 });
    expect(r.case!.verdict).toBe('OUTPUT_LIMIT_EXCEEDED');
    expect(r.case!.stdout.length).toBeLessThanOrEqual(1_048_576);
    const err = await py('import sys\nblock = "x" * 65536\nfor _ in range(16384):\n    sys.stderr.write(block)\n');
    expect(err.case!.verdict).toBe('OUTPUT_LIMIT_EXCEEDED');
  });

  it('cannot write outside its workdir, nor read shadow, the database, or the service\'s environment', async () => {
    const r = await py(`
import os
def attempt(label, fn):
    try:
        out = fn()
        print(label, 'OK', repr(out)[:200])
    except Exception as e:
        print(label, 'DENIED', type(e).__name__)
attempt('write-usr', lambda: open('/usr/bin/prep-evil', 'w').write('x'))
attempt('write-etc', lambda: open('/etc/prep-evil', 'w').write('x'))
attempt('write-canary', lambda: open(${JSON.stringify(canary)}, 'w').write('owned'))
attempt('read-shadow', lambda: open('/etc/shadow').read())
attempt('read-database', lambda: open(${JSON.stringify(database)}).read())
attempt('read-environ', lambda: open('/proc/${process.pid}/environ', 'rb').read())
attempt('read-host-pid1-environ', lambda: open('/proc/1/environ', 'rb').read())
attempt('list-work-root', lambda: os.listdir('/work/..'))
attempt('write-home', lambda: open('prep-ok.txt', 'w').write('fine'))
`);
    expect(r.case!.verdict).toBe('COMPLETED');
    const lines = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.split(' ')[0], l]));
    for (const label of ['write-usr', 'write-etc', 'write-canary', 'read-shadow', 'read-database', 'read-environ']) {
      expect(lines[label], label).toContain('DENIED');
    }
    // pid 1 of the sandbox is the program itself: its own (empty) environment, never the host's
    expect(lines['read-host-pid1-environ']).not.toContain(MARKER);
    expect(lines['write-home']).toContain('OK');
    expect(r.stdout).not.toContain(MARKER);
    expect(readFileSync(canary, 'utf8')).toBe('untouched\n');
  });

  // Was a bug: a descriptor the service inherited without close-on-exec (from a shell, a supervisor: a log file, a
  // socket-activated listener) went on into every run: a program read a root-only file through one.
  it('inherits no descriptor the service was started with', async () => {
    const secret = path.join(dir, 'root-only.txt');
    writeFileSync(secret, `root only ${MARKER}\n`);
    chmodSync(secret, 0o600);
    const script = `
import { loadConfig } from './dist/config.js';
import { createSandbox } from './dist/sandbox/sandbox.js';
const config = loadConfig({ PREP_SANDBOX_DIR: ${JSON.stringify(path.join(os.tmpdir(), 'prep-test-sandbox'))}, PREP_SANDBOX_SLOTS: '1', PREP_SANDBOX_UID_BASE: '312000' });
const source = "import os\\nfor fd in sorted(int(f) for f in os.listdir('/proc/self/fd')):\\n    try: print(fd, os.read(fd, 200) if fd > 4 else '')\\n    except OSError as e: print(fd, e.strerror)\\n";
const run = await createSandbox(config.sandbox).execute({ language: 'python', source, comparator: 'exact', priority: 'batch',
  limits: { timeLimitMs: 2000, memoryLimitMb: 64 }, cases: [{ name: 'stdin', input: '' }] });
process.stdout.write(run.cases[0].stdout);
process.exit(0);
`;
    // As a service started as \`prep serve 100<file\` would be: fd 100 open, not close-on-exec (Node itself marks only
    // the lowest descriptors close-on-exec at its start).
    const out = execFileSync('/bin/bash', ['-c', 'exec 100<"$1"; exec "$2" --input-type=module -e "$3"', 'bash', secret, process.execPath, script], { encoding: 'utf8', timeout: 20_000 });
    expect(out).toMatch(/^0 /);
    expect(out).not.toContain(MARKER);
    expect(out.trim().split('\n').map((l) => Number(l.split(' ')[0]))).toEqual([0, 1, 2, 3, 4]); // 3: the listing's own
  });

  // Was a bug: /usr is shown in every sandbox, and nothing checked where the service keeps its data: with the data
  // directory under it (say /usr/local/var/prep) every run could read the database (0644) and the uploaded files; a
  // service installed there (a global npm install, /usr/src/app) showed its catalogue's hidden cases the same way.
  it('hides the data directory and the files when they are under /usr, and runs code', async () => {
    const dataDir = mkdtempSync('/usr/local/share/prep-hostile-test-');
    const storageDir = path.join(dataDir.replace('/usr/local/share/', '/usr/share/'), 'files'); // not made yet
    try {
      writeFileSync(path.join(dataDir, 'prep.sqlite'), MARKER);
      chmodSync(path.join(dataDir, 'prep.sqlite'), 0o644);
      const exposed = testSandbox({ PREP_SANDBOX_UID_BASE: '313000', PREP_DATA_DIR: dataDir, PREP_STORAGE_DIR: storageDir });
      expect(await exposed.status()).toMatchObject({ available: true });
      writeFileSync(path.join(storageDir, 'upload.pdf'), MARKER); // made by the probe, before any sandbox
      const r = await runOnce(exposed, 'python', [
        'import os, sys',
        'for d in sys.argv[1:] or ' + JSON.stringify([dataDir, storageDir]) + ':',
        '    print(d, sorted(os.listdir(d)) if os.path.isdir(d) else "absent")',
        '    for f in ("prep.sqlite", "upload.pdf"):',
        '        try: print(open(os.path.join(d, f)).read())',
        '        except OSError as e: print(type(e).__name__)',
      ].join('\n'));
      expect(r.stdout, r.stderr).not.toContain(MARKER);
      expect(r.stdout).toContain(`${dataDir} []`);
      expect(r.stdout).toContain(`${storageDir} []`);
      expect(readFileSync(path.join(dataDir, 'prep.sqlite'), 'utf8')).toBe(MARKER); // the host's own, untouched
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(path.dirname(storageDir), { recursive: true, force: true });
    }
  });

  it('printenv shows none of the service\'s environment', async () => {
    const r = await runOnce(sandbox, 'bash', 'printenv\n');
    expect(r.stdout).not.toContain(MARKER);
    const names = r.stdout.trim().split('\n').map((l) => l.split('=')[0]).sort();
    for (const name of names) expect(['HOME', 'LANG', 'OLDPWD', 'PATH', 'PWD', 'SHLVL', 'TMPDIR', '_']).toContain(name);
  });

  it('has no network: the service\'s port is unreachable and only an isolated loopback exists', async () => {
    const before = hits;
    const r = await py(`
import socket
print('interfaces', sorted(name for _, name in socket.if_nameindex()))
try:
    s = socket.create_connection(('127.0.0.1', ${port}), timeout=2)
    s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n')
    print('connected', s.recv(100))
except Exception as e:
    print('refused', type(e).__name__)
try:
    socket.create_connection(('192.0.2.1', 80), timeout=1)
    print('outside reachable')
except Exception as e:
    print('outside', type(e).__name__)
`);
    expect(r.stdout).toContain("interfaces ['lo']");
    expect(r.stdout).toContain('refused');
    expect(r.stdout).not.toContain('reached');
    expect(r.stdout).not.toContain('outside reachable');
    expect(hits).toBe(before);
  });

  it('cannot signal the service or its parent, and leaves no process behind', async () => {
    const r = await py(`
import os, signal, time
for pid in (${process.pid}, os.getppid(), 1, -1):
    try:
        os.kill(pid, signal.SIGKILL) if pid not in (1, -1) else os.kill(pid, 0)
        print('signalled', pid)
    except Exception as e:
        print('refused', pid, type(e).__name__)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3600)
    os._exit(0)
print('parent done')
`);
    expect(r.stdout).toContain(`refused ${process.pid}`);
    expect(r.stdout).toContain('parent done');
    expect(r.case!.wallMs).toBeLessThan(5000);
    expect(leftovers()).toEqual([]);
    // killing everything it can see ends only itself
    const all = await runOnce(sandbox, 'bash', 'kill -9 -1; kill -9 $PPID; echo survived\n');
    expect(all.case).toBeDefined();
    expect(process.pid).toBeGreaterThan(0);
  });

  // Was a bug: bubblewrap's /dev is a tmpfs of its own with no size (half the host's RAM), owned by the sandbox's
  // user: a run with 64 MB of memory left gigabytes of files in /dev/shm, counted in no process's memory.
  it('cannot fill the host\'s memory through /dev or /dev/shm', async () => {
    const r = await py(`
import os
total = 0
block = b'x' * (1 << 20)
try:
    for i in range(24):
        with open('/dev/shm/f%d' % i, 'wb') as f:
            for _ in range(16): f.write(block)
        total += 16
except OSError as e:
    print('stopped', type(e).__name__)
print('shm MB', total)
try:
    open('/dev/evil', 'w').write('x')
    print('dev writable')
except OSError as e:
    print('dev denied', type(e).__name__)
`, { limits: { timeLimitMs: 2000, memoryLimitMb: 64 } });
    expect(r.stdout).toContain('stopped');
    expect(Number(/shm MB (\d+)/.exec(r.stdout)?.[1])).toBeLessThanOrEqual(64);
    expect(r.stdout).toContain('dev denied');
  });

  // Was a bug: bubblewrap's /dev has a devpts of its own, but pseudo-terminals come from one pool for the whole host
  // (kernel.pty.max less the reserve of the host's own devpts): one run opened all 3,000 of them.
  it('cannot take the host\'s pseudo-terminals', async () => {
    const r = await py(`
import os
try:
    os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)
    print('pty opened')
except OSError as e:
    print('pty denied', type(e).__name__)
`);
    expect(r.stdout).toContain('pty denied');
  });

  // Was a bug: kernel keyrings belong to the uid, not to a namespace, and the slot's uid always has a sandbox waiting:
  // a key one run added (a hidden case's input, say) was there for every later run of the slot to read.
  it('leaves nothing in the kernel keyrings for a later run of the slot', async () => {
    const one = testSandbox({ PREP_SANDBOX_UID_BASE: '311000', PREP_SANDBOX_SLOTS: '1' });
    const secret = `keyring-${MARKER}`;
    const keyctl = 'import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n';
    await runOnce(one, 'python', `${keyctl}
for ring in (-4, -5, -3):  # the user, user-session and session keyrings
    k = libc.syscall(248, b'user', b'planted', b'${secret}', ${secret.length}, ring)  # add_key
    print(ring, k, ctypes.get_errno())
    if k > 0: libc.syscall(250, 5, k, 0x3f3f3f3f)  # KEYCTL_SETPERM: anyone may read
`);
    const later = await runOnce(one, 'python', `${keyctl}
found = []
try:
    lines = open('/proc/keys').read().splitlines()
except OSError:
    lines = []
for line in lines:
    buf = ctypes.create_string_buffer(4096)
    n = libc.syscall(250, 11, int(line.split()[0], 16), buf, 4096)  # KEYCTL_READ
    found.append(line + ' ' + repr(buf.raw[:max(n, 0)]))
for ring in (-4, -5):
    k = libc.syscall(250, 10, ring, b'user', b'planted', 0)  # KEYCTL_SEARCH
    buf = ctypes.create_string_buffer(4096)
    n = libc.syscall(250, 11, k, buf, 4096) if k > 0 else -1
    found.append('search %d %r' % (ring, buf.raw[:max(n, 0)]))
print('\\n'.join(found))
`);
    expect(later.case!.verdict).toBe('COMPLETED');
    expect(later.stdout).not.toContain(secret);
  });

  // Was a bug: the program could make a user namespace of its own, be root in it, and mount a tmpfs with no size
  // (half the host's RAM) that no limit of the sandbox saw.
  it('cannot make a user namespace of its own (and mount an unbounded tmpfs in it)', async () => {
    const r = await runOnce(sandbox, 'bash', 'mkdir m\nunshare -U -r -m sh -c "mount -t tmpfs none /work/m && echo mounted"\necho "status $?"\n');
    expect(r.stdout).not.toContain('mounted');
    expect(r.stdout).not.toContain('status 0');
  });

  // Was a bug: an empty file takes no space, so the tmpfs sizes never stopped one; each costs the kernel about 1 KB,
  // and a Python run made 140,000 a second (about 3 GB of kernel memory in a 20 s time limit, outside every limit).
  it('cannot make files without end in its workdir or /tmp, nor hard links', async () => {
    for (const [dir, how] of [['/work/d', "fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644); os.close(fd)"], ['/tmp/d', "os.link('/tmp/one', p)"]] as const) {
      const r = await py(`
import os, sys
open('/tmp/one', 'w').close()
os.mkdir('${dir}')
n = 0
while True:
    p = '${dir}/%d' % n
    ${how}
    n += 1
    if n % 1000 == 0: print(n, flush=True)
`, { limits: { timeLimitMs: 3000, memoryLimitMb: 64 } });
      expect(r.case!.verdict, dir).toBe('OUTPUT_LIMIT_EXCEEDED');
      const made = Math.max(0, ...r.stdout.trim().split('\n').map(Number).filter(Number.isFinite));
      expect(made, dir).toBeLessThan(20_000);
    }
  });

  it('a symlink planted in the workdir is never followed by the host', async () => {
    const plant = `
import os
for name in ('main.py', 'main', 'main.jar', 'main.js', 'compile.cjs', 'input.txt', 'output.txt'):
    try:
        if os.path.lexists(name): os.remove(name)
        os.symlink(${JSON.stringify(canary)}, name)
    except Exception as e:
        print('could not plant', name, e)
print('planted')
`;
    const r = await py(plant);
    expect(r.stdout).toContain('planted');
    // A later run and a compile in the same slot start from a fresh workdir and touch nothing on the host.
    const again = await runOnce(sandbox, 'c', '#include <stdio.h>\nint main(void){ FILE *f = fopen("main", "r"); puts(f ? "own binary" : "none"); return 0; }\n');
    expect(again.stdout).toBe('own binary\n');
    expect(readFileSync(canary, 'utf8')).toBe('untouched\n');
  });

  it('compile-time bombs end as compile errors within the compile limits', async () => {
    const urandom = await runOnce(sandbox, 'c', '#include "/dev/urandom"\nint main(void){return 0;}\n');
    expect(urandom.compile?.ok).toBe(false);
    const levels = Array.from({ length: 9 }, (_, i) => `#define L${i + 1}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x) L${i}(x)`);
    const macros = `#define L0(x) x\n${levels.join('\n')}\nint main(void){ int a = 0; L9(a++;) return a; }\n`;
    const bomb = await runOnce(sandbox, 'c', macros);
    expect(bomb.compile?.ok).toBe(false);
    expect(bomb.compile?.output).toMatch(/time limit|too much output|memory|Killed|error/i);
    const templates = await runOnce(sandbox, 'cpp', 'template<int N> struct F { static constexpr long v = F<N-1>::v + F<N-2>::v; };\ntemplate<> struct F<1> { static constexpr long v = 1; };\ntemplate<> struct F<0> { static constexpr long v = 0; };\nint main() { return F<100000>::v; }\n');
    expect(templates.compile?.ok).toBe(false);
    expect(leftovers()).toEqual([]);
  }, 90_000);
});
