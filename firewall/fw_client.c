/*
 * fw_client.c - `hipfw show ...` and `hipfw reload`: one request to the
 * running hipfw over its control socket (the framing of
 * libhipcore/control_proto.h, the same as hipd's), the answer printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control_proto.h"
#include "fw_main.h"

static int io_full(int fd, uint8_t *p, size_t len, bool out)
{
	ssize_t n;

	while (len) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -ECONNRESET : -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fw_client_run(const char *path, bool json, int argc, const char *const argv[])
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t req[CTL_HDR_LEN + CTL_REQ_MAX], hdr[CTL_HDR_LEN];
	uint8_t *body = NULL;
	uint32_t len;
	int fd = -1, n, ret = 1;

	n = ctl_request_encode(req, sizeof(req), json ? CTL_F_JSON : 0, argc, argv);
	if (n < 0) {
		fprintf(stderr, "hipfw: bad request: %s\n", strerror(-n));
		return 1;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hipfw: socket path too long: %s\n", path);
		return 1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "hipfw: cannot connect to %s: %s (is hipfw running?)\n", path,
			strerror(errno));
		goto out;
	}
	if (io_full(fd, req, (size_t)n, true) < 0 || io_full(fd, hdr, sizeof(hdr), false) < 0) {
		fprintf(stderr, "hipfw: %s: %s\n", path, strerror(errno));
		goto out;
	}
	len = ctl_len_get(hdr);
	if (len < 1 || len > CTL_RESP_MAX) {
		fprintf(stderr, "hipfw: %s: malformed answer\n", path);
		goto out;
	}
	body = malloc(len);
	if (!body || io_full(fd, body, len, false) < 0) {
		fprintf(stderr, "hipfw: %s: %s\n", path, body ? strerror(errno) : "no memory");
		goto out;
	}
	if (len > 1)
		printf("%.*s\n", (int)(len - 1), (const char *)body + 1);
	if (body[0] != CTL_OK)
		fprintf(stderr, "hipfw: %s\n", ctl_status_str(body[0]));
	ret = body[0] == CTL_OK ? 0 : 1;
out:
	free(body);
	if (fd >= 0)
		close(fd);
	return ret;
}
