/*
 * sa.c - an association's ESP SA pair and policies in the datapath
 * (datapath/datapath.h): installed after the base exchange, moved by UPDATE
 * (new locators, new keys), removed on CLOSE, replacement, failure and free
 * (RFC 7402 §3.3.1, §6.7; docs/requirements.md E-10). Exactly what was
 * installed is remembered in the association.
 *
 * Keys by direction (RFC 7401 §6.5, RFC 7402 §7): HOST_g is the host with
 * the greater HIT; what it sends is protected with the "gl" keys, what the
 * other host sends with the "lg" keys.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "assoc.h"
#include "datapath/datapath.h"
#include "engine/engine_int.h"
#include "hit.h"

enum { ENG_DP_REPLAY_WINDOW = 128 };

/* The soft limit of a hard one (RFC 7402 §3.3.7: soft -> rekey, hard ->
 * the SA goes): 10% earlier, and a random further 0-5% per SA, so the two
 * hosts, whose SAs were installed within a round trip of each other, do
 * not both start a rekey at the same moment (crossed rekeys are resolved,
 * update_rekey.c, but cost an extra exchange). 0 (none) below 2. */
static uint64_t sa_soft_limit(uint64_t hard)
{
	uint64_t margin = hard / 10 ? hard / 10 : 1, span = hard / 20, r, jitter = 0;

	if (hard < 2)
		return 0;
	if (span && hip_random(&r, sizeof(r)) == 0)
		jitter = r % (span + 1);
	return hard - margin - jitter;
}

static int fill_sa_keys(const struct hipd *d, const struct hip_ha *ha, bool inbound,
			uint32_t spi, const struct hip_esp_keys *k, struct hip_esp_sa *sa)
{
	/* The sender's keys: gl if the sender is HOST_g. */
	bool gl = eng_local_is_greater(ha) != inbound;

	if (k->enc_len > sizeof(sa->enc_key) || k->auth_len > sizeof(sa->auth_key))
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->inbound = inbound;
	sa->suite = ha->esp_suite;
	sa->replay_window = ENG_DP_REPLAY_WINDOW;
	sa->spi = spi;
	/* Every install (base exchange, rekey, move) gets the configured
	 * lifetimes; with 64-bit ESN the sequence number never runs out. */
	sa->hard_seconds = d->conf.sa_lifetime_seconds;
	sa->soft_seconds = sa_soft_limit(sa->hard_seconds);
	sa->hard_bytes = d->conf.sa_lifetime_bytes;
	sa->soft_bytes = sa_soft_limit(sa->hard_bytes);
	/* ESP in UDP when the association runs over UDP (RFC 9028 §5.1):
	 * from our NAT port to the peer's port as we last heard it */
	if (ha->peer_port) {
		sa->encap_sport = inbound ? ha->peer_port : (uint16_t)d->conf.nat_port;
		sa->encap_dport = inbound ? (uint16_t)d->conf.nat_port : ha->peer_port;
	}
	if (inbound) {
		sa->outer_src = ha->addr_peer;
		sa->outer_dst = ha->addr_local;
		sa->inner_src = ha->hit_peer;
		sa->inner_dst = ha->hit_local;
	} else {
		sa->outer_src = ha->addr_local;
		sa->outer_dst = ha->addr_peer;
		sa->inner_src = ha->hit_local;
		sa->inner_dst = ha->hit_peer;
	}
	sa->enc_len = k->enc_len;
	sa->auth_len = k->auth_len;
	memcpy(sa->enc_key, gl ? k->gl_enc : k->lg_enc, k->enc_len);
	memcpy(sa->auth_key, gl ? k->gl_auth : k->lg_auth, k->auth_len);
	return 0;
}

static int fill_sa(const struct hipd *d, const struct hip_ha *ha, bool inbound,
		   struct hip_esp_sa *sa)
{
	return fill_sa_keys(d, ha, inbound, inbound ? ha->spi_in : ha->spi_out, &ha->esp_keys, sa);
}

/* The LSI pair's SA (D-22): IPv4 inner between the LSIs, on the
 * locators the HIT pair has in the datapath. */
static int fill_lsi_sa(const struct hipd *d, const struct hip_ha *ha, bool inbound,
		       const struct hip_esp_keys *k, struct hip_esp_sa *sa)
{
	const struct hip_lsi_pair *lp = ha->lsi;
	int ret = fill_sa_keys(d, ha, inbound, inbound ? lp->spi_in : lp->spi_out, k, sa);

	sa->inner_v4 = true;
	sa->lsi_src = inbound ? lp->peer : lp->local;
	sa->lsi_dst = inbound ? lp->local : lp->peer;
	sa->outer_src = inbound ? ha->dp_loc_peer : ha->dp_loc_local;
	sa->outer_dst = inbound ? ha->dp_loc_local : ha->dp_loc_peer;
	return ret;
}

/* Both LSI SAs with keys k (inbound first, as for the HIT pair); in
 * place when they exist (datapath.h). */
static int lsi_sas_put(struct hipd *d, struct hip_ha *ha, const struct hip_esp_keys *k)
{
	struct datapath *dp = d->engine->dp;
	struct hip_esp_sa sa;
	int ret, i;

	for (i = 0; i < 2; i++) {
		ret = fill_lsi_sa(d, ha, i == 0, k, &sa);
		if (ret == 0)
			ret = dp->ops->sa_add(dp, &sa);
		hip_wipe(&sa, sizeof(sa));
		if (ret < 0)
			return ret;
		if (i == 0)
			ha->lsi->dp_spi_in = ha->lsi->spi_in;
		else
			ha->lsi->dp_spi_out = ha->lsi->spi_out;
	}
	return 0;
}

void eng_dp_lsi_remove(struct hipd *d, struct hip_ha *ha)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;
	struct hip_lsi_pair *lp = ha->lsi;

	if (!lp)
		return;
	/* The policies first: no IPv4 leaves in clear between. */
	if (dp && lp->dp_policy && dp->ops->policy_lsi_del)
		dp->ops->policy_lsi_del(dp, &lp->local, &lp->peer);
	lp->dp_policy = false;
	if (dp && lp->dp_spi_out)
		dp->ops->sa_del(dp, lp->dp_spi_out, false, &ha->dp_loc_peer);
	if (dp && lp->dp_spi_in)
		dp->ops->sa_del(dp, lp->dp_spi_in, true, &ha->dp_loc_local);
	lp->dp_spi_in = lp->dp_spi_out = 0;
}

/* The LSI pair after the HIT pair (D-22): its failure costs IPv4 over
 * LSIs, not the association. */
static void lsi_install(struct hipd *d, struct hip_ha *ha, const char *hit)
{
	struct datapath *dp = d->engine->dp;
	struct hip_lsi_pair *lp = ha->lsi;
	char a[INET_ADDRSTRLEN];
	int ret;

	if (!lp || !lp->spi_out || !lp->spi_in || !dp->ops->policy_lsi_add)
		return;
	ret = lsi_sas_put(d, ha, &lp->keys);
	if (ret == 0)
		ret = dp->ops->policy_lsi_add(dp, &lp->local, &lp->peer, &ha->dp_loc_local,
					      &ha->dp_loc_peer);
	if (ret < 0) {
		log_warn("LSI SA pair with %s not set up: %s; IPv4 over LSIs not with it", hit,
			 strerror(-ret));
		if (lp->dp_spi_out)   /* no policy was made: only the SAs go */
			dp->ops->sa_del(dp, lp->dp_spi_out, false, &ha->dp_loc_peer);
		if (lp->dp_spi_in)
			dp->ops->sa_del(dp, lp->dp_spi_in, true, &ha->dp_loc_local);
		lp->dp_spi_in = lp->dp_spi_out = 0;
		return;
	}
	lp->dp_policy = true;
	d->stats->lsi_pairs++;
	log_info("ESP SAs 0x%08x (in) and 0x%08x (out) for IPv4 with %s (LSI %s) installed",
		 lp->spi_in, lp->spi_out, hit, inet_ntop(AF_INET, &lp->peer, a, sizeof(a)));
}

bool eng_dp_carries_ipv4(const struct hipd *d)
{
	const struct datapath *dp = d->engine ? d->engine->dp : NULL;

	return dp && dp->ops->policy_lsi_add && dp->ops->policy_lsi_del;
}

int eng_dp_lsi_rekey(struct hipd *d, struct hip_ha *ha, const struct hip_esp_keys *k)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;
	struct hip_lsi_pair *lp = ha->lsi;

	if (!dp || !lp || !lp->dp_spi_out)
		return 0;
	/* New SAs, not a replace in place: a replace keeps the SA's age (a
	 * move must), and new keys start a new lifetime (RFC 7402 §3.3.7).
	 * The policy stays; for the moment between, IPv4 to the peer is held
	 * or raises an ACQUIRE that finds the association up. */
	dp->ops->sa_del(dp, lp->dp_spi_in, true, &ha->dp_loc_local);
	dp->ops->sa_del(dp, lp->dp_spi_out, false, &ha->dp_loc_peer);
	lp->dp_spi_in = lp->dp_spi_out = 0;
	return lsi_sas_put(d, ha, k);
}

int eng_dp_install(struct hipd *d, struct hip_ha *ha)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;
	struct hip_esp_sa sa;
	char hit[HIP_HIT_STR_LEN];
	int ret;

	if (!dp)
		return 0;
	eng_dp_remove(d, ha);
	hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit));
	ha->dp_loc_local = ha->addr_local;
	ha->dp_loc_peer = ha->addr_peer;
	/* Inbound first: the peer may send as soon as it has its own SAs. */
	ret = fill_sa(d, ha, true, &sa);
	if (ret == 0)
		ret = dp->ops->sa_add(dp, &sa);
	hip_wipe(&sa, sizeof(sa));
	if (ret < 0)
		goto fail;
	ha->dp_installed = true;
	ha->dp_spi_in = ha->spi_in;
	ret = fill_sa(d, ha, false, &sa);
	if (ret == 0)
		ret = dp->ops->sa_add(dp, &sa);
	hip_wipe(&sa, sizeof(sa));
	if (ret < 0)
		goto fail;
	ret = dp->ops->policy_add(dp, &ha->hit_local, &ha->hit_peer, &ha->addr_local,
				  &ha->addr_peer);
	if (ret < 0) {
		dp->ops->sa_del(dp, ha->spi_out, false, &ha->addr_peer);
		goto fail;
	}
	/* An outbound SPI recorded means: out SA and both policies. */
	ha->dp_spi_out = ha->spi_out;
	log_info("ESP SAs 0x%08x (in) and 0x%08x (out) with %s installed (%s datapath)",
		 ha->spi_in, ha->spi_out, hit, dp->ops->name);
	lsi_install(d, ha, hit);
	return 0;
fail:
	log_err("ESP with %s not set up: %s; closing the association", hit, strerror(-ret));
	eng_dp_remove(d, ha);           /* fsm.c closes it (eng_ha_close_if_sasless) */
	return ret;
}

void eng_dp_remove(struct hipd *d, struct hip_ha *ha)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;

	if (!ha->dp_installed)
		return;
	ha->dp_installed = false;
	eng_dp_lsi_remove(d, ha);
	if (!dp)
		return;
	/* The policies first: no packet may leave in clear between. */
	if (ha->dp_spi_out) {
		dp->ops->policy_del(dp, &ha->hit_local, &ha->hit_peer);
		dp->ops->sa_del(dp, ha->dp_spi_out, false, &ha->dp_loc_peer);
	}
	if (ha->dp_spi_in)
		dp->ops->sa_del(dp, ha->dp_spi_in, true, &ha->dp_loc_local);
	ha->dp_spi_in = ha->dp_spi_out = 0;
}

bool eng_ha_lacks_sas(const struct hipd *d, const struct hip_ha *ha)
{
	/* while connectivity checks run there are none yet, on purpose */
	return d->engine && d->engine->dp && !ha->dp_spi_out && !ha->ice_pending;
}

/* One SA of ha into dp, its outer addresses local and peer (the inbound SA
 * from peer to local), keys wiped after. */
static int dp_sa_add_at(struct datapath *dp, const struct hipd *d, const struct hip_ha *ha,
			bool inbound, uint32_t spi, const struct hip_esp_keys *keys,
			const struct hip_addr *local, const struct hip_addr *peer)
{
	struct hip_esp_sa sa;
	int ret;

	ret = fill_sa_keys(d, ha, inbound, spi, keys, &sa);
	if (ret == 0) {
		sa.outer_src = inbound ? *peer : *local;
		sa.outer_dst = inbound ? *local : *peer;
		ret = dp->ops->sa_add(dp, &sa);
	}
	hip_wipe(&sa, sizeof(sa));
	if (ret < 0)
		log_err("ESP SA 0x%08x (%s) not installed: %s", spi, inbound ? "in" : "out",
			strerror(-ret));
	return ret;
}

int eng_dp_sa_add(struct hipd *d, struct hip_ha *ha, bool inbound, uint32_t spi,
		  const struct hip_esp_keys *keys)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;

	if (!dp || !ha->dp_installed)
		return 0;
	return dp_sa_add_at(dp, d, ha, inbound, spi, keys, &ha->addr_local, &ha->addr_peer);
}

int eng_dp_sa_del(struct hipd *d, bool inbound, uint32_t spi, const struct hip_addr *dst)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;

	if (!dp || !spi)
		return 0;
	return dp->ops->sa_del(dp, spi, inbound, dst);
}

/* The inbound SA alone onto new locators (update_locator.c: the peer moved
 * to the other family and sends there before we may send there). */
int eng_dp_move_inbound(struct hipd *d, struct hip_ha *ha, const struct hip_addr *local,
			const struct hip_addr *peer)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;
	char a[INET6_ADDRSTRLEN];
	int ret;

	if (!dp || !ha->dp_installed || !ha->dp_spi_in)
		return 0;
	ret = dp_sa_add_at(dp, d, ha, true, ha->dp_spi_in, &ha->esp_keys, local, peer);
	if (ret < 0)
		return ret;
	if (ha->lsi && ha->lsi->dp_spi_in) {
		struct hip_esp_sa sa;
		int r = fill_lsi_sa(d, ha, true, &ha->lsi->keys, &sa);

		sa.outer_src = *peer;
		sa.outer_dst = *local;
		if (r == 0)
			r = dp->ops->sa_add(dp, &sa);
		hip_wipe(&sa, sizeof(sa));
		if (r < 0)   /* IPv4 over LSIs suffers; the HIT pair moved */
			log_err("LSI ESP SA 0x%08x (in) not moved: %s", ha->lsi->dp_spi_in,
				strerror(-r));
	}
	ha->dp_loc_local = *local;
	log_info("ESP SA 0x%08x (in) moved to %s ahead of the address check", ha->dp_spi_in,
		 hip_addr_to_str(local, a, sizeof(a)));
	return 0;
}

/* Same SPIs and keys on new locators: sa_add replaces in place, policy_add
 * updates the pair (datapath.h), so no packet meets a missing SA. */
int eng_dp_move(struct hipd *d, struct hip_ha *ha)
{
	struct datapath *dp = d->engine ? d->engine->dp : NULL;
	int ret;

	if (!dp || !ha->dp_installed)
		return 0;
	ret = eng_dp_sa_add(d, ha, true, ha->dp_spi_in, &ha->esp_keys);
	if (ret < 0)
		return ret;
	ha->dp_loc_local = ha->addr_local;   /* the inbound SA's outer dst */
	if (ha->dp_spi_out) {
		ret = eng_dp_sa_add(d, ha, false, ha->dp_spi_out, &ha->esp_keys);
		if (ret < 0)
			return ret;
		ha->dp_loc_peer = ha->addr_peer;
		ret = dp->ops->policy_add(dp, &ha->hit_local, &ha->hit_peer, &ha->addr_local,
					  &ha->addr_peer);
		if (ret < 0)
			log_err("ESP policy update: %s", strerror(-ret));
	}
	/* the LSI pair on the same new locators (D-22) */
	if (ret == 0 && ha->lsi && ha->lsi->dp_spi_out) {
		int r = lsi_sas_put(d, ha, &ha->lsi->keys);

		if (r == 0)
			r = dp->ops->policy_lsi_add(dp, &ha->lsi->local, &ha->lsi->peer,
						    &ha->dp_loc_local, &ha->dp_loc_peer);
		if (r < 0)   /* IPv4 over LSIs suffers; the association moved */
			log_err("LSI ESP SAs not moved: %s", strerror(-r));
	}
	return ret;
}
