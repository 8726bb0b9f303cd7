/*
 * bex_harness.c - see bex_harness.h.
 */
#include "bex_harness.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksum.h"
#include "net/hosts.h"
#include "base/log.h"
#include "base/loop.h"

static int bex_send(struct hipd *d, const uint8_t *pkt, size_t len,
		    const struct hip_addr *src, const struct hip_addr *dst)
{
	struct bex_host *h = d->send_ctx;
	struct bex_net *n = h->net;
	struct bex_pkt *p;
	uint8_t type = pkt[2] & 0x7f;

	ck_assert_uint_le(len, HIP_MAX_PACKET);
	ck_assert_uint_lt(n->n, BEX_QUEUE_MAX);
	/* Every packet hipd sends must verify: the wire is real. */
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, src, dst), 0);
	p = &n->q[n->n++];
	memcpy(p->buf, pkt, len);
	p->len = len;
	p->src = *src;
	p->dst = *dst;
	p->from = h->idx;
	if (type < BEX_TYPES) {
		n->sent[h->idx][type]++;
		n->last[type] = *p;
	}
	return 0;
}

static void rm_dir(const char *path);

/* Every host directory lives below one base directory made in the test
 * runner (unchecked fixture): it is removed there even when a test's
 * process died on a failed assertion. */
static char bex_base[64];

void bex_tmp_setup(void)
{
	char base[] = "/tmp/check_bex.XXXXXX";

	if (mkdtemp(base))
		snprintf(bex_base, sizeof(bex_base), "%s", base);
}

void bex_tmp_teardown(void)
{
	char sub[BEX_PATH * 2];
	struct dirent *de;
	DIR *dir;

	if (!bex_base[0] || !(dir = opendir(bex_base)))
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", bex_base, de->d_name);
		rm_dir(sub);
	}
	closedir(dir);
	rmdir(bex_base);
	bex_base[0] = '\0';
}

static void host_init(struct bex_net *n, int idx, const struct bex_opts *o)
{
	struct bex_host *h = &n->h[idx];
	static const uint8_t def_groups[] = { HIP_DH_NIST_P256, HIP_DH_NIST_P384 };
	struct hipd *d = &h->d;
	const uint8_t *groups = o->n_groups ? o->groups : def_groups;
	size_t ng = o->n_groups ? o->n_groups : sizeof(def_groups);
	char dir[96];
	int ret;

	memset(h, 0, sizeof(*h));
	h->net = n;
	h->idx = idx;
	snprintf(dir, sizeof(dir), "%s/host.XXXXXX", bex_base[0] ? bex_base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(h->dir, sizeof(h->dir), "%s", dir);
	hipd_conf_defaults(&d->conf);
	snprintf(d->conf.hi_file, sizeof(d->conf.hi_file), "%s/hi.pem", dir);
	snprintf(d->conf.state_dir, sizeof(d->conf.state_dir), "%s", dir);
	d->conf.hi_algorithm = o->kind;
	d->conf.puzzle_k = o->k;
	d->conf.puzzle_auto = false;
	memcpy(d->conf.dh_groups, groups, ng);
	d->conf.n_dh_groups = ng;
	if (o->i1_retries)
		d->conf.i1_retries = o->i1_retries;
	d->loop = n->loop;
	d->raw4 = d->raw6 = -1;
	d->priv_fd = -1;
	d->send_packet = bex_send;
	d->send_ctx = h;
	d->control = o->control;
	ret = hosts_create(&d->hosts);
	ck_assert_int_eq(ret, 0);
	ret = hipd_engine_start(d);
	ck_assert_msg(ret == 0, "engine start: %s", strerror(-ret));
	if (o->ipv6)
		ck_assert_int_eq(hip_addr_from_str("::1", &h->addr), 0);
	else
		ck_assert_int_eq(hip_addr_from_str(idx ? "127.0.0.2" : "127.0.0.1", &h->addr), 0);
}

void bex_net_init(struct bex_net *n, const struct bex_opts *a, const struct bex_opts *b)
{
	int i;

	memset(n, 0, sizeof(*n));
	log_set_level(getenv("BEX_DEBUG") ? LOG_DEBUG : LOG_ERR);
	ck_assert_int_eq(hip_loop_create(&n->loop), 0);
	host_init(n, 0, a);
	host_init(n, 1, b);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(hosts_add(n->h[i].d.hosts, bex_hit(&n->h[1 - i]),
					   &n->h[1 - i].addr), 0);
}

static void rm_dir(const char *path)
{
	char file[BEX_PATH * 2];
	struct dirent *de;
	DIR *dir = opendir(path);

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		unlink(file);
	}
	closedir(dir);
	rmdir(path);
}

void bex_net_free(struct bex_net *n)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct hipd *d = &n->h[i].d;

		/* stop sends CLOSEs: let them go into the queue, unread */
		n->n = 0;
		hipd_engine_stop(d);
		hosts_free(d->hosts);
		d->hosts = NULL;
		rm_dir(n->h[i].dir);
	}
	hip_loop_free(n->loop);
}

static void queue_remove(struct bex_net *n, unsigned i, struct bex_pkt *out)
{
	if (out)
		*out = n->q[i];
	memmove(&n->q[i], &n->q[i + 1], (n->n - i - 1) * sizeof(n->q[0]));
	n->n--;
}

static int deliver_at(struct bex_net *n, unsigned i)
{
	struct bex_pkt *p = malloc(sizeof(*p));
	uint8_t type;
	int to;

	ck_assert_ptr_nonnull(p);
	queue_remove(n, i, p);
	type = p->buf[2] & 0x7f;
	to = 1 - p->from;
	if (type < BEX_TYPES && n->drop_next[type]) {
		n->drop_next[type]--;
		n->dropped++;
		free(p);
		return -(int)type;
	}
	if (!n->keep_i1_storm)
		i1_storm_forget(&n->h[to].d.engine->i1_storm);
	hipd_engine_input(&n->h[to].d, p->buf, p->len, &p->src, &p->dst);
	free(p);
	return type;
}

int bex_deliver_one(struct bex_net *n)
{
	if (n->n == 0)
		return 0;
	return deliver_at(n, 0);
}

unsigned bex_run(struct bex_net *n, unsigned limit)
{
	unsigned done = 0;

	while (n->n && done < limit) {
		bex_deliver_one(n);
		done++;
	}
	return done;
}

bool bex_take(struct bex_net *n, int from, uint8_t type, struct bex_pkt *out)
{
	unsigned i;

	for (i = 0; i < n->n; i++) {
		if (n->q[i].from == from && (n->q[i].buf[2] & 0x7f) == type) {
			queue_remove(n, i, out);
			return true;
		}
	}
	return false;
}

bool bex_deliver_match(struct bex_net *n, int from, uint8_t type)
{
	unsigned i;

	for (i = 0; i < n->n; i++)
		if (n->q[i].from == from && (n->q[i].buf[2] & 0x7f) == type) {
			deliver_at(n, i);
			return true;
		}
	return false;
}

void bex_inject(struct bex_net *n, int to, uint8_t *pkt, size_t len,
		const struct hip_addr *src, const struct hip_addr *dst)
{
	hip_packet_set_checksum(pkt, len, src, dst);
	if (!n->keep_i1_storm)
		i1_storm_forget(&n->h[to].d.engine->i1_storm);
	hipd_engine_input(&n->h[to].d, pkt, len, src, dst);
}

void bex_fire(struct bex_host *h)
{
	struct hip_ha *ha = bex_ha(h);

	if (!ha || !ha->retx_timer)
		return;
	ck_assert_int_eq(hip_loop_timer_rearm(h->d.loop, ha->retx_timer, 0), 0);
	ck_assert_int_ge(hip_loop_run_once(h->d.loop, 0), 1);
}

const struct hip_hit *bex_hit(struct bex_host *h)
{
	return &hidb_default(h->d.hidb)->hit;
}

struct hip_ha *bex_ha(struct bex_host *h)
{
	return hadb_find_peer(h->d.hadb, bex_hit(&h->net->h[1 - h->idx]));
}

enum hip_state bex_state(struct bex_host *h)
{
	struct hip_ha *ha = bex_ha(h);

	return ha ? ha->state : HIP_STATE_UNASSOCIATED;
}

uint64_t bex_drops(struct bex_host *h)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < HIPD_DROP_COUNT_; i++)
		sum += h->d.stats->drop[i];
	return sum;
}
