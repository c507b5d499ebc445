/*
 * proc_exec checks and loads one snapshot of the program file (issue
 * 11.9): a thread flips the file's OS/ABI byte between CloudABI's 17 and
 * 0 (which elf_check refuses) through a shared mapping, without a single
 * trapped call, while forked children exec that file.  Every exec must
 * either be refused or start an image whose own header says 17: an image
 * that sees 0 ran bytes the check refused.  Config: out (stdout), self
 * (!executable), dir (a writable directory), do (race).  The exec'd
 * program gets {do: check}.
 */
#include "check.h"
#include "rt_thread.h"

#define E(x) CLOUDABI_EVENTTYPE_##x
#define EXECS 60
#define EI_OSABI 7

extern const unsigned char __ehdr_start[];

static const unsigned char check_argdata[] = {0x06, 0x84, 0x08, 'd', 'o',
                                              0x00, 0x87, 0x08, 'c', 'h',
                                              'e',  'c',  'k',  0x00};

static volatile unsigned char *header;
static _Atomic int stop;

static void *flipper(void *arg) {
  (void)arg;
  while (!stop) {
    header[EI_OSABI] = 0;
    header[EI_OSABI] = 17;
  }
  return NULL;
}

/* A writable copy of the program in dir, opened to be executed. */
static cloudabi_fd_t copy_self(cloudabi_fd_t self, cloudabi_fd_t dir,
                               size_t *size) {
  cloudabi_filestat_t st;
  RT_EXPECT(cloudabi_sys_file_stat_fget(self, &st), 0);
  cloudabi_fd_t fd;
  RT_EXPECT(open_file(dir, "prog", CLOUDABI_O_CREAT | CLOUDABI_O_TRUNC,
                      R(FD_READ) | R(FD_WRITE) | R(FD_SEEK) | R(MEM_MAP) |
                          R(PROC_EXEC) | R(FILE_STAT_FGET),
                      0, 0, &fd),
            0);
  static char buf[65536];
  for (uint64_t off = 0; off < st.st_size;) {
    cloudabi_iovec_t iov = {buf, sizeof(buf)};
    size_t n;
    RT_EXPECT(cloudabi_sys_fd_pread(self, &iov, 1, off, &n), 0);
    RT_CHECK(n > 0);
    cloudabi_ciovec_t ciov = {buf, n};
    size_t w;
    RT_EXPECT(cloudabi_sys_fd_pwrite(fd, &ciov, 1, off, &w), 0);
    RT_CHECK(w == n);
    off += n;
  }
  *size = st.st_size;
  return fd;
}

static cloudabi_exitcode_t wait_end(cloudabi_fd_t pd) {
  cloudabi_subscription_t s = {
      .userdata = 1, .type = E(PROC_TERMINATE), .proc_terminate = {pd}};
  cloudabi_event_t ev;
  size_t n;
  RT_EXPECT(cloudabi_sys_poll(&s, &ev, 1, &n), 0);
  RT_CHECK(n == 1 && ev.type == E(PROC_TERMINATE));
  return ev.proc_terminate.signal == 0 ? ev.proc_terminate.exitcode : 255;
}

static void race(cloudabi_fd_t out, cloudabi_fd_t self, cloudabi_fd_t dir) {
  size_t size;
  cloudabi_fd_t prog = copy_self(self, dir, &size);
  void *map;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096,
                                 CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                 CLOUDABI_MAP_SHARED, prog, 0, &map),
            0);
  header = map;
  rt_thread_t *t;
  RT_CHECK(rt_thread_create(&t, flipper, NULL) == 0);
  unsigned ran = 0, refused = 0, wrong = 0;
  for (unsigned i = 0; i < EXECS; i++) {
    cloudabi_fd_t pd;
    RT_EXPECT(rt_proc_fork(&pd), 0);
    if (pd == CLOUDABI_PROCESS_CHILD) {
      cloudabi_errno_t e = cloudabi_sys_proc_exec(prog, check_argdata,
                                                  sizeof(check_argdata),
                                                  NULL, 0);
      cloudabi_sys_proc_exit(e == CLOUDABI_ENOEXEC ? 50 : 51);
    }
    switch (wait_end(pd)) {
    case 17:
      ran++;
      break;
    case 50:
      refused++;
      break;
    default:
      wrong++;
      break;
    }
    RT_EXPECT(cloudabi_sys_fd_close(pd), 0);
  }
  stop = 1;
  rt_thread_join(t);
  rt_printf(out, "exec_writer: %u wrong images\n", wrong);
  RT_CHECK(ran + refused == EXECS);
  rt_printf(rt_log_fd, "exec_writer: %u ran, %u refused\n", ran, refused);
}

void program_main(const argdata_t *ad) {
  const char *what = rt_map_str(ad, "do", "");
  if (strcmp(what, "check") == 0)
    cloudabi_sys_proc_exit(__ehdr_start[EI_OSABI] == 17 ? 17 : 99);
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  race(out, rt_map_fd(ad, "self"), rt_map_fd(ad, "dir"));
}
