/* The JSON reader; see json.h.  Recursive descent over a bounded depth. */
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
  const char *p, *end;
  char *why;
  size_t why_size;
  const char *start;
};

static bool fail(struct reader *r, const char *what) {
  snprintf(r->why, r->why_size, "%s at byte %zu", what,
           (size_t)(r->p - r->start));
  return false;
}

static void skip_ws(struct reader *r) {
  while (r->p < r->end &&
         (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
    r->p++;
}

static bool literal(struct reader *r, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
    return fail(r, "unexpected text");
  r->p += n;
  return true;
}

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

static size_t put_utf8(char *o, uint32_t c) {
  if (c < 0x80) {
    o[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    o[0] = (char)(0xc0 | (c >> 6));
    o[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    o[0] = (char)(0xe0 | (c >> 12));
    o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    o[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (c >> 18));
  o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
  o[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* A string after its opening quote; *out malloc'ed.  Escapes never grow
 * the text (\uXXXX is 6 bytes for at most 3, a pair 12 for 4). */
static bool string(struct reader *r, char **out) {
  const char *q = r->p;
  while (q < r->end && *q != '"')
    q += *q == '\\' && q + 1 < r->end ? 2 : 1;
  if (q >= r->end)
    return fail(r, "unterminated string");
  char *s = malloc((size_t)(q - r->p) + 1);
  if (s == NULL)
    return fail(r, "out of memory");
  size_t n = 0;
  while (*r->p != '"') {
    unsigned char c = (unsigned char)*r->p++;
    if (c < 0x20) {
      free(s);
      return fail(r, "control character in a string");
    }
    if (c != '\\') {
      s[n++] = (char)c;
      continue;
    }
    char e = *r->p++;
    const char *plain = strchr("\"\\/bfnrt", e);
    if (e != '\0' && plain != NULL) {
      s[n++] = "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
      continue;
    }
    int u = e == 'u' && r->end - r->p >= 4 ? hex4(r->p) : -1;
    if (u <= 0) {
      free(s);
      return fail(r, u == 0 ? "NUL in a string" : "bad escape in a string");
    }
    r->p += 4;
    uint32_t cp = (uint32_t)u;
    if (cp >= 0xd800 && cp < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' &&
        r->p[1] == 'u') {
      int lo = hex4(r->p + 2);
      if (lo >= 0xdc00 && lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
        r->p += 6;
      }
    }
    if (cp >= 0xd800 && cp < 0xe000)
      cp = 0xfffd; /* a lone surrogate */
    n += put_utf8(s + n, cp);
  }
  r->p++;
  s[n] = '\0';
  *out = s;
  return true;
}

static bool number(struct reader *r, double *out) {
  const char *q = r->p;
  if (q < r->end && *q == '-')
    q++;
  size_t digits = 0;
  while (q < r->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' ||
                        *q == 'E' || *q == '+' || *q == '-'))
    q++, digits++;
  char buf[64];
  if (digits == 0 || (size_t)(q - r->p) >= sizeof(buf))
    return fail(r, "bad number");
  memcpy(buf, r->p, (size_t)(q - r->p));
  buf[q - r->p] = '\0';
  char *end;
  *out = strtod(buf, &end);
  if (*end != '\0')
    return fail(r, "bad number");
  r->p = q;
  return true;
}

static bool value(struct reader *r, struct json *j, int depth);

/* An array or object after its opening bracket. */
static bool collection(struct reader *r, struct json *j, bool object,
                       int depth) {
  char close = object ? '}' : ']';
  skip_ws(r);
  if (r->p < r->end && *r->p == close) {
    r->p++;
    return true;
  }
  size_t cap = 0;
  for (;;) {
    if (j->n == cap) {
      cap = cap == 0 ? 8 : cap * 2;
      struct json *items = realloc(j->items, cap * sizeof(*items));
      if (items == NULL)
        return fail(r, "out of memory");
      j->items = items;
      if (object) {
        char **keys = realloc(j->keys, cap * sizeof(*keys));
        if (keys == NULL)
          return fail(r, "out of memory");
        j->keys = keys;
      }
    }
    memset(&j->items[j->n], 0, sizeof(j->items[j->n]));
    skip_ws(r);
    if (object) {
      j->keys[j->n] = NULL;
      if (r->p >= r->end || *r->p != '"')
        return fail(r, "expected a key");
      r->p++;
      /* Counted before parsing so that json_free frees what was made. */
      j->n++;
      if (!string(r, &j->keys[j->n - 1]))
        return false;
      skip_ws(r);
      if (r->p >= r->end || *r->p++ != ':')
        return fail(r, "expected ':'");
    } else {
      j->n++;
    }
    if (!value(r, &j->items[j->n - 1], depth + 1))
      return false;
    skip_ws(r);
    if (r->p < r->end && *r->p == ',') {
      r->p++;
      continue;
    }
    if (r->p < r->end && *r->p == close) {
      r->p++;
      return true;
    }
    return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static bool value(struct reader *r, struct json *j, int depth) {
  if (depth > JSON_MAX_DEPTH)
    return fail(r, "nested too deeply");
  skip_ws(r);
  if (r->p >= r->end)
    return fail(r, "unexpected end");
  switch (*r->p) {
  case '{':
  case '[':
    j->type = *r->p == '{' ? JSON_OBJECT : JSON_ARRAY;
    r->p++;
    return collection(r, j, j->type == JSON_OBJECT, depth);
  case '"':
    j->type = JSON_STRING;
    r->p++;
    return string(r, &j->string);
  case 't':
  case 'f':
    j->type = JSON_BOOL;
    j->boolean = *r->p == 't';
    return literal(r, j->boolean ? "true" : "false");
  case 'n':
    j->type = JSON_NULL;
    return literal(r, "null");
  default:
    j->type = JSON_NUMBER;
    return number(r, &j->number);
  }
}

static void free_inner(struct json *j) {
  for (size_t i = 0; i < j->n; i++) {
    free_inner(&j->items[i]);
    if (j->keys != NULL)
      free(j->keys[i]);
  }
  free(j->items);
  free(j->keys);
  free(j->string);
}

void json_free(struct json *j) {
  if (j == NULL)
    return;
  free_inner(j);
  free(j);
}

struct json *json_parse(const char *text, size_t len, char *why,
                        size_t why_size) {
  struct reader r = {text, text + len, why, why_size, text};
  struct json *j = calloc(1, sizeof(*j));
  if (j == NULL) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  bool ok = value(&r, j, 0);
  if (ok) {
    skip_ws(&r);
    if (r.p != r.end)
      ok = fail(&r, "text after the value");
  }
  if (!ok) {
    json_free(j);
    return NULL;
  }
  return j;
}

const struct json *json_get(const struct json *obj, const char *key) {
  if (obj == NULL || obj->type != JSON_OBJECT)
    return NULL;
  /* The last of duplicate keys wins, as in most readers. */
  const struct json *found = NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp(obj->keys[i], key) == 0)
      found = &obj->items[i];
  return found;
}

const char *json_get_str(const struct json *obj, const char *key) {
  const struct json *v = json_get(obj, key);
  return v != NULL && v->type == JSON_STRING ? v->string : NULL;
}
