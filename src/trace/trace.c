/*
 * The tracer: which calls are traced, when they started, and one line per
 * event written straight to the output (no buffering in cloudabi-run, so
 * a trace is complete up to the moment anything dies).  Decoding is
 * trace_decode.c's; spelling, trace_emit.c's.
 */
#include "trace.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/guestmem.h"
#include "host/signals.h"
#include "supervisor/sup.h"
#include "calls/syscall_table.h"
#include "trace_decode.h"
#include "trace_emit.h"
#include "trace_names.h"
#include "trap.h"

struct tracer {
  struct trace_options o;
  int fd;
  bool own_fd;
  bool broken; /* writing failed: tracing stopped */
  uint64_t t0; /* CLOCK_MONOTONIC when tracing started */
  struct temit line;
  unsigned char *scratch; /* o.strsize bytes, for strings from the guest */
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct tracer *trace_open(const struct trace_options *o, char *why,
                          size_t why_size) {
  struct tracer *t = calloc(1, sizeof(*t));
  if (t == NULL) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  t->o = *o;
  t->o.output = NULL; /* argv's; only needed here */
  t->fd = STDERR_FILENO;
  te_init(&t->line);
  t->scratch = malloc(o->strsize > 0 ? o->strsize : 1);
  if (t->scratch == NULL) {
    snprintf(why, why_size, "out of memory");
    trace_close(t);
    return NULL;
  }
  if (o->output != NULL) {
    size_t len = o->output_len != 0 ? o->output_len : strlen(o->output);
    char *path = strndup(o->output, len);
    if (path == NULL) {
      snprintf(why, why_size, "out of memory");
      trace_close(t);
      return NULL;
    }
    t->fd =
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
    if (t->fd < 0) {
      snprintf(why, why_size, "cannot open the trace file %s: %s", path,
               strerror(errno));
      free(path);
      trace_close(t);
      return NULL;
    }
    free(path);
    t->own_fd = true;
  }
  t->t0 = now_ns();
  return t;
}

void trace_close(struct tracer *t) {
  if (t == NULL)
    return;
  if (t->own_fd)
    close(t->fd);
  te_free(&t->line);
  free(t->scratch);
  free(t);
}

/* ---- lines ---- */

/* Starts a line: "[proc:tid] " and the time in text, or the first members
 * of the JSON object.  tid 0: an event of the whole process. */
static struct temit *begin(struct tracer *t, const char *type, unsigned proc,
                           pid_t tid, uint64_t at_ns) {
  struct temit *e = &t->line;
  te_reset(e, t->o.format == TRACE_JSON);
  uint64_t rel = at_ns > t->t0 ? at_ns - t->t0 : 0;
  if (e->json) {
    te_open(e, NULL, TE_OBJECT);
    te_sym(e, "type", type);
    if (proc != 0)
      te_uint(e, "proc", proc);
    else
      te_null(e, "proc");
    if (tid != 0)
      te_uint(e, "tid", (uint64_t)tid);
    if (t->o.timestamps)
      te_seconds(e, "time", rel);
    return e;
  }
  if (proc != 0)
    te_printf(e, "[%u", proc);
  else
    te_raw(e, "[?");
  if (tid != 0)
    te_printf(e, ":%d", (int)tid);
  te_raw(e, "] ");
  if (t->o.timestamps) {
    te_seconds(e, NULL, rel);
    te_raw(e, " ");
  }
  return e;
}

/* Ends the line and writes it, whole, with one write where possible. */
static void finish(struct tracer *t) {
  struct temit *e = &t->line;
  if (e->json)
    te_close(e);
  te_raw(e, "\n");
  if (t->broken || e->oom)
    return;
  const char *p = e->buf;
  size_t left = e->len;
  while (left > 0) {
    ssize_t n = write(t->fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      t->broken = true;
      fprintf(stderr,
              "cloudabi-run: writing the trace failed: %s; "
              "tracing stopped\n",
              n < 0 ? strerror(errno) : "no progress");
      return;
    }
    p += n;
    left -= (size_t)n;
  }
}

/* ---- calls ---- */

enum line_kind { LINE_DONE, LINE_UNFINISHED, LINE_RESUMED, LINE_ABANDONED };

static void call_line(struct tracer *t, unsigned proc, pid_t tid,
                      const struct trace_view *v, cloudabi_errno_t err,
                      uint64_t start, uint64_t end, enum line_kind kind,
                      bool local) {
  struct temit *e = begin(t, "call", proc, tid, start);
  if (e->json)
    te_sym(e, "name", v->d->name);
  else
    te_raw(e, v->d->name);
  trace_decode_args(e, "args", v);
  if (kind == LINE_UNFINISHED) {
    if (e->json)
      te_bool(e, "unfinished", true);
    else
      te_raw(e, " <unfinished ...>");
  } else if (kind == LINE_ABANDONED) {
    if (e->json)
      te_bool(e, "abandoned", true);
    else
      te_raw(e, " = ? <abandoned: the thread is gone>");
  } else if (v->phase == TP_NORETURN) {
    if (e->json)
      te_bool(e, "noreturn", true);
    else
      te_raw(e, " = ?");
  } else if (v->phase == TP_OK) {
    if (!e->json)
      te_raw(e, " = ");
    trace_decode_result(e, "result", v);
  } else {
    const char *name = trace_errno_name(err);
    const char *meaning = trace_errno_meaning(err);
    if (e->json) {
      te_open(e, "error", TE_STRUCT);
      if (name != NULL)
        te_sym(e, "name", name);
      else
        te_null(e, "name");
      te_uint(e, "value", err);
      te_sym(e, "message", meaning);
      te_close(e);
    } else if (name != NULL) {
      te_printf(e, " = %s (%s)", name, meaning);
    } else {
      te_printf(e, " = %u (%s)", err, meaning);
    }
  }
  if (kind == LINE_RESUMED) {
    if (e->json)
      te_bool(e, "resumed", true);
    else
      te_raw(e, " (resumed)");
  }
  if (local && e->json)
    te_bool(e, "local", true);
  if (t->o.durations && kind != LINE_UNFINISHED && kind != LINE_ABANDONED) {
    if (e->json) {
      te_seconds(e, "duration", end - start);
    } else {
      te_raw(e, " <");
      te_seconds(e, NULL, end - start);
      te_raw(e, ">");
    }
  }
  finish(t);
}

static bool read_guest(void *ctx, uint64_t addr, void *buf, size_t len) {
  return gmem_read(ctx, addr, buf, len) == 0;
}

static unsigned proc_number(const struct call *c) {
  return c->proc != NULL ? c->proc->number : 0;
}

static bool selected(const struct tracer *t, uint32_t sysno) {
  return sysno < CLOUDABI_SYSCALL_COUNT && ((t->o.select >> sysno) & 1) != 0;
}

void trace_call_enter(struct tracer *t, struct call *c) {
  if (!selected(t, c->sysno))
    return;
  /* With the tracing vDSO, mixed calls are reported by the vDSO once they
   * return, with their final result; their trapped half would say it
   * twice, and say less. */
  if (t->o.local && syscall_table[c->sysno].where == WHERE_MIXED)
    return;
  c->trace_start_ns = now_ns();
}

static void view_of(struct tracer *t, struct call *c, enum trace_phase phase,
                    struct trace_mem *mem, struct trace_view *v) {
  mem->read = read_guest;
  mem->ctx = c;
  memset(v, 0, sizeof(*v));
  v->d = &syscall_table[c->sysno];
  memcpy(v->args, c->args, sizeof(c->args));
  v->phase = phase;
  v->result = c->result;
  v->mem = mem;
  v->strsize = t->o.strsize;
  v->scratch = t->scratch;
  for (unsigned i = 0; i < 6; i++) {
    char *slot;
    size_t len;
    if (gmem_slot(c, i, &slot, &len) > 0) {
      v->slot = slot;
      v->slot_len = len;
    }
  }
}

void trace_call_done(struct tracer *t, struct call *c, cloudabi_errno_t e) {
  if (c->trace_start_ns == 0)
    return;
  struct trace_mem mem;
  struct trace_view v;
  if (e == CALL_PARKED) {
    /* c->parked: the heap copy, running again and parked again. */
    if (c->parked || t->o.failed_only)
      return;
    view_of(t, c, TP_UNFINISHED, &mem, &v);
    call_line(t, proc_number(c), (pid_t)c->tid, &v, 0, c->trace_start_ns, 0,
              LINE_UNFINISHED, false);
    return;
  }
  uint64_t start = c->trace_start_ns;
  c->trace_start_ns = 0; /* answered: nothing left to report */
  if (e == 0 && t->o.failed_only)
    return;
  view_of(t, c, e == 0 ? TP_OK : TP_FAILED, &mem, &v);
  call_line(t, proc_number(c), (pid_t)c->tid, &v, e, start, now_ns(),
            c->parked ? LINE_RESUMED : LINE_DONE, false);
}

void trace_call_abandoned(struct tracer *t, struct call *c) {
  if (c->trace_start_ns == 0)
    return;
  uint64_t start = c->trace_start_ns;
  c->trace_start_ns = 0;
  if (t->o.failed_only)
    return;
  struct trace_mem mem;
  struct trace_view v;
  view_of(t, c, TP_UNFINISHED, &mem, &v);
  call_line(t, proc_number(c), (pid_t)c->tid, &v, 0, start, now_ns(),
            LINE_ABANDONED, false);
}

cloudabi_errno_t trace_local_call(struct tracer *t, struct call *c) {
  if (!t->o.local)
    return CLOUDABI_ENOSYS; /* not the tracing vDSO: nobody asked */
  struct trap_trace_record r;
  cloudabi_errno_t e = gmem_read(c, c->args[0], &r, sizeof(r));
  if (e != 0)
    return e;
  if (r.sysno >= CLOUDABI_SYSCALL_COUNT ||
      syscall_table[r.sysno].where == WHERE_TRAP)
    return CLOUDABI_EINVAL;
  if (!selected(t, r.sysno))
    return 0;
  bool noreturn = (r.flags & TRAP_TRACE_NORETURN) != 0;
  if (t->o.failed_only && (noreturn || r.error == 0))
    return 0;
  struct trace_mem mem = {read_guest, c};
  struct trace_view v = {
      .d = &syscall_table[r.sysno],
      .phase = noreturn       ? TP_NORETURN
               : r.error == 0 ? TP_OK
                              : TP_FAILED,
      .outs_in_memory = true,
      .mem = &mem,
      .strsize = t->o.strsize,
      .scratch = t->scratch,
  };
  memcpy(v.args, r.args, sizeof(v.args));
  uint64_t end = r.end_ns >= r.start_ns ? r.end_ns : r.start_ns;
  call_line(t, proc_number(c), (pid_t)c->tid, &v, r.error, r.start_ns, end,
            LINE_DONE, true);
  return 0;
}

/* ---- signals and exits ---- */

static const struct {
  const char *name;
  size_t offset;
} reg_names[] = {
#define REG(n) {#n, offsetof(struct user_regs_struct, n)},
    REG(rip) REG(rsp) REG(rbp) REG(eflags) REG(rax) REG(rbx) REG(rcx) REG(rdx)
        REG(rsi) REG(rdi) REG(r8) REG(r9) REG(r10) REG(r11) REG(r12) REG(r13)
            REG(r14) REG(r15) REG(fs_base)
#undef REG
};
#define NREGS (sizeof(reg_names) / sizeof(reg_names[0]))

static uint64_t reg(const struct user_regs_struct *r, size_t i) {
  unsigned long long v;
  memcpy(&v, (const char *)r + reg_names[i].offset, sizeof(v));
  return v;
}

void trace_signal(struct tracer *t, unsigned proc, pid_t tid,
                  const struct trace_signal_info *si) {
  char name[32];
  signal_name_linux(si->sig, name, sizeof(name));
  const struct user_regs_struct *r = si->regs;
  struct temit *e = begin(t, "signal", proc, tid, now_ns());
  if (e->json) {
    te_sym(e, "signal", name);
    if (si->code != NULL)
      te_sym(e, "code", si->code);
    if (si->why != NULL)
      te_sym(e, "why", si->why);
    if (si->fault)
      te_hex(e, "addr", si->addr);
    if (r != NULL) {
      te_hex(e, "ip", r->rip);
      if (si->where != NULL)
        te_sym(e, "where", si->where);
      te_open(e, "regs", TE_STRUCT);
      for (size_t i = 0; i < NREGS; i++) {
        char v[24];
        snprintf(v, sizeof(v), "0x%016llx", (unsigned long long)reg(r, i));
        te_sym(e, reg_names[i].name, v);
      }
      te_close(e);
    }
    finish(t);
    return;
  }
  /* --- SIGSEGV {code=SEGV_MAPERR (address not mapped), addr=0x10,
   *     ip=0x5612... (prog+0x1234)} --- */
  te_printf(e, "--- %s {", name);
  const char *sep = "";
  if (si->code != NULL) {
    te_printf(e, "code=%s", si->code);
    if (si->why != NULL)
      te_printf(e, " (%s)", si->why);
    sep = ", ";
  }
  if (si->fault) {
    te_printf(e, "%saddr=%#llx", sep, (unsigned long long)si->addr);
    sep = ", ";
  }
  if (r != NULL) {
    te_printf(e, "%sip=%#llx", sep, (unsigned long long)r->rip);
    if (si->where != NULL)
      te_printf(e, " (%s)", si->where);
  }
  te_raw(e, "} ---");
  finish(t);
  if (r == NULL)
    return;
  /* The registers on lines of their own, four to a line. */
  for (size_t i = 0; i < NREGS; i += 4) {
    e = begin(t, "regs", proc, tid, now_ns());
    te_raw(e, "   ");
    for (size_t j = i; j < i + 4 && j < NREGS; j++)
      te_printf(e, " %s=0x%016llx", reg_names[j].name,
                (unsigned long long)reg(r, j));
    finish(t);
  }
}

void trace_forbidden(struct tracer *t, unsigned proc, pid_t tid,
                     const char *name, int nr, uint64_t ip, const char *where,
                     const uint64_t args[6]) {
  struct temit *e = begin(t, "forbidden", proc, tid, now_ns());
  if (e->json) {
    te_sym(e, "syscall", name);
    te_int(e, "nr", nr);
    te_open(e, "args", TE_LIST);
    for (int i = 0; i < 6; i++)
      te_hex(e, NULL, args[i]);
    te_close(e);
    te_hex(e, "ip", ip);
    if (where != NULL)
      te_sym(e, "where", where);
  } else {
    te_printf(e, "--- forbidden Linux system call %s", name);
    te_open(e, NULL, TE_ARGS);
    for (int i = 0; i < 6; i++)
      te_hex(e, NULL, args[i]);
    te_close(e);
    te_printf(e, " at %#llx", (unsigned long long)ip);
    if (where != NULL)
      te_printf(e, " (%s)", where);
    te_raw(e, " ---");
  }
  finish(t);
}

void trace_proc_exit(struct tracer *t, unsigned proc, int status,
                     bool forbidden) {
  char name[32];
  struct temit *e = begin(t, "exit", proc, 0, now_ns());
  if (forbidden) {
    if (e->json) {
      te_sym(e, "signal", "SIGSYS");
      te_bool(e, "forbidden", true);
    } else {
      te_raw(e, "+++ killed by SIGSYS (a forbidden system call) +++");
    }
  } else if (WIFEXITED(status)) {
    if (e->json)
      te_uint(e, "status", (unsigned)WEXITSTATUS(status));
    else
      te_printf(e, "+++ exited with %d +++", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    signal_name_linux(WTERMSIG(status), name, sizeof(name));
    if (e->json)
      te_sym(e, "signal", name);
    else
      te_printf(e, "+++ killed by %s +++", name);
  }
  finish(t);
}

const struct sup_trace_hooks trace_hooks = {
    .call_enter = trace_call_enter,
    .call_done = trace_call_done,
    .call_abandoned = trace_call_abandoned,
    .local_call = trace_local_call,
    .signal = trace_signal,
    .forbidden = trace_forbidden,
    .proc_exit = trace_proc_exit,
};
