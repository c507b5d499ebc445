/* argdata reader: see argdata.h.  Every length is checked before a read. */
#include "argdata.h"

argdata_t argdata_from_buffer(const void *buf, size_t len) {
  argdata_t ad = {buf, len};
  return ad;
}

cloudabi_errno_t argdata_type(const argdata_t *ad, argdata_type_t *type) {
  if (ad->len == 0) {
    *type = ARGDATA_NULL;
    return 0;
  }
  if (ad->buf[0] < ARGDATA_BINARY || ad->buf[0] > ARGDATA_TIMESTAMP)
    return CLOUDABI_EINVAL;
  *type = (argdata_type_t)ad->buf[0];
  return 0;
}

/* The payload after the tag, if the value has type `want`. */
static cloudabi_errno_t payload(const argdata_t *ad, argdata_type_t want,
                                const uint8_t **p, size_t *len) {
  argdata_type_t type;
  cloudabi_errno_t error = argdata_type(ad, &type);
  if (error != 0)
    return error;
  if (type != want)
    return CLOUDABI_EINVAL;
  *p = ad->buf + 1;
  *len = ad->len - 1;
  return 0;
}

cloudabi_errno_t argdata_get_binary(const argdata_t *ad, const void **data,
                                    size_t *len) {
  const uint8_t *p;
  cloudabi_errno_t error = payload(ad, ARGDATA_BINARY, &p, len);
  if (error == 0)
    *data = p;
  return error;
}

cloudabi_errno_t argdata_get_bool(const argdata_t *ad, bool *value) {
  const uint8_t *p;
  size_t len;
  cloudabi_errno_t error = payload(ad, ARGDATA_BOOL, &p, &len);
  if (error != 0)
    return error;
  if (len == 0)
    *value = false;
  else if (len == 1 && p[0] == 1)
    *value = true;
  else
    return CLOUDABI_EINVAL;
  return 0;
}

cloudabi_errno_t argdata_get_fd(const argdata_t *ad, cloudabi_fd_t *fd) {
  const uint8_t *p;
  size_t len;
  cloudabi_errno_t error = payload(ad, ARGDATA_FD, &p, &len);
  if (error != 0)
    return error;
  if (len != 4)
    return CLOUDABI_EINVAL;
  uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
               (uint32_t)p[2] << 8 | p[3];
  /* Like cloudlibc, numbers that are no valid C int are no descriptor. */
  if (v > INT32_MAX)
    return CLOUDABI_EBADF;
  *fd = v;
  return 0;
}

cloudabi_errno_t argdata_get_float(const argdata_t *ad, double *value) {
  const uint8_t *p;
  size_t len;
  cloudabi_errno_t error = payload(ad, ARGDATA_FLOAT, &p, &len);
  if (error != 0)
    return error;
  if (len != 8)
    return CLOUDABI_EINVAL;
  uint64_t bits = 0;
  for (size_t i = 0; i < 8; i++)
    bits = bits << 8 | p[i];
  union {
    uint64_t u;
    double d;
  } pun = {bits};
  *value = pun.d;
  return 0;
}

/*
 * A big-endian two's complement number of any length: drops redundant
 * sign bytes, then sees whether the rest fits in 64 bits (as unsigned when
 * `is_unsigned`).
 */
static cloudabi_errno_t parse_int(const uint8_t *p, size_t len,
                                  bool is_unsigned, uint64_t *out) {
  bool negative = len > 0 && (p[0] & 0x80) != 0;
  uint8_t sign = negative ? 0xff : 0x00;
  while (len > 0 && p[0] == sign) {
    p++;
    len--;
  }
  /* One sign byte may be needed to keep the sign of the next byte. */
  bool sign_bit_ok = len == 0 || ((p[0] & 0x80) != 0) == negative;
  if (negative && is_unsigned)
    return CLOUDABI_ERANGE;
  if (len > 8 || (!is_unsigned && len == 8 && !sign_bit_ok))
    return CLOUDABI_ERANGE;
  uint64_t v = negative ? UINT64_MAX : 0;
  for (size_t i = 0; i < len; i++)
    v = v << 8 | p[i];
  *out = v;
  return 0;
}

cloudabi_errno_t argdata_get_int_s(const argdata_t *ad, int64_t *value) {
  const uint8_t *p;
  size_t len;
  uint64_t v;
  cloudabi_errno_t error = payload(ad, ARGDATA_INT, &p, &len);
  if (error == 0)
    error = parse_int(p, len, false, &v);
  if (error == 0)
    *value = (int64_t)v;
  return error;
}

cloudabi_errno_t argdata_get_int_u(const argdata_t *ad, uint64_t *value) {
  const uint8_t *p;
  size_t len;
  cloudabi_errno_t error = payload(ad, ARGDATA_INT, &p, &len);
  if (error == 0)
    error = parse_int(p, len, true, value);
  return error;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool valid_utf8(const uint8_t *p, size_t len) {
  size_t i = 0;
  while (i < len) {
    uint8_t c = p[i];
    size_t n;
    uint32_t cp, min;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (len - i - 1 < n)
      return false;
    for (size_t k = 1; k <= n; k++) {
      if ((p[i + k] & 0xc0) != 0x80)
        return false;
      cp = cp << 6 | (p[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n + 1;
  }
  return true;
}

cloudabi_errno_t argdata_get_str(const argdata_t *ad, const char **str,
                                 size_t *len) {
  const uint8_t *p;
  size_t n;
  cloudabi_errno_t error = payload(ad, ARGDATA_STR, &p, &n);
  if (error != 0)
    return error;
  if (n == 0 || p[n - 1] != '\0' || !valid_utf8(p, n - 1))
    return CLOUDABI_EINVAL;
  *str = (const char *)p;
  *len = n - 1;
  return 0;
}

/*
 * Nanoseconds since the epoch as a signed number of up to 12 bytes (96
 * bits), split into seconds and nanoseconds by long division in 32-bit
 * limbs, so no 128-bit runtime support is needed.
 */
cloudabi_errno_t argdata_get_timestamp(const argdata_t *ad,
                                       argdata_timestamp_t *ts) {
  const uint8_t *p;
  size_t len;
  cloudabi_errno_t error = payload(ad, ARGDATA_TIMESTAMP, &p, &len);
  if (error != 0)
    return error;
  bool negative = len > 0 && (p[0] & 0x80) != 0;
  uint8_t sign = negative ? 0xff : 0x00;
  while (len > 0 && p[0] == sign) {
    p++;
    len--;
  }
  if (len > 12 || (len == 12 && ((p[0] & 0x80) != 0) != negative))
    return CLOUDABI_ERANGE;
  /* Sign-extend to 12 bytes, then take the magnitude. */
  uint8_t b[12];
  for (size_t i = 0; i < 12; i++)
    b[i] = i < 12 - len ? sign : p[i - (12 - len)];
  uint32_t limb[3];
  for (size_t i = 0; i < 3; i++)
    limb[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
              (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
  if (negative) {
    /* Two's complement negation across the limbs. */
    uint64_t carry = 1;
    for (int i = 2; i >= 0; i--) {
      uint64_t v = (uint64_t)(uint32_t)~limb[i] + carry;
      limb[i] = (uint32_t)v;
      carry = v >> 32;
    }
  }
  uint64_t rem = 0;
  uint32_t q[3];
  for (size_t i = 0; i < 3; i++) {
    uint64_t cur = rem << 32 | limb[i];
    q[i] = (uint32_t)(cur / 1000000000);
    rem = cur % 1000000000;
  }
  /* |ns| < 2^95, so the quotient is below 2^66: check it fits in int64. */
  if (q[0] > 0 || (q[1] & 0x80000000) != 0)
    return CLOUDABI_ERANGE;
  int64_t sec = (int64_t)((uint64_t)q[1] << 32 | q[2]);
  uint32_t nsec = (uint32_t)rem;
  if (negative) {
    sec = -sec;
    if (nsec != 0) {
      sec -= 1;
      nsec = 1000000000 - nsec;
    }
  }
  ts->sec = sec;
  ts->nsec = nsec;
  return 0;
}

static cloudabi_errno_t iterate(const argdata_t *ad, argdata_type_t want,
                                argdata_iter_t *it) {
  const uint8_t *p;
  size_t len;
  cloudabi_errno_t error = payload(ad, want, &p, &len);
  if (error != 0)
    return error;
  it->p = p;
  it->left = len;
  it->error = 0;
  return 0;
}

cloudabi_errno_t argdata_map_iterate(const argdata_t *ad, argdata_iter_t *it) {
  return iterate(ad, ARGDATA_MAP, it);
}

cloudabi_errno_t argdata_seq_iterate(const argdata_t *ad, argdata_iter_t *it) {
  return iterate(ad, ARGDATA_SEQ, it);
}

/*
 * One subfield: a big-endian base-128 length whose last byte has the top
 * bit set, then that many bytes.  A leading zero digit is an overlong
 * encoding and invalid.
 */
static bool next_subfield(argdata_iter_t *it, argdata_t *value) {
  if (it->error != 0 || it->left == 0)
    return false;
  size_t len = 0, i = 0;
  for (;;) {
    if (i == it->left || (i == 0 && it->p[0] == 0) ||
        len > (SIZE_MAX >> 7)) {
      it->error = CLOUDABI_EINVAL;
      return false;
    }
    uint8_t c = it->p[i++];
    len = len << 7 | (c & 0x7f);
    if (c & 0x80)
      break;
  }
  if (len > it->left - i) {
    it->error = CLOUDABI_EINVAL;
    return false;
  }
  value->buf = it->p + i;
  value->len = len;
  it->p += i + len;
  it->left -= i + len;
  return true;
}

bool argdata_seq_next(argdata_iter_t *it, argdata_t *value) {
  return next_subfield(it, value);
}

bool argdata_map_next(argdata_iter_t *it, argdata_t *key, argdata_t *value) {
  if (!next_subfield(it, key))
    return false;
  if (!next_subfield(it, value)) {
    /* A key without a value is malformed, not the end. */
    if (it->error == 0)
      it->error = CLOUDABI_EINVAL;
    return false;
  }
  return true;
}
