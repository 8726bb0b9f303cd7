/*
 * check_ice_restart.c - ICE restart on mobility (RFC 9028 §4.9,
 * hipd/engine/update/update_ice.c, update_locator.c): the LOCATOR_SET a
 * host sends after a move (its host candidates), when a peer's LOCATOR_SET
 * restarts the checks (the pair in use is gone) and when not, and the NAT
 * rule of RFC 8046 mobility over UDP (a LOCATOR_SET from an address none of
 * its locators names: the address seen is checked).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "engine/assoc/hadb.h"
#include "engine/engine_int.h"
#include "engine/update/update_int.h"
#include "hit.h"
#include "net/locset.h"
#include "packet.h"
#include "params.h"
#include "unit.h"

static struct hipd d;
static struct hipd_engine e;
static struct hipd_stats st;
static struct hip_ha ha;

static struct hip_addr mkaddr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

/* A (the Initiator, controlling) at 10.255.12.1 with SAs, B's pair in use
 * 203.0.113.2:10500, mode ICE-HIP-UDP. */
static void setup(void)
{
	memset(&d, 0, sizeof(d));
	memset(&e, 0, sizeof(e));
	memset(&st, 0, sizeof(st));
	memset(&ha, 0, sizeof(ha));
	d.engine = &e;
	d.stats = &st;
	d.conf.nat_port = 10500;
	ck_assert_int_eq(hip_loop_create(&d.loop), 0);
	ha.hit_local.b[0] = 0x20;
	ha.hit_peer.b[0] = 0x20;
	ha.hit_local.b[15] = 1;
	ha.hit_peer.b[15] = 2;
	ha.nat_mode = HIP_NAT_MODE_ICE_HIP_UDP;
	ha.initiator = true;
	ha.dp_installed = true;
	ha.spi_in = 0x1111;
	ha.spi_out = 0x2222;
	ha.state = HIP_STATE_ESTABLISHED;
	ha.addr_local = mkaddr("10.255.12.1");
	ha.addr_peer = mkaddr("203.0.113.2");
	ha.peer_port = 10500;
}

static void teardown(void)
{
	upd_ice_free(&ha);
	upd_state_free(&ha);
	if (d.locset)
		locset_free(d.locset);
	hip_loop_free(d.loop);
}

static void transport(struct hip_locator *l, const char *a, uint16_t port)
{
	memset(l, 0, sizeof(*l));
	l->traffic_type = HIP_LOC_TRAFFIC_BOTH;
	l->locator_type = HIP_LOC_TYPE_TRANSPORT;
	l->lifetime = 600;
	l->port = port;
	l->transport_protocol = IPPROTO_UDP;
	l->spi = 0x2222;
	l->addr = mkaddr(a);
}

/* An ICE association whose checks ran: B's candidate the pair in use. */
static void ice_running(void)
{
	struct hip_locator_set peer = { .n = 1 };

	transport(&peer.loc[0], "203.0.113.2", 10500);
	peer.loc[0].kind = 1;
	ck_assert_int_eq(upd_ice_start(&d, &ha, &peer), 0);
	ck_assert_str_eq(upd_ice_state(&ha), "checking");
}

/* After a move our LOCATOR_SET holds host candidates: the address in use
 * first and preferred, our other addresses of its family and of the other
 * family where we take UDP in it, on our port and inbound SPI; no server-reflexive one (what a relay saw before the move
 * is stale: the peer takes the address its UPDATE came from instead). */
START_TEST(test_host_candidates)
{
	struct hip_locator_set s;
	struct hip_addr v4b = mkaddr("192.0.2.7"), v6 = mkaddr("2001:db8::7");

	upd_ice_host_candidates(&d, &ha, &s);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.loc[0].locator_type, HIP_LOC_TYPE_TRANSPORT);
	ck_assert_uint_eq(s.loc[0].transport_protocol, IPPROTO_UDP);
	ck_assert_uint_eq(s.loc[0].kind, 0);
	ck_assert_uint_eq(s.loc[0].port, 10500);
	ck_assert_uint_eq(s.loc[0].spi, 0x1111);
	ck_assert_uint_eq(s.loc[0].priority, 126u << 24 | 65534u << 8 | 255u);
	ck_assert(s.loc[0].preferred);
	ck_assert_mem_eq(&s.loc[0].addr, &ha.addr_local, sizeof(ha.addr_local));
	ck_assert_int_eq(locset_create(&d.locset), 0);
	ck_assert_int_eq(locset_add(d.locset, &v6, 2, false), 0);
	ck_assert_int_eq(locset_add(d.locset, &v4b, 3, false), 0);
	ck_assert_int_eq(locset_add(d.locset, &ha.addr_local, 4, false), 0);
	upd_ice_host_candidates(&d, &ha, &s);
	ck_assert_uint_eq(s.n, 2);                  /* no IPv6, no duplicate */
	ck_assert_mem_eq(&s.loc[0].addr, &ha.addr_local, sizeof(ha.addr_local));
	ck_assert_mem_eq(&s.loc[1].addr, &v4b, sizeof(v4b));
	ck_assert(!s.loc[1].preferred);
	/* with UDP over IPv6 (listen_v6 and its socket): IPv6 too */
	d.conf.listen_v6 = true;
	d.udp6 = 7;
	upd_ice_host_candidates(&d, &ha, &s);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_mem_eq(&s.loc[0].addr, &ha.addr_local, sizeof(ha.addr_local));
	ck_assert_mem_eq(&s.loc[1].addr, &v6, sizeof(v6));
	ck_assert_uint_eq(s.loc[1].priority, 126u << 24 | 65535u << 8 | 255u);
}
END_TEST

/* The peer's LOCATOR_SET restarts the checks only when the pair in use is
 * gone: neither the UPDATE's source nor one of its candidates. */
START_TEST(test_peer_locators_restart)
{
	struct hip_locator_set ls = { .n = 1 };
	struct hip_addr same = mkaddr("203.0.113.2"), moved = mkaddr("192.0.2.2");
	struct hip_addr relay = mkaddr("198.51.100.1"), me = mkaddr("10.255.12.1");
	struct hip_packet pkt;
	struct eng_rx rx = { .pkt = &pkt, .src = &same, .dst = &me, .sport = 10500 };

	memset(&pkt, 0, sizeof(pkt));
	ice_running();
	transport(&ls.loc[0], "10.255.11.1", 10500);
	/* from the pair in use: nothing moved for us */
	ck_assert_int_eq(upd_ice_locator_rx(&d, &rx, &ha, &ls), 0);
	ck_assert_uint_eq(st.ice_restarts, 0);
	/* from elsewhere but the pair in use among the candidates: none */
	rx.src = &moved;
	transport(&ls.loc[1], "203.0.113.2", 10500);
	ls.n = 2;
	ck_assert_int_eq(upd_ice_locator_rx(&d, &rx, &ha, &ls), 0);
	ck_assert_uint_eq(st.ice_restarts, 0);
	/* over raw IP: no checks at all */
	ls.n = 1;
	rx.sport = 0;
	ck_assert_int_eq(upd_ice_locator_rx(&d, &rx, &ha, &ls), 0);
	ck_assert_uint_eq(st.ice_restarts, 0);
	/* through the relay from the peer's new NAT: restarted, the old
	 * pair stays in use until a new one is nominated */
	rx.sport = 10500;
	rx.relay = &relay;
	rx.relay_port = 10500;
	ck_assert_int_eq(upd_ice_locator_rx(&d, &rx, &ha, &ls), 0);
	ck_assert_uint_eq(st.ice_restarts, 1);
	ck_assert_uint_eq(e.ice_started, 2);
	ck_assert(ha.ice_pending);
	ck_assert_str_eq(upd_ice_state(&ha), "checking");
	ck_assert_mem_eq(&ha.addr_peer, &same, sizeof(same));
	ck_assert_uint_eq(ha.peer_port, 10500);
	/* the same port elsewhere: a restart too (the NAT changed) */
	rx.src = &same;
	rx.sport = 20001;
	ck_assert_int_eq(upd_ice_locator_rx(&d, &rx, &ha, &ls), 0);
	ck_assert_uint_eq(st.ice_restarts, 2);
}
END_TEST

/* Without an ICE association (mode 1, or no checks ever ran) there is
 * nothing to restart. */
START_TEST(test_restart_needs_ice)
{
	ck_assert(!upd_ice_active(&ha));
	ck_assert_int_eq(upd_ice_restart(&d, &ha, NULL, NULL, "test"), -ENOENT);
	ice_running();
	ck_assert(upd_ice_active(&ha));
	ha.nat_mode = HIP_NAT_MODE_UDP_ENCAPSULATION;
	ck_assert(!upd_ice_active(&ha));
	ck_assert_int_eq(upd_ice_restart(&d, &ha, NULL, NULL, "test"), -ENOENT);
	ck_assert_uint_eq(st.ice_restarts, 0);
}
END_TEST

/* Both address families (RFC 9028 §4.6, RFC 8421 §4): each candidate of
 * the peer is paired with our base of its family, the other family's only
 * where we take UDP in it (listen_v6 and its socket); after we moved, the
 * pairs kept take our new address as their base. */
START_TEST(test_pairs_both_families)
{
	struct hip_locator_set peer = { .n = 2 };
	struct upd_ice_pair_info p[UPD_ICE_PAIRS_MAX];
	struct hip_addr v6 = mkaddr("2001:db8::7"), moved = mkaddr("10.255.13.1");

	ck_assert_int_eq(locset_create(&d.locset), 0);
	ck_assert_int_eq(locset_add(d.locset, &v6, 2, false), 0);
	transport(&peer.loc[0], "203.0.113.2", 10500);
	peer.loc[0].kind = 1;
	peer.loc[0].priority = 100u << 24 | 65534u << 8 | 255u;
	transport(&peer.loc[1], "2001:db8:1::9", 10500);
	peer.loc[1].priority = 126u << 24 | 65535u << 8 | 255u;
	/* no UDP over IPv6 here: the IPv4 pair alone */
	ck_assert_int_eq(upd_ice_start(&d, &ha, &peer), 0);
	ck_assert_uint_eq(upd_ice_pairs(&ha, p, UPD_ICE_PAIRS_MAX), 1);
	ck_assert_mem_eq(&p[0].local, &ha.addr_local, sizeof(ha.addr_local));
	ck_assert_str_eq(p[0].kind, "server-reflexive");
	ck_assert_str_eq(p[0].state, "waiting");
	ck_assert(!p[0].nominated);
	upd_ice_free(&ha);
	d.conf.listen_v6 = true;
	d.udp6 = 7;
	ck_assert_int_eq(upd_ice_start(&d, &ha, &peer), 0);
	ck_assert_uint_eq(upd_ice_pairs(&ha, p, UPD_ICE_PAIRS_MAX), 2);
	ck_assert_mem_eq(&p[0].peer, &peer.loc[1].addr, sizeof(v6));   /* IPv6 host first */
	ck_assert_mem_eq(&p[0].local, &v6, sizeof(v6));
	ck_assert_str_eq(p[0].kind, "host");
	ck_assert_mem_eq(&p[1].local, &ha.addr_local, sizeof(ha.addr_local));
	ck_assert_uint_eq(upd_ice_pairs(&ha, p, 1), 1);
	/* we moved (route or address): the IPv4 pair's base follows */
	ha.addr_local = moved;
	ck_assert_int_eq(upd_ice_restart(&d, &ha, NULL, NULL, "test"), 0);
	ck_assert_uint_eq(upd_ice_pairs(&ha, p, UPD_ICE_PAIRS_MAX), 2);
	ck_assert_mem_eq(&p[1].local, &moved, sizeof(moved));
	ck_assert_mem_eq(&p[0].local, &v6, sizeof(v6));
	ck_assert_str_eq(p[1].state, "waiting");
}
END_TEST

/* An UPDATE carrying ls, parsed into pkt (buf holds it). */
static void update_with(const struct hip_locator_set *ls, uint8_t *buf, size_t cap,
			struct hip_packet *pkt)
{
	struct hip_builder b;
	int len;

	hip_build_init(&b, buf, cap, HIP_UPDATE, &ha.hit_peer, &ha.hit_local);
	hip_locator_set_build(&b, ls);
	len = hip_build_finish(&b);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(hip_packet_parse(buf, (size_t)len, pkt), 0);
}

static void esp_spi(struct hip_locator *l, const char *a, uint32_t spi, bool pref)
{
	memset(l, 0, sizeof(*l));
	l->traffic_type = HIP_LOC_TRAFFIC_BOTH;
	l->locator_type = HIP_LOC_TYPE_ESP_SPI;
	l->lifetime = 600;
	l->spi = spi;
	l->preferred = pref;
	l->addr = mkaddr(a);
}

/* RFC 8046 over UDP (mode 1): a LOCATOR_SET from an address none of its
 * locators names came through a NAT; the address and port seen are
 * checked, not the private locator. From one of its locators, or through
 * a relay or rendezvous server, the locators count as sent. */
START_TEST(test_locator_behind_nat)
{
	uint8_t buf[512];
	struct hip_packet pkt;
	struct hip_locator_set ls = { .n = 1 };
	struct hip_addr nat = mkaddr("192.0.2.2"), priv = mkaddr("10.255.12.1");
	struct hip_addr me = mkaddr("198.51.100.1");
	struct eng_rx rx = { .pkt = &pkt, .src = &nat, .dst = &me, .sport = 20001 };
	bool check;

	ha.nat_mode = HIP_NAT_MODE_UDP_ENCAPSULATION;
	ha.addr_local = me;
	ha.addr_peer = mkaddr("198.51.100.2");
	ha.peer_port = 10500;
	esp_spi(&ls.loc[0], "10.255.12.1", 0x2222, true);
	update_with(&ls, buf, sizeof(buf), &pkt);
	ck_assert_int_eq(upd_locator_rx(&d, &rx, &ha, 0x2222, &check), 0);
	ck_assert(check);
	ck_assert_mem_eq(&ha.upd->verify_addr, &nat, sizeof(nat));
	ck_assert_uint_eq(ha.upd->verify_port, 20001);
	ck_assert_uint_eq(ha.upd->n_loc, 2);        /* the NAT's, the old one deprecated */
	ck_assert(upd_peer_loc_find(&ha, &priv) == NULL);
	/* sent from its own locator: that one */
	rx.src = &priv;
	rx.sport = 10500;
	ck_assert_int_eq(upd_locator_rx(&d, &rx, &ha, 0x2222, &check), 0);
	ck_assert(check);
	ck_assert_mem_eq(&ha.upd->verify_addr, &priv, sizeof(priv));
	ck_assert_uint_eq(ha.upd->verify_port, 10500);
	/* over raw IP: the locators as sent */
	rx.src = &nat;
	rx.sport = 0;
	ha.peer_port = 0;
	ck_assert_int_eq(upd_locator_rx(&d, &rx, &ha, 0x2222, &check), 0);
	ck_assert(check);
	ck_assert_mem_eq(&ha.upd->verify_addr, &priv, sizeof(priv));
	ck_assert_uint_eq(ha.upd->rx_relay_port, 0);
}
END_TEST

/* Through a control relay, the reply's way back is remembered. */
START_TEST(test_locator_relayed)
{
	uint8_t buf[512];
	struct hip_packet pkt;
	struct hip_locator_set ls = { .n = 1 };
	struct hip_addr nat = mkaddr("192.0.2.2"), relay = mkaddr("198.51.100.1");
	struct hip_addr me = mkaddr("10.255.11.1");
	struct eng_rx rx = { .pkt = &pkt, .src = &nat, .dst = &me, .sport = 10500,
			     .relay = &relay, .relay_port = 10500 };
	bool check;

	ha.nat_mode = HIP_NAT_MODE_UDP_ENCAPSULATION;
	ha.addr_local = me;
	esp_spi(&ls.loc[0], "10.255.12.1", 0x2222, true);
	update_with(&ls, buf, sizeof(buf), &pkt);
	ck_assert_int_eq(upd_locator_rx(&d, &rx, &ha, 0x2222, &check), 0);
	ck_assert_uint_eq(ha.upd->rx_relay_port, 10500);
	ck_assert_mem_eq(&ha.upd->rx_relay, &relay, sizeof(relay));
	ck_assert_mem_eq(&ha.upd->verify_addr, &ls.loc[0].addr, sizeof(ls.loc[0].addr));
}
END_TEST

static Suite *ice_restart_suite(void)
{
	Suite *s = suite_create("ice_restart");
	TCase *tc = tcase_create("restart");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_host_candidates);
	tcase_add_test(tc, test_peer_locators_restart);
	tcase_add_test(tc, test_restart_needs_ice);
	tcase_add_test(tc, test_pairs_both_families);
	tcase_add_test(tc, test_locator_behind_nat);
	tcase_add_test(tc, test_locator_relayed);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(ice_restart_suite)
