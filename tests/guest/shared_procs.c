/*
 * SCOPE_SHARED locks and condition variables between two processes: a
 * shared memory object (fd_create1) mapped separately by a parent and the
 * child it forked, each with two threads incrementing one counter under a
 * shared mutex, then a ping-pong on a shared condition variable.  The
 * parent waits for the child with poll(PROC_TERMINATE) and checks its exit.
 */
#include "rt.h"
#include "rt_thread.h"

#define ROUNDS 20000
#define PINGS 200

struct shared {
  rt_lock_t lock;
  rt_cond_t cond;
  uint64_t counter;
  unsigned turn; /* 0: parent's, 1: child's */
  unsigned pings;
};

static struct shared *map_shared(cloudabi_fd_t shm) {
  void *p;
  RT_EXPECT(cloudabi_sys_mem_map(NULL, 4096,
                                 CLOUDABI_PROT_READ | CLOUDABI_PROT_WRITE,
                                 CLOUDABI_MAP_SHARED, shm, 0, &p),
            0);
  return p;
}

static void *count(void *arg) {
  struct shared *s = arg;
  for (int i = 0; i < ROUNDS; i++) {
    rt_lock_wrlock(&s->lock);
    s->counter++;
    rt_lock_unlock(&s->lock);
  }
  return NULL;
}

static void work(struct shared *s, unsigned me) {
  rt_thread_t *t;
  RT_EXPECT(rt_thread_create(&t, count, s), 0);
  count(s);
  rt_thread_join(t);
  for (;;) {
    rt_lock_wrlock(&s->lock);
    while (s->turn != me && s->pings < PINGS)
      rt_cond_wait(&s->cond, &s->lock);
    if (s->pings >= PINGS) {
      rt_lock_unlock(&s->lock);
      return;
    }
    s->pings++;
    s->turn = 1 - me;
    rt_cond_broadcast(&s->cond);
    rt_lock_unlock(&s->lock);
  }
}

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  rt_log_fd = out;
  cloudabi_fd_t shm;
  RT_EXPECT(cloudabi_sys_fd_create1(CLOUDABI_FILETYPE_SHARED_MEMORY, &shm), 0);
  cloudabi_filestat_t fs = {.st_size = 4096};
  RT_EXPECT(cloudabi_sys_file_stat_fput(shm, &fs, CLOUDABI_FILESTAT_SIZE), 0);
  struct shared *s = map_shared(shm);
  rt_lock_init(&s->lock, CLOUDABI_SCOPE_SHARED);
  rt_cond_init(&s->cond, CLOUDABI_SCOPE_SHARED);

  cloudabi_fd_t pd;
  RT_EXPECT(rt_proc_fork(&pd), 0);
  if (pd == CLOUDABI_PROCESS_CHILD) {
    /* Its own mapping of the same object, at another address. */
    struct shared *c = map_shared(shm);
    RT_CHECK(c != s);
    work(c, 1);
    cloudabi_sys_proc_exit(7);
  }
  work(s, 0);

  cloudabi_subscription_t sub = {.userdata = 1,
                                 .type = CLOUDABI_EVENTTYPE_PROC_TERMINATE,
                                 .proc_terminate = {pd}};
  cloudabi_event_t ev;
  size_t n;
  RT_EXPECT(cloudabi_sys_poll(&sub, &ev, 1, &n), 0);
  RT_CHECK(n == 1 && ev.error == 0 && ev.userdata == 1);
  RT_CHECK(ev.proc_terminate.signal == 0 && ev.proc_terminate.exitcode == 7);
  RT_CHECK(s->counter == 4 * ROUNDS);
  RT_CHECK(s->pings == PINGS);
  rt_printf(out, "shared_procs: counter %lu, %u pings, child exited %u\n",
            (unsigned long)s->counter, s->pings, ev.proc_terminate.exitcode);
}
