/*
 * control_proto.c - request framing for the control socket (see
 * control_proto.h). Linked into both hipd and hipconf.
 */
#include "control_proto.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "byteorder.h"

uint32_t ctl_len_get(const uint8_t hdr[CTL_HDR_LEN])
{
	return hip_rd32(hdr);
}

void ctl_len_put(uint8_t hdr[CTL_HDR_LEN], uint32_t len)
{
	hip_wr32(hdr, len);
}

static bool word_byte_ok(uint8_t ch)
{
	return ch >= 0x20 && ch != 0x7f;
}

int ctl_request_encode(uint8_t *buf, size_t cap, uint8_t flags, int argc,
		       const char *const argv[])
{
	size_t pos = CTL_HDR_LEN + 1;
	int i;

	if (argc < 1 || argc > CTL_ARGS_MAX || (flags & ~CTL_F_ALL))
		return -EINVAL;
	if (cap < pos)
		return -EMSGSIZE;
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]), j;

		if (n == 0)
			return -EINVAL;
		for (j = 0; j < n; j++)
			if (!word_byte_ok((uint8_t)argv[i][j]))
				return -EINVAL;
		if (n + 1 > cap - pos || pos + n + 1 - CTL_HDR_LEN > CTL_REQ_MAX)
			return -EMSGSIZE;
		memcpy(buf + pos, argv[i], n + 1);
		pos += n + 1;
	}
	buf[CTL_HDR_LEN] = flags;
	ctl_len_put(buf, (uint32_t)(pos - CTL_HDR_LEN));
	return (int)pos;
}

int ctl_request_decode(const uint8_t *body, size_t len, uint8_t *flags,
		       const char *argv[CTL_ARGS_MAX], int *argc)
{
	size_t pos = 1;
	int n = 0;

	/* flags, then at least one word of one byte and its NUL */
	if (len < 3 || len > CTL_REQ_MAX || (body[0] & ~CTL_F_ALL))
		return -EBADMSG;
	if (body[len - 1] != '\0')
		return -EBADMSG;
	while (pos < len) {
		size_t start = pos;

		while (body[pos] != '\0') {
			if (!word_byte_ok(body[pos]))
				return -EBADMSG;
			pos++;   /* stops at the final NUL at the latest */
		}
		if (pos == start)
			return -EBADMSG;   /* empty word */
		if (n == CTL_ARGS_MAX)
			return -E2BIG;
		argv[n++] = (const char *)body + start;
		pos++;
	}
	*flags = body[0];
	*argc = n;
	return 0;
}

const char *ctl_status_str(int status)
{
	switch (status) {
	case CTL_OK:
		return "ok";
	case CTL_EUSAGE:
		return "bad request";
	case CTL_EPERM:
		return "permission denied";
	case CTL_ENOENT:
		return "not found";
	case CTL_EFAILED:
		return "failed";
	default:
		return "unknown status";
	}
}
