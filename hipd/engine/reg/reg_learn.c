/*
 * reg_learn.c - the R1 that answers our opportunistic I1s to a
 * registration server known by its address only (D-16; RFC 8003 §3, RFC
 * 7401 §4.1.8): taken only from the address the I1s went to and naming
 * their sender as receiver; it makes the association it is processed in,
 * and its sender HIT becomes the server's once the I2 is out (trust on
 * first use). The I1s are sent by the registration tick (engine_reg.c).
 */
#include <string.h>

#include "engine/engine_int.h"
#include "hit.h"
#include "reg.h"

struct hip_ha *eng_reg_learning_r1(struct hipd *d, const struct eng_rx *rx)
{
	struct reg_client *c = d->engine->reg_client;
	const struct hip_hit *peer = &rx->pkt->hit_sender;
	char hit[HIP_HIT_STR_LEN], addr[INET6_ADDRSTRLEN];
	struct reg_srv *s;
	struct hip_ha *ha;

	/* only from the address our I1s went to, to the HIT they came from */
	s = c && rx->local ? reg_client_find_learning(c, rx->src, &rx->local->hit) : NULL;
	if (!s)
		return NULL;
	if (reg_client_find(c, peer) || hadb_find_peer(d->hadb, peer)) {
		log_ratelimited(&d->engine->reg_log, LOG_WARNING, "server at %s: its R1 names "
				"%s, a server or peer of ours already: not learnt",
				hip_addr_to_str(&s->addr, addr, sizeof(addr)),
				hip_hit_to_str(peer, hit, sizeof(hit)));
		return NULL;
	}
	if (eng_ha_opportunistic(d, rx->local, peer, rx->dst, &s->addr, s->opp_first_ns, &ha) < 0)
		return NULL;
	/* for the R1's processing (REG_INFO, REG_REQUEST in the I2), until
	 * eng_reg_learning_r1_done keeps or forgets it */
	s->hit = *peer;
	return ha;
}

void eng_reg_learning_r1_done(struct hipd *d, const struct eng_rx *rx)
{
	const struct hip_hit *peer = &rx->pkt->hit_sender;
	struct reg_srv *s = reg_client_find(d->engine->reg_client, peer);
	struct hip_ha *ha = hadb_find_peer(d->hadb, peer);
	char hit[HIP_HIT_STR_LEN], addr[INET6_ADDRSTRLEN];

	if (!s || !s->opportunistic || s->learnt)
		return;
	/* Taken: the I2 is out, or (§6.8 step 4) the R1, its signature
	 * verified, restarted the exchange with another identity of ours. */
	if (ha && (ha->state == HIP_STATE_I2_SENT || ha->local != rx->local)) {
		d->stats->bex_started++;   /* counted once it is one of ours */
		s->learnt = true;
		s->state = REG_SRV_EXCHANGE;
		s->opp_i1s = 0;
		s->attempts = 0;
		log_notice("learnt server HIT %s for %s (opportunistic)",
			   hip_hit_to_str(peer, hit, sizeof(hit)),
			   hip_addr_to_str(&s->addr, addr, sizeof(addr)));
		return;
	}
	/* refused (and counted as a drop): still learning */
	memset(&s->hit, 0, sizeof(s->hit));
	if (ha)
		eng_ha_free(d, ha);
}
