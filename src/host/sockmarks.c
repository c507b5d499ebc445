/* Message boundaries in a stream; see sockmarks.h. */
#include "sockmarks.h"

#include <stdlib.h>
#include <string.h>

bool sockmarks_push(struct sockmarks *m, uint64_t pos) {
  if (m->n > 0 && m->at[m->n - 1] >= pos)
    return true; /* a message there already; they cannot go back */
  if (m->head > 0 && m->head == m->n)
    m->head = m->n = 0;
  if (m->n - m->head >= SOCKMARKS_MAX)
    return false;
  if (m->n == m->cap) {
    if (m->head > 0) {
      memmove(m->at, m->at + m->head, (m->n - m->head) * sizeof(*m->at));
      m->n -= m->head;
      m->head = 0;
    } else {
      size_t cap = m->cap == 0 ? 8 : 2 * m->cap;
      uint64_t *at = realloc(m->at, cap * sizeof(*at));
      if (at == NULL)
        return false;
      m->at = at;
      m->cap = cap;
    }
  }
  m->at[m->n++] = pos;
  return true;
}

void sockmarks_pop_newest(struct sockmarks *m) {
  if (m->n > m->head)
    m->n--;
}

size_t sockmarks_limit(struct sockmarks *m, uint64_t rx, size_t want) {
  while (m->head < m->n && m->at[m->head] < rx)
    m->head++;
  /* A message right here is read whole (Linux stops after it). */
  if (m->head == m->n || m->at[m->head] == rx)
    return want;
  uint64_t left = m->at[m->head] - rx;
  return left < want ? (size_t)left : want;
}

void sockmarks_free(struct sockmarks *m) {
  free(m->at);
  memset(m, 0, sizeof(*m));
}
