/*
 * sdnotify.c - sd_notify(3) protocol: a datagram on the AF_UNIX socket named
 * by $NOTIFY_SOCKET, a path or an abstract name written with a leading '@'.
 */
#include "config.h"
#include "sdnotify.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int hipd_sd_notify(const char *state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	size_t plen, slen = strlen(state);
	socklen_t salen;
	ssize_t n;
	int fd, r;

	if (!path || !path[0])
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen < 2 || plen > sizeof(sa.sun_path))
		return -EAFNOSUPPORT;   /* also vsock:, which hipd has no use for */
	memcpy(sa.sun_path, path, plen);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen +
			    (path[0] == '/' && plen < sizeof(sa.sun_path)));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, slen, MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	r = n < 0 ? -errno : (size_t)n == slen ? 1 : -EIO;
	close(fd);
	return r;
}

int hipd_sd_notify_reloading(void)
{
	struct timespec ts;
	char msg[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
		 (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u);
	return hipd_sd_notify(msg);
}
