/*
 * update_fixture.c - shared by check_update.c and check_update_rekey.c:
 * a datapath that records the SAs and the policy it holds (standing in for
 * the kernel / userspace ESP), and two engines with the base exchange done
 * on it (bex_harness).
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "update_fixture.h"

static int fake_find(struct fake_dp *f, uint32_t spi, bool inbound)
{
	int i;

	for (i = 0; i < FAKE_SA_MAX; i++)
		if (f->used[i] && f->sa[i].spi == spi && f->sa[i].inbound == inbound)
			return i;
	return -1;
}

static int fake_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	struct fake_dp *f = (struct fake_dp *)dp;
	int i = fake_find(f, sa->spi, sa->inbound);

	if (f->refuse_out && !sa->inbound)
		return -EEXIST;
	for (int j = 0; i < 0 && j < FAKE_SA_MAX; j++)
		if (!f->used[j])
			i = j;
	ck_assert_int_ge(i, 0);
	f->sa[i] = *sa;     /* same SPI and direction: replaced in place */
	f->used[i] = true;
	return 0;
}

static int fake_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		       const struct hip_addr *dst)
{
	struct fake_dp *f = (struct fake_dp *)dp;
	int i = fake_find(f, spi, inbound);

	if (i < 0)
		return -ENOENT;
	/* The kernel finds an SA by (dst, SPI): the caller must know it. */
	ck_assert_mem_eq(dst, &f->sa[i].outer_dst, sizeof(*dst));
	f->used[i] = false;
	return 0;
}

static int fake_policy_add(struct datapath *dp, const struct hip_hit *l, const struct hip_hit *p,
			   const struct hip_addr *ll, const struct hip_addr *pl)
{
	struct fake_dp *f = (struct fake_dp *)dp;

	(void)l;
	(void)p;
	f->policy = true;
	f->pol_local = *ll;
	f->pol_peer = *pl;
	f->policy_adds++;
	return 0;
}

static int fake_policy_del(struct datapath *dp, const struct hip_hit *l, const struct hip_hit *p)
{
	(void)l;
	(void)p;
	((struct fake_dp *)dp)->policy = false;
	return 0;
}

static int fake_sa_stats(struct datapath *dp, uint32_t spi, bool inbound,
			 struct hip_esp_sa_stats *out)
{
	(void)dp;
	(void)spi;
	(void)inbound;
	(void)out;
	return -ENOTSUP;
}

static void fake_flush(struct datapath *dp)
{
	struct fake_dp *f = (struct fake_dp *)dp;

	memset(f->used, 0, sizeof(f->used));
	f->policy = false;
}

static void fake_free(struct datapath *dp)
{
	(void)dp;
}

/* IPv4 between LSIs (D-22): the pair of LSIs the policy is for */
static int fake_policy_lsi_add(struct datapath *dp, const struct in_addr *l,
			       const struct in_addr *p, const struct hip_addr *ll,
			       const struct hip_addr *pl)
{
	struct fake_dp *f = (struct fake_dp *)dp;

	(void)ll;
	(void)pl;
	f->lsi_policy = true;
	f->lsi_pol_local = *l;
	f->lsi_pol_peer = *p;
	return 0;
}

static int fake_policy_lsi_del(struct datapath *dp, const struct in_addr *l,
			       const struct in_addr *p)
{
	(void)l;
	(void)p;
	((struct fake_dp *)dp)->lsi_policy = false;
	return 0;
}

static const struct datapath_ops fake_lsi_ops = {
	.name = "fake-lsi", .sa_add = fake_sa_add, .sa_del = fake_sa_del,
	.policy_add = fake_policy_add, .policy_del = fake_policy_del,
	.policy_lsi_add = fake_policy_lsi_add, .policy_lsi_del = fake_policy_lsi_del,
	.sa_stats = fake_sa_stats, .flush = fake_flush, .free = fake_free,
};

static const struct datapath_ops fake_ops = {
	.name = "fake", .sa_add = fake_sa_add, .sa_del = fake_sa_del,
	.policy_add = fake_policy_add, .policy_del = fake_policy_del,
	.sa_stats = fake_sa_stats, .flush = fake_flush, .free = fake_free,
};

struct fake_dp fdp[2];

unsigned fake_count(const struct fake_dp *f, bool inbound)
{
	unsigned i, n = 0;

	for (i = 0; i < FAKE_SA_MAX; i++)
		n += f->used[i] && f->sa[i].inbound == inbound;
	return n;
}

const struct hip_esp_sa *fake_sa(struct fake_dp *f, uint32_t spi, bool inbound)
{
	int i = fake_find(f, spi, inbound);

	ck_assert_msg(i >= 0, "no %s SA 0x%08x", inbound ? "inbound" : "outbound", spi);
	return &f->sa[i];
}

struct hip_addr addr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

bool addr_eq(const struct hip_addr *a, const struct hip_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Both engines with the recording datapath, nothing exchanged yet. */
void setup_fake_dps(struct bex_net *n, bool ipv6)
{
	setup_fake_dps_lsi(n, ipv6, false, false);
}

void setup_fake_dps_lsi(struct bex_net *n, bool ipv6, bool lsi_a, bool lsi_b)
{
	struct bex_opts o = { .ipv6 = ipv6 };
	int i;

	bex_net_init(n, &o, &o);
	for (i = 0; i < 2; i++) {
		memset(&fdp[i], 0, sizeof(fdp[i]));
		fdp[i].dp.ops = (i ? lsi_b : lsi_a) ? &fake_lsi_ops : &fake_ops;
		n->h[i].d.engine->dp = &fdp[i].dp;
	}
}

/* The datapath of host i holds exactly the association's SAs on its locators. */
void assert_dp_matches(struct bex_net *n, int i)
{
	struct hip_ha *ha = bex_ha(&n->h[i]);
	const struct hip_esp_sa *in = fake_sa(&fdp[i], ha->spi_in, true);
	const struct hip_esp_sa *out = fake_sa(&fdp[i], ha->spi_out, false);

	ck_assert(addr_eq(&in->outer_dst, &ha->addr_local));
	ck_assert(addr_eq(&in->outer_src, &ha->addr_peer));
	ck_assert(addr_eq(&out->outer_src, &ha->addr_local));
	ck_assert(addr_eq(&out->outer_dst, &ha->addr_peer));
	ck_assert(addr_eq(&ha->dp_loc_local, &ha->addr_local));
	ck_assert(addr_eq(&ha->dp_loc_peer, &ha->addr_peer));
	ck_assert(fdp[i].policy);
	ck_assert(addr_eq(&fdp[i].pol_local, &ha->addr_local));
	ck_assert(addr_eq(&fdp[i].pol_peer, &ha->addr_peer));
}

/* Both ESTABLISHED with their SAs on the association's locators. */
void assert_up_with_sas(struct bex_net *n)
{
	int i;

	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(n)), HIP_STATE_ESTABLISHED);
	for (i = 0; i < 2; i++) {
		ck_assert(bex_ha(&n->h[i])->dp_installed);
		ck_assert_uint_eq(fake_count(&fdp[i], true), 1);
		ck_assert_uint_eq(fake_count(&fdp[i], false), 1);
		assert_dp_matches(n, i);
	}
}

/* Both engines with the recording datapath, base exchange done. */
void setup(struct bex_net *n, bool ipv6)
{
	setup_fake_dps(n, ipv6);
	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	bex_run(n, 20);
	bex_fire(B(n));          /* R2-SENT -> ESTABLISHED (EC timer) */
	assert_up_with_sas(n);
}

void teardown(struct bex_net *n)
{
	bex_net_free(n);
}

void parse(const struct bex_pkt *p, struct hip_packet *out)
{
	ck_assert_int_eq(hip_packet_parse(p->buf, p->len, out), 0);
	ck_assert_int_eq(out->type, HIP_UPDATE);
}

