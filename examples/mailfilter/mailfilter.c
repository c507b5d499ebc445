/*
 * A spam-filter-like program: reads one message on `message`, scores it
 * against the rules in `rules_file` beneath the directory `rules`, and
 * writes the verdict to `verdict`:
 *
 *   verdict: spam
 *   score: 9 (threshold 5)
 *   rule: +3 subject "free money"
 *   ...
 *
 * It exits 0 for ham, 1 for spam and 2 when it cannot decide (unreadable
 * or malformed rules, with an "error:" line).  It holds nothing else: a
 * message crafted to exploit a parser bug here can at most lie about its
 * own verdict.
 *
 * A rule is a line "SCORE WHERE TEXT": WHERE is subject, from, header (any
 * header line) or body; TEXT matches anywhere in it, ignoring case; '#'
 * starts a comment line.
 */
#include "rt.h"

#define MESSAGE_MAX (1 << 20) /* read this much of a message at most */
#define RULES_MAX 65536
#define RULES_COUNT 256

enum where { SUBJECT, FROM, HEADER, BODY };

struct rule {
  int score;
  enum where where;
  const char *text;
  size_t len;
};

struct text {
  const char *p;
  size_t len;
};

static char message[MESSAGE_MAX];
static char rules_buf[RULES_MAX];
static cloudabi_fd_t verdict;

static _Noreturn void error(const char *what, size_t line) {
  if (line != 0)
    rt_printf(verdict, "error: %s on line %zu of the rules\n", what, line);
  else
    rt_printf(verdict, "error: %s\n", what);
  rt_exit(2);
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool starts_nocase(const char *p, size_t n, const char *prefix) {
  size_t k = strlen(prefix);
  if (n < k)
    return false;
  for (size_t i = 0; i < k; i++)
    if (lower(p[i]) != lower(prefix[i]))
      return false;
  return true;
}

static bool contains_nocase(struct text hay, const char *needle, size_t n) {
  if (n == 0)
    return true;
  for (size_t i = 0; i + n <= hay.len; i++) {
    size_t k = 0;
    while (k < n && lower(hay.p[i + k]) == lower(needle[k]))
      k++;
    if (k == n)
      return true;
  }
  return false;
}

/* Reads fd to its end or to size bytes; the length read. */
static size_t read_all(cloudabi_fd_t fd, char *buf, size_t size) {
  size_t have = 0;
  while (have < size) {
    cloudabi_iovec_t iov = {buf + have, size - have};
    size_t n;
    cloudabi_errno_t e = cloudabi_sys_fd_read(fd, &iov, 1, &n);
    if (e != 0)
      error(rt_strerror(e), 0);
    if (n == 0)
      break;
    have += n;
  }
  return have;
}

/* Parses the rule file's lines into rules[]; their number. */
static size_t parse_rules(char *buf, size_t len, struct rule *rules) {
  size_t n = 0, line = 0;
  for (size_t i = 0; i < len;) {
    size_t e = i;
    while (e < len && buf[e] != '\n')
      e++;
    line++;
    const char *p = buf + i, *end = buf + e;
    i = e + 1;
    while (p < end && (*p == ' ' || *p == '\t'))
      p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
      end--;
    if (p == end || *p == '#')
      continue;
    if (n == RULES_COUNT)
      error("too many rules", line);
    struct rule *r = &rules[n];
    bool negative = *p == '-';
    if (*p == '-' || *p == '+')
      p++;
    if (p == end || *p < '0' || *p > '9')
      error("a rule starts with its score", line);
    int score = 0;
    while (p < end && *p >= '0' && *p <= '9' && score < 1000)
      score = score * 10 + (*p++ - '0');
    r->score = negative ? -score : score;
    while (p < end && *p == ' ')
      p++;
    static const struct {
      const char *name;
      enum where where;
    } places[] = {{"subject ", SUBJECT}, {"from ", FROM},
                  {"header ", HEADER},   {"body ", BODY}};
    size_t k = 0;
    while (k < 4 && !starts_nocase(p, (size_t)(end - p), places[k].name))
      k++;
    if (k == 4)
      error("expected subject, from, header or body after the score", line);
    r->where = places[k].where;
    p += strlen(places[k].name);
    while (p < end && *p == ' ')
      p++;
    if (p == end)
      error("a rule needs text to match", line);
    r->text = p;
    r->len = (size_t)(end - p);
    n++;
  }
  return n;
}

/* The value of the first header named name (with its colon), or empty. */
static struct text header_value(struct text head, const char *name) {
  for (size_t i = 0; i < head.len;) {
    size_t e = i;
    while (e < head.len && head.p[e] != '\n')
      e++;
    if (starts_nocase(head.p + i, e - i, name))
      return (struct text){head.p + i + strlen(name),
                           e - i - strlen(name)};
    i = e + 1;
  }
  return (struct text){"", 0};
}

void program_main(const argdata_t *ad) {
  verdict = rt_map_fd(ad, "verdict");
  cloudabi_fd_t in = rt_map_fd(ad, "message");
  cloudabi_fd_t dir = rt_map_fd(ad, "rules");
  const char *name = rt_map_str(ad, "rules_file", "spam.rules");
  int threshold = (int)rt_map_int(ad, "threshold", 5);

  cloudabi_lookup_t at = {dir, 0};
  cloudabi_fdstat_t want = {.fs_rights_base = CLOUDABI_RIGHT_FD_READ};
  cloudabi_fd_t rf;
  cloudabi_errno_t e =
      cloudabi_sys_file_open(at, name, strlen(name), 0, &want, &rf);
  if (e != 0) {
    rt_printf(verdict, "error: rules %s: %s\n", name, rt_strerror(e));
    rt_exit(2);
  }
  size_t rules_len = read_all(rf, rules_buf, sizeof(rules_buf));
  cloudabi_sys_fd_close(rf);
  static struct rule rules[RULES_COUNT];
  size_t nrules = parse_rules(rules_buf, rules_len, rules);

  size_t len = read_all(in, message, sizeof(message));
  /* Headers end at the first empty line. */
  struct text head = {message, len}, body = {message + len, 0};
  for (size_t i = 0; i + 1 < len; i++) {
    if (message[i] == '\n' &&
        (message[i + 1] == '\n' ||
         (message[i + 1] == '\r' && i + 2 < len && message[i + 2] == '\n'))) {
      head.len = i + 1;
      size_t start = i + (message[i + 1] == '\n' ? 2 : 3);
      body = (struct text){message + start, len - start};
      break;
    }
  }
  struct text subject = header_value(head, "subject:");
  struct text from = header_value(head, "from:");

  int score = 0;
  bool matched[RULES_COUNT];
  for (size_t i = 0; i < nrules; i++) {
    const struct rule *r = &rules[i];
    struct text where = r->where == SUBJECT ? subject
                        : r->where == FROM  ? from
                        : r->where == HEADER ? head
                                             : body;
    matched[i] = contains_nocase(where, r->text, r->len);
    if (matched[i])
      score += r->score;
  }
  bool spam = score >= threshold;
  rt_printf(verdict, "verdict: %s\nscore: %d (threshold %d)\n",
            spam ? "spam" : "ham", score, threshold);
  static const char *const names[] = {"subject", "from", "header", "body"};
  for (size_t i = 0; i < nrules; i++) {
    if (!matched[i])
      continue;
    const struct rule *r = &rules[i];
    rt_printf(verdict, "rule: %c%d %s \"", r->score < 0 ? '-' : '+',
              r->score < 0 ? -r->score : r->score, names[r->where]);
    rt_write_all(verdict, r->text, r->len);
    rt_write_all(verdict, "\"\n", 2);
  }
  rt_exit(spam ? 1 : 0);
}
