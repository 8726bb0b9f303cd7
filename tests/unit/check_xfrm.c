/*
 * check_xfrm.c - the kernel datapath (hipd/datapath/xfrm/xfrm.c) against the running
 * kernel's XFRM, each test in a fresh network namespace (Check forks every
 * test; the child unshares CLONE_NEWNET). Results are read back with
 * iproute2 (`ip xfrm`), an independent netlink client.
 *
 * Without ESP in the kernel (this machine) the SA tests check that the
 * probe and sa_add report it (EPROTONOSUPPORT, the errno behind the
 * kernel's "Requested type not found"); under an ESP kernel (the VM:
 * tools/kvm/run-in-esp-vm.sh build-.../tests/unit/check_xfrm) they install,
 * read back and remove real BEET SAs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_wire.h"
#include "udp_peer_seen.h"
#include "unit.h"
#include "datapath/xfrm/xfrm_int.h"

#define HIT_L "2001:22::1"
#define HIT_P "2001:21::2"
#define LOC_L "192.0.2.1"
#define LOC_P "192.0.2.2"
#define REQID_DEC "1212764160"   /* HIP_XFRM_REQID_DEFAULT */

/* A fresh network namespace for this (forked) test, lo up. */
static void netns_enter(void)
{
	ck_assert_msg(unshare(CLONE_NEWNET) == 0, "unshare(CLONE_NEWNET): %s (needs root)",
		      strerror(errno));
	ck_assert_int_eq(system("ip link set lo up"), 0);
}

/* stdout of a shell command, NUL-terminated. */
static const char *sh(const char *cmd)
{
	static char out[16384];
	FILE *f = popen(cmd, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	pclose(f);
	return out;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static struct hip_hit hit(const char *s)
{
	struct hip_hit h;

	ck_assert_int_eq(inet_pton(AF_INET6, s, h.b), 1);
	return h;
}

static struct hip_addr addr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

/* Does this kernel take an ESP SA? Asked through iproute2. */
static int kernel_has_esp(void)
{
	int rc = system("ip xfrm state add src 192.0.2.7 dst 192.0.2.8 proto esp spi 0x777 "
			"enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f auth-trunc "
			"'hmac(sha256)' 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f "
			"128 2>/dev/null");

	if (rc == 0)
		ck_assert_int_eq(system("ip xfrm state del src 192.0.2.7 dst 192.0.2.8 proto esp "
					"spi 0x777"), 0);
	return rc == 0;
}

static struct datapath *dp_new(const struct datapath_events *ev)
{
	struct datapath *dp = NULL;

	ck_assert_int_eq(xfrm_dp_create(&dp, NULL, ev), 0);
	ck_assert_ptr_nonnull(dp);
	ck_assert_str_eq(dp->ops->name, "kernel");
	return dp;
}

START_TEST(test_probe_matches_iproute2)
{
	struct datapath *dp;
	char why[128];
	int ret, esp;

	netns_enter();
	dp = dp_new(NULL);
	esp = kernel_has_esp();
	ret = xfrm_dp_probe_esp(dp, why, sizeof(why));
	if (esp)
		ck_assert_int_eq(ret, 0);
	else
		ck_assert_msg(ret == -EPROTONOSUPPORT, "probe: %d (%s)", ret, why);
	/* The probe leaves nothing behind. */
	ck_assert_str_eq(sh("ip xfrm state"), "");
	dp->ops->free(dp);
}
END_TEST

START_TEST(test_policy_pair_add_del)
{
	struct hip_hit l = hit(HIT_L), p = hit(HIT_P);
	struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);
	struct datapath *dp;
	const char *out;

	netns_enter();
	dp = dp_new(NULL);
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), 0);
	out = sh("ip xfrm policy");
	ck_assert_msg(strstr(out, "src " HIT_L "/128 dst " HIT_P "/128 \n\tdir out priority 12288"),
		      "%s", out);
	ck_assert_msg(strstr(out, "src " HIT_P "/128 dst " HIT_L "/128 \n\tdir in priority 12288"),
		      "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LOC_L " dst " LOC_P "\n\t\tproto esp reqid "
			     REQID_DEC " mode beet"), "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LOC_P " dst " LOC_L "\n\t\tproto esp reqid "
			     REQID_DEC " mode beet"), "%s", out);
	/* A second add of the same pair updates it, never duplicates it. */
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), 0);
	ck_assert_int_eq(count(sh("ip xfrm policy"), "mode beet"), 2);
	/* New locators (UPDATE readdress): both templates follow. */
	ll = addr("198.51.100.1");
	pl = addr("198.51.100.2");
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), 0);
	out = sh("ip xfrm policy");
	ck_assert_int_eq(count(out, "mode beet"), 2);
	ck_assert_int_eq(count(out, LOC_L), 0);
	ck_assert_msg(strstr(out, "tmpl src 198.51.100.1 dst 198.51.100.2\n\t\tproto esp reqid "
			     REQID_DEC " mode beet"), "%s", out);
	ck_assert_msg(strstr(out, "tmpl src 198.51.100.2 dst 198.51.100.1\n\t\tproto esp reqid "
			     REQID_DEC " mode beet"), "%s", out);
	ck_assert_msg(strstr(out, "src " HIT_L "/128 dst " HIT_P "/128 \n\tdir out priority 12288"),
		      "%s", out);
	ck_assert_int_eq(dp->ops->policy_del(dp, &l, &p), 0);
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	ck_assert_int_eq(dp->ops->policy_del(dp, &l, &p), -ENOENT);
	dp->ops->free(dp);
}
END_TEST

/* Someone else's policy for our HIT pair is neither replaced nor joined. */
START_TEST(test_policy_foreign_pair_kept)
{
	struct hip_hit l = hit(HIT_L), p = hit(HIT_P);
	struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);
	struct datapath *dp;
	const char *out;

	netns_enter();
	dp = dp_new(NULL);
	ck_assert_int_eq(system("ip xfrm policy add src " HIT_L "/128 dst " HIT_P "/128 dir out "
				"priority 12288 tmpl src 192.0.2.1 dst 192.0.2.9 proto esp reqid 7 "
				"mode beet"), 0);
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), -EEXIST);
	out = sh("ip xfrm policy");
	ck_assert_int_eq(count(out, "\tdir "), 1);
	ck_assert_msg(strstr(out, "tmpl src 192.0.2.1 dst 192.0.2.9\n\t\tproto esp reqid 7 "
			     "mode beet"), "%s", out);
	dp->ops->free(dp);
}
END_TEST

START_TEST(test_policy_mixed_families_refused)
{
	struct hip_hit l = hit(HIT_L), p = hit(HIT_P);
	struct hip_addr ll = addr(LOC_L), pl = addr("fd00::2");
	struct datapath *dp;

	netns_enter();
	dp = dp_new(NULL);
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), -EINVAL);
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	dp->ops->free(dp);
}
END_TEST

/* flush and policy_del touch only entries with our reqid. */
START_TEST(test_flush_only_ours)
{
	struct hip_hit l = hit(HIT_L), p = hit(HIT_P), p2 = hit("2001:21::9");
	struct hip_addr ll = addr("fd00::1"), pl = addr("fd00::2");
	struct datapath *dp;
	const char *out;

	netns_enter();
	dp = dp_new(NULL);
	/* Someone else's: one on a HIT pair we use later, one without template. */
	ck_assert_int_eq(system("ip xfrm policy add src " HIT_L "/128 dst 2001:21::9/128 dir out "
				"tmpl src fd00::1 dst fd00::9 proto esp reqid 7 mode beet"), 0);
	ck_assert_int_eq(system("ip xfrm policy add src 2001:21::9/128 dst " HIT_L "/128 dir in"),
			 0);
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), 0);
	ck_assert_int_eq(xfrm_dp_acquire_policy_add(dp, &l), 0);
	ck_assert_int_eq(count(sh("ip xfrm policy"), "\tdir "), 5);
	/* Both foreign policies have the selectors of the pair (l, p2): the
	 * one with another reqid and the one without template stay. */
	ck_assert_int_eq(dp->ops->policy_del(dp, &l, &p2), -EPERM);
	ck_assert_int_eq(count(sh("ip xfrm policy"), "\tdir "), 5);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 3);
	out = sh("ip xfrm policy");
	ck_assert_int_eq(count(out, "\tdir "), 2);
	ck_assert_int_eq(count(out, "reqid " REQID_DEC), 0);
	ck_assert_int_eq(count(out, "reqid 7 mode beet"), 1);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 0);
	dp->ops->free(dp);
}
END_TEST

/* The ACQUIRE trigger's policy: local HIT -> 2001:20::/28, outer source
 * the HIT, destination unspecified, level required. */
START_TEST(test_acquire_policy)
{
	struct hip_hit l = hit(HIT_L);
	struct datapath *dp;
	const char *out;

	netns_enter();
	dp = dp_new(NULL);
	ck_assert_int_eq(xfrm_dp_acquire_policy_add(dp, &l), 0);
	out = sh("ip xfrm policy");
	ck_assert_msg(strstr(out, "src " HIT_L "/128 dst 2001:20::/28 \n\tdir out priority 12544"),
		      "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " HIT_L " dst ::\n\t\tproto esp reqid " REQID_DEC
			     " mode beet"), "%s", out);
	ck_assert_int_eq(count(out, "level use"), 0);
	ck_assert_int_eq(xfrm_dp_acquire_policy_del(dp, &l), 0);
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	dp->ops->free(dp);
}
END_TEST

struct acq_seen {
	int n;
	struct hip_hit local, peer;
};

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct acq_seen *s = arg;

	s->n++;
	s->local = *local;
	s->peer = *peer;
}

/* A packet from the local HIT to an unknown HIT makes the kernel ask. */
START_TEST(test_acquire_event)
{
	struct acq_seen seen = { 0 };
	struct datapath_events ev = { .arg = &seen, .acquire = on_acquire };
	struct hip_hit l = hit(HIT_L), p = hit(HIT_P);
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct datapath *dp;
	struct pollfd pfd;
	int fd, i;

	netns_enter();
	ck_assert_int_eq(system("ip addr add " HIT_L "/128 dev lo nodad && "
				"ip route add 2001:20::/28 dev lo src " HIT_L), 0);
	dp = dp_new(&ev);
	ck_assert_int_eq(xfrm_set_larval_drop(0), 0);
	ck_assert_str_eq(sh("cat /proc/sys/net/core/xfrm_larval_drop"), "0\n");
	ck_assert_int_eq(xfrm_dp_acquire_policy_add(dp, &l), 0);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	memcpy(&dst.sin6_addr, p.b, sizeof(p.b));
	/* Held (larval_drop 0) or refused: either way the kernel asks. */
	(void)sendto(fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&dst, sizeof(dst));
	pfd.fd = xfrm_dp_event_fd(dp);
	pfd.events = POLLIN;
	for (i = 0; i < 20 && seen.n == 0; i++) {
		if (poll(&pfd, 1, 100) > 0)
			xfrm_dp_event_read(dp);
	}
	ck_assert_int_eq(seen.n, 1);
	ck_assert_int_eq(memcmp(seen.local.b, l.b, 16), 0);
	ck_assert_int_eq(memcmp(seen.peer.b, p.b, 16), 0);
	close(fd);
	/* The kernel's larval state for the flow: SPI 0, our reqid. */
	ck_assert_int_eq(count(sh("ip xfrm state"), "proto esp spi 0x00000000 reqid " REQID_DEC),
			 1);
	ck_assert_int_eq(count(sh("ip xfrm state"), " dst ::\n"), 1);   /* local HIT -> :: */
	if (_i == 0) {
		/* Once the pair's policies are in, it is removed (not left to
		 * expire in net.core.xfrm_acq_expires, holding back ACQUIREs). */
		struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);

		ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), 0);
		/* The ACQUIRE's larval state (local HIT -> ::) is gone. The held
		 * packet, routed again through the new pair policy while it has
		 * no SA (this test installs none), may make the kernel ask once
		 * more: a larval state for the pair's locators, which flush
		 * removes as well. */
		ck_assert_int_eq(count(sh("ip xfrm state"), " dst ::\n"), 0);
		ck_assert_int_ge(xfrm_dp_flush_count(dp), 3);
		ck_assert_str_eq(sh("ip xfrm state"), "");
	} else {
		/* flush removes it with the ACQUIRE policy. */
		ck_assert_int_eq(xfrm_dp_flush_count(dp), 2);
		ck_assert_str_eq(sh("ip xfrm state"), "");
	}
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	dp->ops->free(dp);
}
END_TEST

static struct hip_esp_sa sa_example(uint16_t suite, bool inbound)
{
	struct hip_esp_sa sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.spi = inbound ? 0x1001 : 0x2002;
	sa.inbound = inbound;
	sa.outer_src = addr(inbound ? LOC_P : LOC_L);
	sa.outer_dst = addr(inbound ? LOC_L : LOC_P);
	sa.inner_src = hit(inbound ? HIT_P : HIT_L);
	sa.inner_dst = hit(inbound ? HIT_L : HIT_P);
	sa.suite = suite;
	for (i = 0; i < sizeof(sa.enc_key); i++) {
		sa.enc_key[i] = (uint8_t)(0x40 + i);
		sa.auth_key[i] = (uint8_t)(0x80 + i);
	}
	switch (suite) {
	case HIP_ESP_AES_GCM_16: sa.enc_len = 20; sa.auth_len = 0; break;
	case HIP_ESP_AES128_CBC_SHA256: sa.enc_len = 16; sa.auth_len = 32; break;
	case HIP_ESP_AES256_CBC_SHA256: sa.enc_len = 32; sa.auth_len = 32; break;
	case HIP_ESP_AES128_CBC_SHA1: sa.enc_len = 16; sa.auth_len = 20; break;
	default: break;
	}
	sa.replay_window = 128;
	return sa;
}

/* Wrong sizes and unknown suites never reach the kernel. */
START_TEST(test_sa_bad_input)
{
	struct hip_esp_sa sa = sa_example(HIP_ESP_AES_GCM_16, false);
	struct datapath *dp;

	netns_enter();
	dp = dp_new(NULL);
	sa.enc_len = 16;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	sa = sa_example(HIP_ESP_AES_CCM_16, false);
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -ENOTSUP);
	sa = sa_example(HIP_ESP_AES128_CBC_SHA256, false);
	sa.replay_window = 100000;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	sa = sa_example(HIP_ESP_AES128_CBC_SHA256, false);
	sa.outer_dst = addr("fd00::2");
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	sa.outer_dst = addr(LOC_P);
	sa.spi = 255;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	ck_assert_str_eq(sh("ip xfrm state"), "");
	dp->ops->free(dp);
}
END_TEST

/* Per suite: the SA as iproute2 reads it back (ESP kernel), or the
 * kernel's refusal (no ESP). */
static void sa_roundtrip(uint16_t suite, const char *alg_line)
{
	struct hip_esp_sa sa = sa_example(suite, false), in = sa_example(suite, true);
	struct hip_esp_sa_stats st;
	struct datapath *dp;
	const char *out;
	int esp;

	netns_enter();
	dp = dp_new(NULL);
	esp = kernel_has_esp();
	if (!esp) {
		int ret = dp->ops->sa_add(dp, &sa);

		/* "Requested type not found" (no esp4/esp6), or for AES-GCM
		 * first "Requested AEAD algorithm not found" (no rfc4106). */
		ck_assert_msg(ret == -EPROTONOSUPPORT || (ret == -ENOSYS && suite == HIP_ESP_AES_GCM_16),
			      "sa_add: %d", ret);
		ck_assert_str_eq(sh("ip xfrm state"), "");
		dp->ops->free(dp);
		return;
	}
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), 0);
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	/* The same SA again replaces it (datapath.h), never duplicates it. */
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	out = sh("ip xfrm state");
	ck_assert_int_eq(count(out, "proto esp spi"), 2);
	ck_assert_msg(strstr(out, "src " LOC_L " dst " LOC_P "\n\tproto esp spi 0x00002002 reqid "
			     REQID_DEC " mode beet\n"), "%s", out);
	ck_assert_msg(strstr(out, "src " LOC_P " dst " LOC_L "\n\tproto esp spi 0x00001001 reqid "
			     REQID_DEC " mode beet\n"), "%s", out);
	ck_assert_msg(strstr(out, alg_line), "%s\nwanted: %s", out, alg_line);
	ck_assert_int_eq(count(out, "flag esn"), 2);
	ck_assert_int_eq(count(out, "replay_window 128"), 2);
	ck_assert_msg(strstr(out, "sel src " HIT_L "/128 dst " HIT_P "/128"), "%s", out);
	ck_assert_int_eq(dp->ops->sa_stats(dp, 0x1001, true, &st), 0);
	ck_assert_int_eq(st.packets, 0);
	ck_assert_int_eq(dp->ops->sa_stats(dp, 0x3003, true, &st), -ENOENT);
	ck_assert_int_eq(dp->ops->sa_del(dp, 0x2002, false, &sa.outer_dst), 0);
	ck_assert_int_eq(dp->ops->sa_del(dp, 0x2002, false, &sa.outer_dst), -ESRCH);
	/* A foreign SA survives the flush. */
	ck_assert_int_eq(system("ip xfrm state add src 192.0.2.7 dst 192.0.2.8 proto esp spi 0x777 "
				"reqid 7 enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f "
				"auth-trunc 'hmac(sha256)' "
				"0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f "
				"128"), 0);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 1);
	out = sh("ip xfrm state");
	ck_assert_int_eq(count(out, "proto esp spi"), 1);
	ck_assert_int_eq(count(out, "spi 0x00000777 reqid 7"), 1);
	dp->ops->free(dp);
}

START_TEST(test_sa_gcm)
{
	sa_roundtrip(HIP_ESP_AES_GCM_16,
		     "aead rfc4106(gcm(aes)) 0x404142434445464748494a4b4c4d4e4f50515253 128\n");
}
END_TEST

START_TEST(test_sa_cbc_sha256)
{
	sa_roundtrip(HIP_ESP_AES128_CBC_SHA256,
		     "auth-trunc hmac(sha256) 0x808182838485868788898a8b8c8d8e8f"
		     "909192939495969798999a9b9c9d9e9f 128\n\tenc cbc(aes) "
		     "0x404142434445464748494a4b4c4d4e4f");
}
END_TEST

START_TEST(test_sa_cbc_sha1)
{
	sa_roundtrip(HIP_ESP_AES128_CBC_SHA1,
		     "auth-trunc hmac(sha1) 0x808182838485868788898a8b8c8d8e8f90919293 96");
}
END_TEST

/* datapath.h: sa_add on an SPI and HIT pair we have replaces that SA in
 * place (UPDATE readdress and rekey); the pair policy of its direction
 * follows its locators. Under a kernel without ESP, sa_add's refusal. */
START_TEST(test_sa_replace)
{
	struct hip_esp_sa out = sa_example(HIP_ESP_AES128_CBC_SHA256, false);
	struct hip_esp_sa in = sa_example(HIP_ESP_AES128_CBC_SHA256, true), other;
	struct hip_hit l = hit(HIT_L), p = hit(HIT_P);
	struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);
	struct datapath *dp;
	const char *o;

	netns_enter();
	dp = dp_new(NULL);
	if (!kernel_has_esp()) {
		ck_assert_int_eq(dp->ops->sa_add(dp, &out), -EPROTONOSUPPORT);
		ck_assert_str_eq(sh("ip xfrm state"), "");
		dp->ops->free(dp);
		return;
	}
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	ck_assert_int_eq(dp->ops->policy_add(dp, &l, &p, &ll, &pl), 0);

	/* Rekey under the same SPI: one SA, the new key, counters from 0. */
	out.enc_key[0] = 0x50;
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi 0x00002002 "), 1);
	ck_assert_msg(strstr(o, "enc cbc(aes) 0x504142434445464748494a4b4c4d4e4f"), "%s", o);
	ck_assert_int_eq(count(o, "enc cbc(aes) 0x404142434445464748494a4b4c4d4e4f"), 1);
	ck_assert_int_eq(count(o, "oseq 0x400"), 0);

	/* The peer moved: the outbound SA gets a new destination (a new key
	 * triple: added first, then the old one goes), same keys, so the
	 * counter is carried over and advanced; the out policy follows. */
	out.outer_dst = addr("192.0.2.3");
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi "), 2);
	ck_assert_msg(strstr(o, "src " LOC_L " dst 192.0.2.3\n\tproto esp spi 0x00002002 reqid "
			     REQID_DEC " mode beet"), "%s", o);
	ck_assert_int_eq(count(o, "oseq 0x400"), 1);
	o = sh("ip xfrm policy");
	ck_assert_msg(strstr(o, "tmpl src " LOC_L " dst 192.0.2.3\n"), "%s", o);
	ck_assert_msg(strstr(o, "tmpl src " LOC_P " dst " LOC_L "\n"), "%s", o);

	/* ... and the inbound SA a new source (same triple: deleted and added
	 * back at once); the in policy follows. */
	in.outer_src = addr("192.0.2.3");
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi "), 2);
	ck_assert_msg(strstr(o, "src 192.0.2.3 dst " LOC_L "\n\tproto esp spi 0x00001001 reqid "
			     REQID_DEC " mode beet"), "%s", o);
	ck_assert_int_eq(count(o, LOC_P), 0);
	o = sh("ip xfrm policy");
	ck_assert_int_eq(count(o, LOC_P), 0);
	ck_assert_msg(strstr(o, "tmpl src 192.0.2.3 dst " LOC_L "\n"), "%s", o);

	/* Someone else's SA where we would add one: refused, left alone. */
	ck_assert_int_eq(system("ip xfrm state add src " LOC_L " dst 192.0.2.8 proto esp "
				"spi 0x3003 reqid 7 enc 'cbc(aes)' "
				"0x000102030405060708090a0b0c0d0e0f auth-trunc 'hmac(sha256)' "
				"0x000102030405060708090a0b0c0d0e0f"
				"000102030405060708090a0b0c0d0e0f 128"), 0);
	other = out;
	other.spi = 0x3003;
	other.outer_dst = addr("192.0.2.8");
	ck_assert_int_eq(dp->ops->sa_add(dp, &other), -EEXIST);
	ck_assert_int_eq(count(sh("ip xfrm state"), "spi 0x00003003 reqid 7 "), 1);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 4);
	ck_assert_int_eq(count(sh("ip xfrm state"), "proto esp spi "), 1);
	dp->ops->free(dp);
}
END_TEST

/* The peer's NAT gave it another port (tests/kernel/nat.sh sees the whole
 * path): the ports of both SAs change in place (XFRM_MSG_UPDSA), one SA
 * each, keys and addresses kept. */
START_TEST(test_sa_encap_ports)
{
	struct hip_esp_sa out = sa_example(HIP_ESP_AES_GCM_16, false);
	struct hip_esp_sa in = sa_example(HIP_ESP_AES_GCM_16, true);
	struct datapath *dp;
	const char *o;

	netns_enter();
	dp = dp_new(NULL);
	out.encap_sport = in.encap_dport = 10500;
	out.encap_dport = in.encap_sport = 20001;
	if (!kernel_has_esp()) {
		/* no ESP (EPROTONOSUPPORT) or no AEAD here (ENOSYS) */
		ck_assert_int_lt(dp->ops->sa_add(dp, &out), 0);
		ck_assert_str_eq(sh("ip xfrm state"), "");
		dp->ops->free(dp);
		return;
	}
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	out.encap_dport = in.encap_sport = 30001;
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi "), 2);
	ck_assert_int_eq(count(o, "encap type espinudp sport 10500 dport 30001"), 1);
	ck_assert_int_eq(count(o, "encap type espinudp sport 30001 dport 10500"), 1);
	ck_assert_int_eq(count(o, "20001"), 0);
	ck_assert_int_eq(count(o, "0x4041424344454647"), 2);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 2);
	dp->ops->free(dp);
}
END_TEST

/* One XFRM_MSG_MAPPING in a netlink message (the kernel's layout). */
static size_t mapping_msg(uint8_t *buf, uint32_t reqid, uint16_t family, const char *saddr,
			  uint16_t sport, uint32_t spi)
{
	struct xfrm_user_mapping m;
	struct nlmsghdr h = { .nlmsg_len = NLMSG_LENGTH(sizeof(m)),
			      .nlmsg_type = XFRM_MSG_MAPPING };

	memset(&m, 0, sizeof(m));
	m.id.spi = htonl(spi);
	m.id.family = family;
	m.id.proto = IPPROTO_ESP;
	m.reqid = reqid;
	ck_assert_int_eq(inet_pton(family, saddr, &m.new_saddr), 1);
	m.old_saddr = m.new_saddr;
	m.old_sport = htons(20001);
	m.new_sport = htons(sport);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + NLMSG_HDRLEN, &m, sizeof(m));
	return NLMSG_SPACE(sizeof(m));
}

/* MAPPING events on the event socket (a socketpair standing in for the
 * kernel): ours reach udp_peer once, repeats and others' do not. */
START_TEST(test_mapping_event)
{
	struct map_seen seen = { 0 };
	struct datapath_events ev = { .arg = &seen, .udp_peer = on_udp_peer };
	uint8_t buf[1024];
	struct datapath *dp;
	struct hip_addr want;
	int sv[2], ev_sv[2];
	size_t n = 0;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, ev_sv), 0);
	ck_assert_int_eq(xfrm_dp_create_fds(&dp, NULL, &ev, sv[0], 1, ev_sv[0]), 0);
	/* another daemon's SA; a reserved SPI; port 0; cut short */
	n += mapping_msg(buf + n, 7, AF_INET, "198.51.100.7", 30001, 0x1001);
	n += mapping_msg(buf + n, HIP_XFRM_REQID_DEFAULT, AF_INET, "198.51.100.7", 30001, 12);
	n += mapping_msg(buf + n, HIP_XFRM_REQID_DEFAULT, AF_INET, "198.51.100.7", 0, 0x1001);
	ck_assert_int_eq(send(ev_sv[1], buf, n, 0), (ssize_t)n);
	n = mapping_msg(buf, HIP_XFRM_REQID_DEFAULT, AF_INET, "198.51.100.7", 30001, 0x1001);
	ck_assert_int_eq(send(ev_sv[1], buf, n - 4, 0), (ssize_t)n - 4);
	xfrm_dp_event_read(dp);
	ck_assert_int_eq(seen.n, 0);
	/* ours, then the kernel's repeats for the next packets */
	memcpy(buf + n, buf, n);
	memcpy(buf + 2 * n, buf, n);
	ck_assert_int_eq(send(ev_sv[1], buf, 3 * n, 0), (ssize_t)(3 * n));
	xfrm_dp_event_read(dp);
	ck_assert_int_eq(seen.n, 1);
	ck_assert_uint_eq(seen.spi, 0x1001);
	ck_assert_uint_eq(seen.port, 30001);
	want = addr("198.51.100.7");
	ck_assert(!memcmp(&seen.addr, &want, sizeof(want)));
	/* IPv6, another SA */
	n = mapping_msg(buf, HIP_XFRM_REQID_DEFAULT, AF_INET6, "2001:db8::7", 40001, 0x1002);
	ck_assert_int_eq(send(ev_sv[1], buf, n, 0), (ssize_t)n);
	xfrm_dp_event_read(dp);
	ck_assert_int_eq(seen.n, 2);
	ck_assert_uint_eq(seen.port, 40001);
	want = addr("2001:db8::7");
	ck_assert(!memcmp(&seen.addr, &want, sizeof(want)));
	dp->ops->free(dp);
	close(sv[1]);
	close(ev_sv[1]);
}
END_TEST

static Suite *xfrm_suite(void)
{
	Suite *s = suite_create("xfrm");
	TCase *tc = tcase_create("netns");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_probe_matches_iproute2);
	tcase_add_test(tc, test_policy_pair_add_del);
	tcase_add_test(tc, test_policy_foreign_pair_kept);
	tcase_add_test(tc, test_policy_mixed_families_refused);
	tcase_add_test(tc, test_flush_only_ours);
	tcase_add_test(tc, test_acquire_policy);
	tcase_add_loop_test(tc, test_acquire_event, 0, 2);
	tcase_add_test(tc, test_sa_bad_input);
	tcase_add_test(tc, test_sa_gcm);
	tcase_add_test(tc, test_sa_cbc_sha256);
	tcase_add_test(tc, test_sa_cbc_sha1);
	tcase_add_test(tc, test_sa_replace);
	tcase_add_test(tc, test_sa_encap_ports);
	tcase_add_test(tc, test_mapping_event);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(xfrm_suite)
