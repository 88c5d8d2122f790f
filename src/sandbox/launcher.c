/*
 * prep-launch: the two ends of one sandboxed step.
 *
 *   prep-launch outer STATS_FD UID GID WALL_MS -- bwrap-argv...
 *     On the host. Starts bubblewrap as the slot's unprivileged uid, kills it when the wall-clock limit
 *     passes (or when the service dies), then kills and waits out anything still running under the uid.
 *     Writes {"outer":1,"wall_ms":N,"timed_out":0|1} to STATS_FD.
 *
 *   prep-launch inner STATS_FD CPU_MS AS_BYTES NPROC FSIZE_BYTES NOFILE -- program-argv...
 *     Pid 1 inside the sandbox (bwrap --as-pid-1). Runs the program as pid 2 under the rlimits (a pid 1
 *     ignores the kernel's CPU-limit signals, so the program must not be pid 1), waits for it and writes
 *     {"status":N,"signal":N,"cpu_ms":N,"rss_kb":N} to STATS_FD. It is not dumpable and keeps STATS_FD
 *     close-on-exec, so the program, which has no capabilities, can neither trace it nor forge its figures.
 *     When it exits, the kernel kills whatever else is left in the namespace.
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long arg(const char *s) { return strtoll(s, NULL, 10); }

static void limit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit r = { soft, hard };
  if (setrlimit(resource, &r) != 0) { perror("prep-launch: setrlimit"); _exit(126); }
}

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
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

static int outer(int argc, char **argv) {
  if (argc < 8 || strcmp(argv[6], "--") != 0) return 125;
  int stats_fd = (int)arg(argv[2]);
  long long uid = arg(argv[3]), gid = arg(argv[4]), wall_ms = arg(argv[5]);

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);

  long long started = now_ms();
  pid_t pid = fork();
  if (pid < 0) { perror("prep-launch: fork"); return 125; }
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    setpgid(0, 0);
    if (setpriority(PRIO_PROCESS, 0, 10) != 0) { /* best effort */ }
    limit(RLIMIT_CORE, 0, 0);
    if (become(uid, gid) != 0) { perror("prep-launch: setuid"); _exit(126); }
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a credential change cleared it */
    if (getppid() == 1) _exit(125);
    execv(argv[7], argv + 7);
    perror("prep-launch: exec");
    _exit(127);
  }

  int timed_out = 0, status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) { perror("prep-launch: waitpid"); return 125; }
    long long left = started + wall_ms - now_ms();
    if (left <= 0) {
      timed_out = 1;
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      break;
    }
    struct timespec wait = { left / 1000, (left % 1000) * 1000000 };
    sigtimedwait(&chld, NULL, &wait);
  }
  long long wall = now_ms() - started;
  /*
   * bubblewrap that exited by itself has seen its namespace's init exit, and the kernel empties a pid
   * namespace before its init is reaped: nothing is left. Killed (timeout, a signal), it may not have.
   */
  if (timed_out || !WIFEXITED(status)) reap_uid(uid, gid);
  else while (waitpid(-1, NULL, WNOHANG) > 0) {}
  dprintf(stats_fd, "{\"outer\":1,\"wall_ms\":%lld,\"timed_out\":%d}\n", wall, timed_out);
  return 0;
}

static int inner(int argc, char **argv) {
  if (argc < 10 || strcmp(argv[8], "--") != 0) return 125;
  int stats_fd = (int)arg(argv[2]);
  long long cpu_ms = arg(argv[3]), as_bytes = arg(argv[4]), nproc = arg(argv[5]), fsize = arg(argv[6]), nofile = arg(argv[7]);
  prctl(PR_SET_DUMPABLE, 0);
  fcntl(stats_fd, F_SETFD, FD_CLOEXEC);

  pid_t pid = fork();
  if (pid < 0) { perror("prep-launch: fork"); return 125; }
  if (pid == 0) {
    rlim_t cpu_s = (rlim_t)((cpu_ms + 999) / 1000);
    limit(RLIMIT_CPU, cpu_s, cpu_s + 1);
    limit(RLIMIT_AS, (rlim_t)as_bytes, (rlim_t)as_bytes);
    limit(RLIMIT_FSIZE, (rlim_t)fsize, (rlim_t)fsize);
    limit(RLIMIT_NOFILE, (rlim_t)nofile, (rlim_t)nofile);
    limit(RLIMIT_NPROC, (rlim_t)nproc, (rlim_t)nproc);
    limit(RLIMIT_CORE, 0, 0);
    execv(argv[9], argv + 9);
    perror("prep-launch: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  memset(&usage, 0, sizeof usage);
  for (;;) {
    struct rusage u;
    int s;
    pid_t done = wait4(-1, &s, 0, &u);
    if (done == pid) { status = s; usage = u; break; }
    if (done < 0 && errno != EINTR) break;
  }
  long long cpu = (long long)usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000
                + (long long)usage.ru_stime.tv_sec * 1000 + usage.ru_stime.tv_usec / 1000;
  dprintf(stats_fd, "{\"status\":%d,\"signal\":%d,\"cpu_ms\":%lld,\"rss_kb\":%ld}\n",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0, cpu, usage.ru_maxrss);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "outer") == 0) return outer(argc, argv);
  if (argc > 1 && strcmp(argv[1], "inner") == 0) return inner(argc, argv);
  fprintf(stderr, "usage: prep-launch outer STATS_FD UID GID WALL_MS -- argv... | inner STATS_FD CPU_MS AS_BYTES NPROC FSIZE_BYTES NOFILE -- argv...\n");
  return 125;
}
