/*
 * prep-launch: the two ends of one sandboxed step.
 *
 *   prep-launch outer STATS_FD UID GID -- bwrap-argv...
 *     On the host. Starts bubblewrap as the slot's unprivileged uid and waits. SIGUSR1 from the service means
 *     the step's wall-clock time is up: it kills the sandbox. It dies with the service (PDEATHSIG). Killed
 *     sandboxes are followed by killing, and waiting out, anything still running under the uid.
 *     Writes {"outer":1,"timed_out":0|1} to STATS_FD.
 *
 *   prep-launch inner STATS_FD [WRITABLE_DIR...]
 *     Pid 1 inside the sandbox (bwrap --as-pid-1). The sandbox is made ahead of time ("warm"); the step arrives
 *     on stdin as a job (see read_job): limits, files to write into the workdir, argv. It writes the files,
 *     runs the program as pid 2 under the rlimits (a pid 1 would ignore the kernel's CPU-limit signal) with
 *     the rest of stdin as the program's stdin (and a seccomp filter, see deny_syscalls), waits for it, and writes
 *     {"status":N,"signal":N,"cpu_ms":N,"rss_kb":N} to STATS_FD. It is not dumpable and keeps STATS_FD
 *     close-on-exec, so the program, which has no capabilities, can neither trace it nor forge its figures.
 *     The limits on CPU time and resident memory are for all the step's processes together (rlimits are per
 *     process): while the program runs, every process of the namespace is sampled each few milliseconds and all
 *     are killed once their sum passes a limit; when the program ends, whatever it left is killed and reaped,
 *     and cpu_ms is the CPU time of every process, rss_kb the largest sum of resident memory seen, data queued in
 *     the namespace's sockets included (see socket_bytes), (or the largest
 *     single process's peak, if higher). The files (inodes) on the WRITABLE_DIRs' filesystems are counted too: a
 *     tmpfs's size bounds its bytes, but an empty file (or a hard link) costs the kernel memory and no bytes; past
 *     MAX_FILES all are killed and the report says "files_exceeded":1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long arg(const char *s) { return strtoll(s, NULL, 10); }

static void limit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit r = { soft, hard };
  if (setrlimit(resource, &r) != 0) { perror("prep-launch: setrlimit"); _exit(126); }
}

static int become(long long uid, long long gid) {
  if (gid >= 0 && (setgroups(0, NULL) != 0 || setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0)) return -1;
  if (uid >= 0 && setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) return -1;
  return 0;
}

/* Whether any process (a zombie included) runs under uid: /proc/<pid> belongs to its process's uid. */
static int uid_has_processes(long long uid) {
  DIR *proc = opendir("/proc");
  if (!proc) return 0;
  struct dirent *entry;
  char path[64];
  struct stat st;
  int found = 0;
  while (!found && (entry = readdir(proc)) != NULL) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%.32s", entry->d_name);
    if (stat(path, &st) == 0 && (long long)st.st_uid == uid) found = 1;
  }
  closedir(proc);
  return found;
}

/* Kills whatever is left under the slot's uid and waits until it is gone (orphans come to us: subreaper). */
static void reap_uid(long long uid, long long gid) {
  for (int round = 0; round < 400; round++) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    if (uid < 0 || !uid_has_processes(uid)) return;
    pid_t killer = fork();
    if (killer == 0) {
      if (become(uid, gid) != 0) _exit(2);
      kill(-1, SIGKILL); /* every process this uid may signal: its own */
      _exit(0);
    }
    if (killer < 0) return;
    usleep(2500);
  }
}

/*
 * Closes every descriptor above `last`: the service may have been started holding some not close-on-exec (a log file,
 * a supervisor's socket), and each would go on through bubblewrap into the program, readable as the slot's uid.
 */
static void close_above(int last) {
#ifdef __NR_close_range
  if (syscall(__NR_close_range, (unsigned)last + 1, ~0U, 0) == 0) return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = last + 1; fd < (max > 0 && max < 1048576 ? max : 1048576); fd++) close((int)fd);
}

static int outer(int argc, char **argv) {
  if (argc < 7 || strcmp(argv[5], "--") != 0) return 125;
  int stats_fd = (int)arg(argv[2]);
  long long uid = arg(argv[3]), gid = arg(argv[4]);
  /* stdin, stdout, stderr, the stats pipe, the artifact pipe, the inner launcher's image (runner.ts): no more. */
  close_above(5);

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t waitset, old;
  sigemptyset(&waitset);
  sigaddset(&waitset, SIGCHLD);
  sigaddset(&waitset, SIGUSR1);
  sigprocmask(SIG_BLOCK, &waitset, &old);

  pid_t pid = fork();
  if (pid < 0) { perror("prep-launch: fork"); return 125; }
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    setpgid(0, 0);
    limit(RLIMIT_CORE, 0, 0);
    if (become(uid, gid) != 0) { perror("prep-launch: setuid"); _exit(126); }
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a credential change cleared it */
    if (getppid() == 1) _exit(125);
    execv(argv[6], argv + 6);
    perror("prep-launch: exec");
    _exit(127);
  }

  int timed_out = 0, status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) { perror("prep-launch: waitpid"); return 125; }
    siginfo_t info;
    if (sigwaitinfo(&waitset, &info) == SIGUSR1) {
      timed_out = 1;
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      break;
    }
  }
  /* Killed (timeout, a signal), the sandbox may leave processes dying; a daemon may be caught mid-exit. */
  reap_uid(uid, gid);
  dprintf(stats_fd, "{\"outer\":1,\"timed_out\":%d}\n", timed_out);
  return 0;
}

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "prep-launch: name this architecture's AUDIT_ARCH for the seccomp filter"
#endif

/*
 * The program gets EPERM from:
 *   add_key, request_key, keyctl: the kernel's keyrings belong to the uid, not to a namespace, and a slot's uid
 *     always has a sandbox waiting: a key one run added would be there for the slot's later runs to read;
 *   memfd_create, shmget: their pages are shared memory on no mounted filesystem (so no tmpfs size bounds them) and,
 *     unmapped, in no process's resident memory;
 *   io_uring_setup, io_uring_enter, io_uring_register: a large kernel surface no program here needs (container
 *     runtimes' default profiles deny it too), whose queued work runs in kernel threads outside the step's accounting;
 *   perf_event_open, userfaultfd: open to any uid on common settings (perf_event_paranoid 2, user-mode-only faults),
 *     two of the kernel's most used exploit primitives (a side channel; a race window held open), needed by no program
 *     here (container runtimes deny both);
 *   every syscall of another ABI (x32, i386 through int 0x80), whose numbers differ;
 *   socket of any family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK, the ones the network namespace isolates:
 *     AF_VSOCK is in no namespace, and on a virtual machine it reaches the hypervisor host's services.
 * Each check is followed by its own return, so no jump offset has to be counted by hand.
 */
#define DENY_ERRNO BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), DENY_ERRNO
#define ALLOW_ARG(value) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), 0, 1), ALLOW

static void deny_syscalls(void) {
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
    DENY_ERRNO,
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* x32 */
    DENY_ERRNO,
    DENY_NR(__NR_add_key),
    DENY_NR(__NR_request_key),
    DENY_NR(__NR_keyctl),
    DENY_NR(__NR_memfd_create),
    DENY_NR(__NR_shmget),
    DENY_NR(__NR_io_uring_setup),
    DENY_NR(__NR_io_uring_enter),
    DENY_NR(__NR_io_uring_register),
    DENY_NR(__NR_perf_event_open),
    DENY_NR(__NR_userfaultfd),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0), /* not socket: allowed */
    ALLOW,
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])), /* the family: an int, the low word (both ABIs here are little-endian) */
    ALLOW_ARG(AF_UNIX),
    ALLOW_ARG(AF_INET),
    ALLOW_ARG(AF_INET6),
    ALLOW_ARG(AF_NETLINK),
    DENY_ERRNO,
  };
  struct sock_fprog program = { sizeof filter / sizeof filter[0], filter };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    perror("prep-launch: seccomp");
    _exit(126);
  }
}

/* Reads exactly n bytes from fd (0 on success). */
static int read_exact(int fd, char *buf, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, buf, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

/* One NUL-terminated field of the job, byte by byte (never reading past it: the rest is the program's stdin). */
static char *read_field(void) {
  size_t cap = 64, len = 0;
  char *s = malloc(cap);
  for (;;) {
    char c;
    if (!s || read_exact(0, &c, 1) != 0) { free(s); return NULL; }
    if (len + 1 >= cap) { cap *= 2; if (len > 65536 || !(s = realloc(s, cap))) return NULL; }
    s[len++] = c;
    if (c == '\0') return s;
  }
}

static long long read_number(void) {
  char *s = read_field();
  long long v = s ? strtoll(s, NULL, 10) : -1;
  free(s);
  return v;
}

static int safe_name(const char *name) {
  if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return 0;
  for (const char *p = name; *p; p++) {
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')) return 0;
  }
  return 1;
}

/*
 * The job, NUL-separated: "PREP2", cpu_ms, as_bytes, mem_bytes (resident, all processes; 0: none), nproc,
 * fsize_bytes, nofile, file count, then per file name, mode (octal), size and the bytes, then argc and argv.
 */
struct job { long long cpu_ms, as_bytes, mem_bytes, nproc, fsize, nofile; char **argv; };

static int read_job(struct job *job) {
  char *magic = read_field();
  if (!magic || strcmp(magic, "PREP2") != 0) return -1;
  free(magic);
  job->cpu_ms = read_number(); job->as_bytes = read_number(); job->mem_bytes = read_number(); job->nproc = read_number();
  job->fsize = read_number(); job->nofile = read_number();
  long long files = read_number();
  if (files < 0 || files > 16) return -1;
  for (long long i = 0; i < files; i++) {
    char *name = read_field();
    long long mode = 0, size = 0;
    char *m = read_field();
    if (m) mode = strtoll(m, NULL, 8);
    free(m);
    size = read_number();
    if (!name || !safe_name(name) || size < 0 || size > (256LL << 20)) return -1;
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)(mode & 0755));
    if (fd < 0) { perror("prep-launch: create"); return -1; }
    char buf[65536];
    while (size > 0) {
      size_t n = size > (long long)sizeof buf ? sizeof buf : (size_t)size;
      if (read_exact(0, buf, n) != 0) return -1;
      for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w < 0) { if (errno == EINTR) continue; perror("prep-launch: write"); return -1; }
        off += (size_t)w;
      }
      size -= (long long)n;
    }
    close(fd);
    free(name);
  }
  long long argc = read_number();
  if (argc < 1 || argc > 64) return -1;
  job->argv = calloc((size_t)argc + 1, sizeof(char *));
  for (long long i = 0; i < argc; i++) if (!(job->argv[i] = read_field())) return -1;
  return 0;
}

/* The live processes of the namespace (all but pid 1, this launcher): CPU time (ms) and resident memory (KB). */
struct usage_sample { long long cpu_ms, rss_kb; };

static struct usage_sample sample_namespace(void) {
  struct usage_sample total = { 0, 0 };
  static long page_kb = 0, ticks = 0;
  if (!page_kb) page_kb = sysconf(_SC_PAGESIZE) / 1024;
  if (!ticks) ticks = sysconf(_SC_CLK_TCK);
  DIR *proc = opendir("/proc");
  if (!proc) return total;
  struct dirent *entry;
  char path[64], buf[1024];
  while ((entry = readdir(proc)) != NULL) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || strcmp(entry->d_name, "1") == 0) continue;
    snprintf(path, sizeof path, "/proc/%.32s/stat", entry->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = 0;
    /* After the command's closing parenthesis (a command may hold spaces and parentheses): field 3 onwards. */
    char *rest = strrchr(buf, ')');
    if (!rest) continue;
    unsigned long long utime = 0, stime = 0;
    long long cutime = 0, cstime = 0;
    long rss_pages = 0;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority
       nice threads itrealvalue starttime vsize rss. cutime and cstime: the children it waited for, gone from /proc
       (their time is counted once: in pid 1's RUSAGE_CHILDREN only when this process is reaped in turn). */
    if (sscanf(rest + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld %*d %*d %*d %*d %*u %*u %ld",
               &utime, &stime, &cutime, &cstime, &rss_pages) != 5) continue;
    if (cutime < 0) cutime = 0;
    if (cstime < 0) cstime = 0;
    total.cpu_ms += (long long)((utime + stime + (unsigned long long)cutime + (unsigned long long)cstime) * 1000 / (unsigned long long)ticks);
    total.rss_kb += rss_pages * page_kb;
  }
  closedir(proc);
  return total;
}

/* Files (inodes, hard links included) in use on the sandbox's writable filesystems, all together. */
#define MAX_FILES 10000

static long long files_in_use(char **dirs, int count) {
  long long used = 0;
  for (int i = 0; i < count; i++) {
    struct statfs fs;
    if (statfs(dirs[i], &fs) == 0 && fs.f_files >= fs.f_ffree) used += (long long)(fs.f_files - fs.f_ffree);
  }
  return used;
}

/*
 * Bytes queued in the sockets of the sandbox's network namespace (its own: nothing else is in it), asked of the
 * kernel's sock_diag: data written into a socket is kernel memory that no process's resident memory shows, and
 * 64 processes of 128 socket pairs each could hold gigabytes. -1 when the kernel cannot say.
 */
static long long dump_socket_bytes(int nl, int family, int protocol) {
  struct { struct nlmsghdr nlh; union { struct unix_diag_req unix_req; struct inet_diag_req_v2 inet_req; } r; } request;
  memset(&request, 0, sizeof request);
  request.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  request.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  if (family == AF_UNIX) {
    request.nlh.nlmsg_len = NLMSG_LENGTH(sizeof request.r.unix_req);
    request.r.unix_req.sdiag_family = AF_UNIX;
    request.r.unix_req.udiag_states = (__u32)-1;
    request.r.unix_req.udiag_show = UDIAG_SHOW_MEMINFO;
  } else {
    request.nlh.nlmsg_len = NLMSG_LENGTH(sizeof request.r.inet_req);
    request.r.inet_req.sdiag_family = (__u8)family;
    request.r.inet_req.sdiag_protocol = (__u8)protocol;
    request.r.inet_req.idiag_states = (__u32)-1;
    request.r.inet_req.idiag_ext = 1 << (INET_DIAG_SKMEMINFO - 1);
  }
  if (send(nl, &request, request.nlh.nlmsg_len, 0) < 0) return -1;
  long long bytes = 0;
  static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
  for (;;) {
    ssize_t n = recv(nl, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_type == NLMSG_DONE) return bytes;
      if (h->nlmsg_type == NLMSG_ERROR) return -1;
      size_t header = family == AF_UNIX ? sizeof(struct unix_diag_msg) : sizeof(struct inet_diag_msg);
      int meminfo = family == AF_UNIX ? UNIX_DIAG_MEMINFO : INET_DIAG_SKMEMINFO;
      if (h->nlmsg_len < NLMSG_LENGTH(header)) continue;
      struct rtattr *a = (struct rtattr *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(header));
      int left = (int)(h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(header)));
      for (; RTA_OK(a, left); a = RTA_NEXT(a, left)) {
        if (a->rta_type != meminfo || RTA_PAYLOAD(a) < sizeof(__u32) * (SK_MEMINFO_WMEM_QUEUED + 1)) continue;
        const __u32 *m = (const __u32 *)RTA_DATA(a);
        bytes += (long long)m[SK_MEMINFO_RMEM_ALLOC] + m[SK_MEMINFO_WMEM_ALLOC] + m[SK_MEMINFO_WMEM_QUEUED];
      }
    }
  }
}

static long long socket_bytes(void) {
  static int nl = -2;
  if (nl == -2) nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return 0;
  static const int kinds[][2] = { { AF_UNIX, 0 }, { AF_INET, IPPROTO_TCP }, { AF_INET6, IPPROTO_TCP }, { AF_INET, IPPROTO_UDP }, { AF_INET6, IPPROTO_UDP } };
  long long total = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    long long b = dump_socket_bytes(nl, kinds[i][0], kinds[i][1]);
    if (b > 0) total += b;
  }
  return total;
}

static long long ms_of(struct timeval t) { return (long long)t.tv_sec * 1000 + t.tv_usec / 1000; }

static int inner(int argc, char **argv) {
  if (argc < 3) return 125;
  int stats_fd = (int)arg(argv[2]);
  prctl(PR_SET_DUMPABLE, 0);
  fcntl(stats_fd, F_SETFD, FD_CLOEXEC);
  struct job job;
  if (read_job(&job) != 0) { fprintf(stderr, "prep-launch: bad job\n"); return 125; }

  /* SIGCHLD is taken with sigtimedwait, which wakes at once when a process ends and otherwise to sample. */
  sigset_t chld, before;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &before);
  pid_t pid = fork();
  if (pid < 0) { perror("prep-launch: fork"); return 125; }
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &before, NULL);
    rlim_t cpu_s = (rlim_t)((job.cpu_ms + 999) / 1000);
    limit(RLIMIT_CPU, cpu_s, cpu_s + 1);
    limit(RLIMIT_AS, (rlim_t)job.as_bytes, (rlim_t)job.as_bytes);
    limit(RLIMIT_FSIZE, (rlim_t)job.fsize, (rlim_t)job.fsize);
    limit(RLIMIT_NOFILE, (rlim_t)job.nofile, (rlim_t)job.nofile);
    limit(RLIMIT_NPROC, (rlim_t)job.nproc, (rlim_t)job.nproc);
    limit(RLIMIT_CORE, 0, 0);
    /* Below this launcher (nice 0), whose sampling must not wait behind the program's busy processes. */
    if (setpriority(PRIO_PROCESS, 0, 10) != 0) { /* best effort */ }
    deny_syscalls();
    execv(job.argv[0], job.argv);
    perror("prep-launch: exec");
    _exit(127);
  }
  int status = 0, ended = 0, killed = 0, files_exceeded = 0;
  long long peak_rss_kb = 0;
  const struct timespec every = { 0, 5 * 1000 * 1000 };
  while (!ended) {
    sigtimedwait(&chld, NULL, &every);
    for (;;) {
      int s;
      pid_t done = waitpid(-1, &s, WNOHANG);
      if (done <= 0) break;
      if (done == pid) { status = s; ended = 1; }
    }
    if (ended) break;
    /* The processes still running, with the CPU time of those already reaped. */
    struct usage_sample now = sample_namespace();
    struct rusage gone;
    getrusage(RUSAGE_CHILDREN, &gone);
    long long cpu_ms = now.cpu_ms + ms_of(gone.ru_utime) + ms_of(gone.ru_stime);
    now.rss_kb += socket_bytes() / 1024;
    if (now.rss_kb > peak_rss_kb) peak_rss_kb = now.rss_kb;
    if (!killed && files_in_use(argv + 3, argc - 3) > MAX_FILES) files_exceeded = 1;
    if (!killed && ((job.mem_bytes > 0 && now.rss_kb * 1024 > job.mem_bytes) || cpu_ms > job.cpu_ms || files_exceeded)) {
      kill(-1, SIGKILL);
      killed = 1;
    }
  }
  /* What the program left behind goes, and is reaped, so its CPU time is counted too. */
  kill(-1, SIGKILL);
  while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {}
  struct rusage usage;
  getrusage(RUSAGE_CHILDREN, &usage);
  long long cpu = ms_of(usage.ru_utime) + ms_of(usage.ru_stime);
  long long rss_kb = usage.ru_maxrss > peak_rss_kb ? usage.ru_maxrss : peak_rss_kb;
  dprintf(stats_fd, "{\"status\":%d,\"signal\":%d,\"cpu_ms\":%lld,\"rss_kb\":%lld,\"files_exceeded\":%d}\n",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0, cpu, rss_kb, files_exceeded);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "outer") == 0) return outer(argc, argv);
  if (argc > 1 && strcmp(argv[1], "inner") == 0) return inner(argc, argv);
  fprintf(stderr, "usage: prep-launch outer STATS_FD UID GID -- bwrap-argv... | inner STATS_FD (job on stdin)\n");
  return 125;
}
