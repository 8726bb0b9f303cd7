/*
 * reg.h - registration (RFC 8003) and rendezvous (RFC 8004): the public
 * face of engine/reg/.
 *
 *   registrar.c   the services we offer, who may register, and the
 *                 registrations we hold (the server side, RFC 8003 §3.3)
 *   reg_client.c  the servers we register with and what they granted
 *                 (the requester side, RFC 8003 §3.1-3.2)
 *   reg_allow.c   the allow-list file of HITs that may register
 *   reg_learn.c   the R1 that teaches the HIT of a server known by its
 *                 address only (D-16)
 *   rvs.c         the rendezvous server's I1 (and UPDATE) relaying with
 *                 FROM and RVS_HMAC, and the client's check of them
 *                 (RFC 8004 §3.3, §4.2-4.3)
 *
 * Nothing here sends a packet of an association or calls the dispatcher:
 * exchange/ and update/ put the parameters into I2, R2 and UPDATE, and the
 * engine's registration tick (engine/engine_reg.c) drives the client.
 */
#ifndef HIPD_REG_H
#define HIPD_REG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hit.h"
#include "params.h"

struct hipd;
struct hip_ha;
struct eng_rx;

enum reg_consts {
	REG_TYPE_SLOTS      = 5,    /* registration types 1..4 (RFC 8003 §7, RFC 9028) */
	REG_SERVERS_MAX     = 8,    /* servers one hipd registers with */
	REG_ALLOW_MAX       = 65536,/* HITs in the allow-list file */
	REG_RENEW_PERCENT   = 80,   /* renew at 80% of the granted lifetime */
	REG_RETRY_S         = 5,    /* a failed attempt is retried after this */
	REG_RETRY_MAX_S     = 300,  /* ... doubling up to this */
	REG_INSUFFICIENT_RETRY_S = 60, /* failure type 2: not immediately (§3.3) */
};

/* Failure types (RFC 8003 §4.5, RFC 9028 §5.10). */
enum reg_failure {
	REG_FAIL_CREDENTIALS   = 0,  /* "additional credentials required": not allowed */
	REG_FAIL_TYPE_UNAVAIL  = 1,
	REG_FAIL_INSUFFICIENT  = 2,  /* out of room, or a registration flood */
	REG_FAIL_SIMULTANEOUS  = 9,  /* rendezvous and relay at once (RFC 9028) */
};

/* "rendezvous", "relay", ...; "type N" for others (buf). */
const char *reg_type_name(uint8_t type, char *buf, size_t len);
/* Name -> type; 0 when unknown. */
uint8_t reg_type_from_name(const char *name);
const char *reg_failure_name(uint8_t failure);

/* ---- reg_allow.c: the allow-list file --------------------------------- */

struct reg_allow;
/* Parse the file's text: one HIT per line, '#' comments, blank lines.
 * Errors name the line ("allow-list:12: 'x' is not a HIT"). */
int reg_allow_parse(struct reg_allow **out, const char *name, const char *buf, size_t len,
		    char *err, size_t errlen);
/* Read path (at most 4 MiB) and parse it. */
int reg_allow_load(struct reg_allow **out, const char *path, char *err, size_t errlen);
void reg_allow_free(struct reg_allow *a);
bool reg_allow_has(const struct reg_allow *a, const struct hip_hit *hit);
size_t reg_allow_count(const struct reg_allow *a);

/* ---- registrar.c: the server side -------------------------------------- */

/* What we offer, from hipd.conf (the R1's REG_INFO and the checks). */
struct reg_policy {
	uint8_t types[REG_TYPE_SLOTS];
	unsigned n_types;
	uint8_t min_lifetime, max_lifetime;   /* RFC 8003 §4.1 codes */
	const struct reg_allow *allow;        /* NULL: anyone with an association */
	size_t max_registrations;             /* beyond: failure type 2 */
	unsigned requests_per_s;              /* beyond: failure type 2 (flood) */
};

/* The REG_INFO of our R1s: false when we offer nothing (no parameter). */
bool reg_policy_info(const struct reg_policy *p, struct hip_reg_info *out);

struct reg_registrar;

/* What the REG_REQUESTs of one packet are answered with: one REG_RESPONSE
 * per granted lifetime (the types granted for it) and one REG_FAILED per
 * failure type (RFC 8003 §3.3). */
struct reg_answer {
	unsigned n_responses;
	struct hip_reg responses[4];          /* value = granted lifetime */
	unsigned n_failed;
	struct hip_reg failed[3];             /* value = failure type */
	/* RFC 9028 §4.1: to a control relay or candidate discovery client,
	 * its transport address as we see it (REG_FROM) */
	bool has_reg_from;
	struct hip_relay_addr reg_from;
	/* RFC 9028 §4.12: a data relay client's relayed address (RELAYED_ADDRESS) */
	bool has_relayed;
	struct hip_relay_addr relayed;
};

struct reg_registrar_counters {
	uint64_t granted, renewed, cancelled, refused, expired, rate_limited;
	uint64_t simultaneous;   /* of refused: type 9, rendezvous with relay */
};

int reg_registrar_create(struct reg_registrar **out);
void reg_registrar_free(struct reg_registrar *r);
/* The REG_REQUESTs of one authenticated packet (I2 or UPDATE) of client,
 * answered in ans. Types we do not offer fail with type 1, a client not on
 * the allow-list with type 0, a full table or a flood with type 2;
 * lifetime 0 cancels; others are clamped to the policy (§3.3). Rendezvous
 * and relay are never held together (docs/decisions.md D-8): the one the
 * client holds stays, the other fails with type 9; asked together, the
 * relay is granted and rendezvous fails. */
void reg_registrar_request(struct reg_registrar *r, const struct reg_policy *p,
			   const struct hip_hit *client, const struct hip_reg *reqs,
			   unsigned n_reqs, uint64_t now_ns, struct reg_answer *ans);
/* client holds a live registration of type (expired ones are removed). */
bool reg_registrar_has(struct reg_registrar *r, const struct hip_hit *client, uint8_t type,
		       uint64_t now_ns);
/* A grant of this packet taken back (its resource could not be given:
 * the data relay's ports are all held); counted as refused. */
void reg_registrar_revoke(struct reg_registrar *r, const struct hip_hit *client, uint8_t type);
/* Drop expired registrations; their number. */
size_t reg_registrar_expire(struct reg_registrar *r, uint64_t now_ns);
/* Registrations (clients) held; the bytes they use. */
size_t reg_registrar_count(const struct reg_registrar *r);
size_t reg_registrar_bytes(const struct reg_registrar *r);
const struct reg_registrar_counters *reg_registrar_counters(const struct reg_registrar *r);
/* Each client with its types' expiry times (0 = not registered); cb
 * returns nonzero to stop. */
void reg_registrar_foreach(struct reg_registrar *r,
			   int (*cb)(const struct hip_hit *client, const uint64_t *expiry_ns,
				     void *arg), void *arg);

/* ---- reg_client.c: the servers we register with ------------------------- */

enum reg_srv_state {
	REG_SRV_WAITING,      /* no association with the server yet */
	REG_SRV_EXCHANGE,     /* base exchange running (REG_REQUEST in the I2) */
	REG_SRV_REQUESTED,    /* REG_REQUEST in an UPDATE, not answered yet */
	REG_SRV_REGISTERED,   /* at least one type granted, not expired */
	REG_SRV_REFUSED,      /* every type failed (retried later) */
	REG_SRV_CANCELLING,   /* lifetime 0 sent (hipconf del server) */
	REG_SRV_LEARNING,     /* known by address only: opportunistic I1s sent,
			       * no R1 yet (RFC 7401 §4.1.8, D-16) */
};

struct reg_srv {
	struct hip_hit hit;
	struct hip_addr addr;
	uint8_t want[REG_TYPE_SLOTS];         /* types we ask for */
	unsigned n_want;
	bool from_conf;                       /* hipd.conf (kept over hipconf del) */
	enum reg_srv_state state;
	bool have_info;                       /* the server's last REG_INFO */
	struct hip_reg_info info;
	uint8_t granted[REG_TYPE_SLOTS];      /* types granted, their lifetime */
	unsigned n_granted;
	uint8_t lifetime;                     /* granted code (RFC 8003 §4.1) */
	uint64_t expiry_ns, renew_ns;         /* 0 = none */
	uint8_t failed[REG_TYPE_SLOTS];       /* types refused, and why */
	uint8_t failure[REG_TYPE_SLOTS];
	unsigned n_failed;
	bool not_offered;                     /* its REG_INFO lists none we want */
	uint64_t next_try_ns;                 /* earliest next attempt */
	unsigned attempts;                    /* since the last success */
	uint64_t registrations, renewals, refusals;
	/* RFC 9028 §4.1: our transport address as the server sees it
	 * (REG_FROM of its last answer): our server-reflexive candidate */
	bool have_reg_from;
	struct hip_relay_addr reg_from;
	/* our locator on the server's association when that answer came: once
	 * we move, the reflexive address is stale and we renew at once */
	bool have_reg_local;
	struct hip_addr reg_local;
	/* RFC 9028 §4.12: our relayed address at this data relay server
	 * (RELAYED_ADDRESS of its last answer granting relay-esp); the NAT
	 * keepalive that keeps our way to it open, last sent */
	bool have_relayed;
	struct hip_relay_addr relayed;
	uint64_t ka_relayed_ns;
	/* the PEER_PERMISSIONs we want it to hold (one peer's candidates per
	 * association checked through it); pending: not sent since changed */
	struct hip_peer_permission perm[16];
	unsigned n_perm;
	bool perm_pending;
	/* D-16: configured by address only; hit stays zero until an R1
	 * from addr answers our opportunistic I1 (trust on first use) */
	bool opportunistic;
	bool learnt;                          /* the HIT came from such an R1 */
	struct hip_hit opp_local;             /* our HIT of those I1s */
	unsigned opp_i1s;                     /* I1s sent in this round */
	uint64_t opp_first_ns;                /* the round's first I1 */
};

struct reg_client;

int reg_client_create(struct reg_client **out);
void reg_client_free(struct reg_client *c);
/* Add a server or change its address and types (-ENOSPC when full); one
 * known by that address only and still learning its HIT takes this HIT. */
int reg_client_add(struct reg_client *c, const struct hip_hit *hit, const struct hip_addr *addr,
		   const uint8_t *types, unsigned n_types, bool from_conf, struct reg_srv **out);
/* Add a server known by its address only (D-16), or change the types of
 * such an entry; -EEXIST when a server with a HIT has that address. */
int reg_client_add_addr(struct reg_client *c, const struct hip_addr *addr, const uint8_t *types,
			unsigned n_types, bool from_conf, struct reg_srv **out);
/* By HIT; never a server whose HIT is still unknown. */
struct reg_srv *reg_client_find(struct reg_client *c, const struct hip_hit *hit);
/* The server known by address only whose HIT is still unknown and to
 * which local sent opportunistic I1s at addr (an R1's source), or NULL. */
struct reg_srv *reg_client_find_learning(struct reg_client *c, const struct hip_addr *addr,
					 const struct hip_hit *local);
/* Its HIT is not known yet (D-16). */
bool reg_srv_learning(const struct reg_srv *s);
/* The server whose address is addr (a relayed I1's source), or NULL. */
struct reg_srv *reg_client_find_addr(struct reg_client *c, const struct hip_addr *addr);
void reg_client_remove(struct reg_client *c, struct reg_srv *s);
size_t reg_client_count(const struct reg_client *c);
struct reg_srv *reg_client_at(struct reg_client *c, size_t i);

/* type is granted now. */
bool reg_srv_granted(const struct reg_srv *s, uint8_t type);
/* The server's REG_INFO (R1 or UPDATE). */
void reg_srv_info(struct reg_srv *s, const struct hip_reg_info *info);
/* The REG_REQUEST to send: the wanted types the last REG_INFO lists
 * (RFC 8003 §3.2: never others) with lifetime; false if none. Cancelling:
 * lifetime 0 for the granted types. */
bool reg_srv_request(const struct reg_srv *s, uint8_t lifetime, struct hip_reg *req);
/* REG_RESPONSE / REG_FAILED received from the server (R2 or UPDATE). */
void reg_srv_response(struct reg_srv *s, const struct hip_reg *resp, uint64_t now_ns);
void reg_srv_failed(struct reg_srv *s, const struct hip_reg *f, uint64_t now_ns);
/* The request went unanswered (association lost): back off, try again. */
void reg_srv_retry_later(struct reg_srv *s, uint64_t now_ns);
const char *reg_srv_state_name(enum reg_srv_state st);

/* ---- reg_learn.c: servers known by address only (D-16) ----------------- */

/* fsm.c, an R1 for no association of ours: when it answers opportunistic
 * I1s of ours to a server known by address only (its source that address,
 * its receiver HIT the sender of those I1s), an association in I1-SENT
 * with the R1's sender, which the R1 then goes to; else NULL. */
struct hip_ha *eng_reg_learning_r1(struct hipd *d, const struct eng_rx *rx);
/* fsm.c, after that R1 was processed: the HIT is learnt when it was
 * taken (an I2 went out), else forgotten with the association. */
void eng_reg_learning_r1_done(struct hipd *d, const struct eng_rx *rx);

/* ---- rvs.c: rendezvous (RFC 8004) --------------------------------------- */

/* The server: pkt (an I1, or an UPDATE, RFC 8046 §3.2.3) for a client
 * registered for rendezvous whose association is ha, with FROM (orig_src,
 * the packet's source) and RVS_HMAC (our outgoing integrity key of ha)
 * appended (§3.3, §4.2), into out; its length (the checksum is set when
 * it is sent to the client), or -ELOOP when pkt already carries FROM or
 * RVS_HMAC (one hop only), -ENOKEY without keys, -ENOSPC. */
int rvs_relay_build(const struct hip_packet *pkt, const struct hip_addr *orig_src,
		    const struct hip_ha *ha, uint8_t *out, size_t cap);

/* The client: a received packet carrying FROM. 0 and the Initiator's
 * address in *from when RVS_HMAC verifies with ha (ours with the server,
 * its incoming integrity key); -ENOENT no RVS_HMAC; -EBADMSG bad FROM or
 * RVS_HMAC; -ENOKEY no keys with that server. */
int rvs_check_relayed(const struct hip_packet *pkt, const struct hip_ha *ha,
		      struct hip_addr *from);

/* ---- relay.c: the control relay (RFC 9028 §4.5, §5.8) ----------------- */

/* The server: pkt for a client (association ha) with RELAY_FROM (src,
 * sport; 0 = raw IP) and RELAY_HMAC appended, into out; its length, or
 * -ELOOP (already relayed), -ENOKEY, -ENOSPC. */
int relay_forward_build(const struct hip_packet *pkt, const struct hip_addr *src, uint16_t sport,
			const struct hip_ha *ha, uint8_t *out, size_t cap);
/* The client: RELAY_FROM of pkt into *from when RELAY_HMAC verifies with
 * ha (ours with the server); -ENOENT none, -EBADMSG bad, -ENOKEY no keys. */
int relay_check(const struct hip_packet *pkt, const struct hip_ha *ha,
		struct hip_relay_addr *from);
/* Server: rx (not for us) relayed to or from a registered client: 0, a
 * drop counted (< 0), or 1 when it is no relay business of ours. */
int eng_relay_forward(struct hipd *d, const struct eng_rx *rx);
/* Client: rx carries RELAY_FROM: 0 and the sender's transport address
 * when a relay server of ours sent it (RELAY_HMAC verified), else the
 * drop counted. */
int eng_relay_accept(struct hipd *d, const struct eng_rx *rx, struct hip_relay_addr *from);

/* ---- data_relay.c: the data relay server (RFC 9028 §4.12, D-29) -------- */

enum data_relay_consts {
	DATA_RELAY_PERMS_MAX = 16,  /* PEER_PERMISSIONs one client holds */
	DATA_RELAY_READS     = 64,  /* datagrams read per wakeup of a port */
};

struct data_relay;
struct data_relay_counters {
	uint64_t allocated, freed, full, permissions;
	uint64_t forwarded, bytes, send_failed;
	uint64_t no_permission, peer_unknown, client_unknown;
};

/* The ports of hipd.conf relay_ports, bound now (UDP, IPv4 and/or IPv6 by
 * listen_v4/listen_v6) and read by d's loop; -errno when one cannot be. */
int data_relay_open(struct hipd *d, struct data_relay **out);
void data_relay_close(struct data_relay *r);
/* A grant or renewal of RELAY_UDP_ESP to client (registered from
 * client_addr, to our local): its relayed transport address; -ENOSPC when
 * every port is held (REG_FAILED type 2). */
int data_relay_alloc(struct data_relay *r, const struct hip_hit *client,
		     const struct hip_addr *client_addr, const struct hip_addr *local,
		     struct hip_relay_addr *relayed);
void data_relay_free(struct data_relay *r, const struct hip_hit *client);
/* Free the allocations of clients held() no longer says are registered. */
void data_relay_gc(struct data_relay *r, bool (*held)(const struct hip_hit *client, void *arg),
		   void *arg);
/* A PEER_PERMISSION from client (authenticated UPDATE): 0, -ENOENT no
 * allocation, -EINVAL bad, -EEXIST its OSPI leads to another peer,
 * -ENOSPC full. */
int data_relay_permit(struct data_relay *r, const struct hip_hit *client,
		      const struct hip_peer_permission *pp);
/* client's permissions for peer go (its next UPDATE names them anew). */
void data_relay_forget_peer(struct data_relay *r, const struct hip_hit *client,
			    const struct hip_hit *peer);
/* A datagram on client's port (what the port's reader does; tests): 1
 * passed on, 0 a keepalive, <0 dropped. */
int data_relay_route(struct data_relay *r, const struct hip_hit *client, const uint8_t *p,
		     size_t len, const struct hip_addr *src, uint16_t sport);
size_t data_relay_used(const struct data_relay *r);
size_t data_relay_ports(const struct data_relay *r);
const struct data_relay_counters *data_relay_counters(const struct data_relay *r);

/* ---- reg_engine.c: the handlers' side ---------------------------------- */

struct hip_builder;

/* Our REG_INFO (hipd.conf offer_services and lifetimes): false if none. */
bool eng_reg_policy_info(const struct hipd *d, struct hip_reg_info *out);
/* Registrar: answer the REG_REQUESTs of an authenticated I2 or UPDATE
 * (false: it has none). Without offered services every type fails. */
bool eng_reg_answer(struct hipd *d, const struct eng_rx *rx, struct reg_answer *ans);
/* REG_RESPONSE, REG_FAILED and REG_FROM parameters of an answer (R2,
 * UPDATE); RELAYED_ADDRESS (4650) comes later in type order. */
void eng_reg_build_answer(struct hip_builder *b, const struct reg_answer *ans);
void eng_reg_build_relayed(struct hip_builder *b, const struct reg_answer *ans);
/* Client: an association's connectivity checks start with the peer's
 * candidates: the PEER_PERMISSIONs each data relay server of ours is to
 * hold so that the peer's addresses reach our relayed address (sent by
 * upd_relay_esp_flush, or the registration tick). */
void eng_relay_esp_want(struct hipd *d, const struct hip_ha *ha,
			const struct hip_locator_set *peer);
/* Server: the PEER_PERMISSIONs of an authenticated UPDATE from a data
 * relay client, taken (refusals logged, rate-limited). */
void eng_relay_esp_permit(struct hipd *d, const struct eng_rx *rx);
/* Client: the REG_INFO of a server's R1 (none = it offers nothing). */
void eng_reg_info_rx(struct hipd *d, const struct eng_rx *rx);
/* Client: the REG_REQUEST to put in our I2 or UPDATE to peer; false: none. */
bool eng_reg_request_for(struct hipd *d, const struct hip_hit *peer, struct hip_reg *req);
/* Client: REG_RESPONSE / REG_FAILED from a server (R2, UPDATE). */
void eng_reg_result_rx(struct hipd *d, const struct eng_rx *rx);
/* Server: rx (an I1 or UPDATE not for us) relayed to its registered
 * client: 0; a drop counted (< 0); 1 when we offer no rendezvous. */
int eng_rvs_relay(struct hipd *d, const struct eng_rx *rx);
/* Client: rx carries FROM: 0 with the Initiator's address when a server
 * of ours relayed it (RVS_HMAC verified), else the drop counted. */
int eng_rvs_accept(struct hipd *d, const struct eng_rx *rx, struct hip_addr *from);
/* Append VIA_RVS (RFC 8004 §4.2.3) naming rvs to a built packet of len
 * bytes in buf (cap): the new length (checksum to be set), or -ENOSPC. */
int rvs_append_via(uint8_t *buf, size_t len, size_t cap, const struct hip_addr *rvs);

#endif
