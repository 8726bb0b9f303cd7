/*
 * control_reply.c - building control answers: bounded text, JSON strings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "control.h"

bool control_reply_is_json(const struct control_reply *r)
{
	return r->json;
}

void control_reply_write(struct control_reply *r, const char *s, size_t len)
{
	size_t want;

	if (r->overflow)
		return;
	if (len > CTL_RESP_MAX - 1 - r->len) {
		r->overflow = true;
		return;
	}
	want = r->len + len + 1;
	if (!r->buf || want > r->cap) {
		size_t cap = r->cap ? r->cap : 256;
		char *b;

		while (cap < want)
			cap *= 2;
		b = realloc(r->buf, cap);
		if (!b) {
			r->overflow = true;
			return;
		}
		r->buf = b;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, s, len);
	r->len += len;
	r->buf[r->len] = '\0';
}

void control_reply_printf(struct control_reply *r, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		control_reply_write(r, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		r->overflow = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	control_reply_write(r, big, (size_t)n);
	free(big);
}

/* Length of a valid UTF-8 sequence at s (RFC 3629), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0;   /* overlong, surrogate */
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0;
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

size_t control_json_escape(char *out, size_t cap, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

#define PUT(ch) do { if (n + 1 < cap) out[n] = (char)(ch); n++; } while (0)
	PUT('"');
	while (*s) {
		size_t l = utf8_seq_len(s), i;
		const char *esc = NULL;
		char hex[8];

		switch (*s) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				snprintf(hex, sizeof(hex), "\\u%04x", *s);
				esc = hex;
			} else if (l == 0) {
				esc = "\\ufffd";
			}
		}
		if (esc) {
			for (i = 0; esc[i]; i++)
				PUT(esc[i]);
			s++;
			continue;
		}
		for (i = 0; i < l; i++)
			PUT(s[i]);
		s += l;
	}
	PUT('"');
#undef PUT
	if (cap)
		out[n < cap ? n : cap - 1] = '\0';
	return n;
}

void control_reply_json_str(struct control_reply *r, const char *s)
{
	size_t need = control_json_escape(NULL, 0, s);
	char *buf = malloc(need + 1);

	if (!buf) {
		r->overflow = true;
		return;
	}
	control_json_escape(buf, need + 1, s);
	control_reply_write(r, buf, need);
	free(buf);
}

int control_reply_error(struct control_reply *r, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->len = 0;
	r->overflow = false;
	if (r->buf)
		r->buf[0] = '\0';
	if (r->json) {
		control_reply_write(r, "{\"error\":", 9);
		control_reply_json_str(r, msg);
		control_reply_write(r, "}", 1);
	} else {
		control_reply_write(r, msg, strlen(msg));
	}
	return status;
}

int control_arg_addr(struct control_reply *r, const char *s, struct hip_addr *a,
		     const char *(*problem)(const struct hip_addr *a), const char *suffix)
{
	const char *why;

	if (hip_addr_from_str(s, a) != 0)
		return control_reply_error(r, CTL_EUSAGE, "'%s' is not an IPv4 or IPv6 address",
					   s);
	why = problem(a);
	if (why)
		return control_reply_error(r, CTL_EUSAGE, "'%s' is %s%s", s, why, suffix);
	return CTL_OK;
}
