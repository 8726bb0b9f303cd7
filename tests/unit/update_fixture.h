/*
 * update_fixture.h - shared by check_update.c (UPDATE and mobility) and
 * check_update_rekey.c (rekeying, SAs refused or gone): two in-process
 * engines (bex_harness) on a recording datapath that stands in for the
 * kernel / userspace ESP, so the SA and policy moves can be checked.
 */
#ifndef UPDATE_FIXTURE_H
#define UPDATE_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "bex_harness.h"
#include "datapath/datapath.h"
#include "packet.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])

/* ---- a datapath that records what it holds ------------------------------ */

enum { FAKE_SA_MAX = 16 };

struct fake_dp {
	struct datapath dp;
	struct hip_esp_sa sa[FAKE_SA_MAX];
	bool used[FAKE_SA_MAX];
	bool policy;
	struct hip_addr pol_local, pol_peer;
	unsigned policy_adds;
	bool refuse_out;        /* outbound SAs: -EEXIST, as for an SPI collision */
	bool lsi_policy;        /* the LSI pair's policy (D-22) */
	struct in_addr lsi_pol_local, lsi_pol_peer;
};

/* The datapaths of host 0 (A) and host 1 (B), set up by setup_fake_dps(). */
extern struct fake_dp fdp[2];

/* How many inbound (or outbound) SAs f holds. */
unsigned fake_count(const struct fake_dp *f, bool inbound);
/* The SA with that SPI and direction; fails the test if there is none. */
const struct hip_esp_sa *fake_sa(struct fake_dp *f, uint32_t spi, bool inbound);

/* ---- helpers ------------------------------------------------------------ */

struct hip_addr addr(const char *s);
bool addr_eq(const struct hip_addr *a, const struct hip_addr *b);
/* Both engines with the recording datapath, nothing exchanged yet. */
void setup_fake_dps(struct bex_net *n, bool ipv6);
/* The same, host A's / B's datapath carrying IPv4 between LSIs (D-22). */
void setup_fake_dps_lsi(struct bex_net *n, bool ipv6, bool lsi_a, bool lsi_b);
/* The datapath of host i holds exactly the association's SAs on its locators. */
void assert_dp_matches(struct bex_net *n, int i);
/* Both ESTABLISHED with their SAs on the association's locators. */
void assert_up_with_sas(struct bex_net *n);
/* Both engines with the recording datapath, base exchange done. */
void setup(struct bex_net *n, bool ipv6);
void teardown(struct bex_net *n);
/* Parse p, which must be an UPDATE. */
void parse(const struct bex_pkt *p, struct hip_packet *out);

#endif
