/*
 * engine_ctl.c - a hipconf connection to an in-process engine for the unit
 * suites (engine_ctl.h).
 */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/loop.h"
#include "control/control.h"
#include "engine_ctl.h"

void ctl_open(struct ctl_fixture *f, struct hip_loop *loop)
{
	int sp[2], lfd = eventfd(0, EFD_CLOEXEC);

	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(control_create(&f->ctl, loop, lfd, NULL, NULL), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(control_adopt(f->ctl, sp[0]), 0);
	f->fd = sp[1];
}

int ctl_call(struct ctl_fixture *f, struct hip_loop *loop, bool json, const char *line,
	     char *out, size_t cap)
{
	const char *argv[CTL_ARGS_MAX];
	char words[512], *save = NULL, *w;
	uint8_t req[CTL_REQ_MAX + CTL_HDR_LEN], hdr[CTL_HDR_LEN], *body;
	int argc = 0, len, i, status;
	uint32_t blen;

	snprintf(words, sizeof(words), "%s", line);
	for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	len = ctl_request_encode(req, sizeof(req), json ? CTL_F_JSON : 0, argc, argv);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(write(f->fd, req, (size_t)len), len);
	for (i = 0; i < 50; i++) {
		hip_loop_run_once(loop, 20);
		if (recv(f->fd, hdr, 1, MSG_PEEK | MSG_DONTWAIT) == 1)
			break;
	}
	ck_assert_int_eq(recv(f->fd, hdr, sizeof(hdr), MSG_WAITALL), (int)sizeof(hdr));
	blen = ctl_len_get(hdr);
	ck_assert_uint_ge(blen, 1);
	body = malloc(blen);
	ck_assert_ptr_nonnull(body);
	ck_assert_int_eq(recv(f->fd, body, blen, MSG_WAITALL), (int)blen);
	status = body[0];
	snprintf(out, cap, "%.*s", (int)(blen - 1), (const char *)body + 1);
	free(body);
	return status;
}

void ctl_close(struct ctl_fixture *f)
{
	close(f->fd);
	control_free(f->ctl);
}
