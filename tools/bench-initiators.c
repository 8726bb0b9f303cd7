/*
 * bench-initiators.c - many HIP Initiators in one process, for
 * bench/scale.sh (a benchmark tool, not a test; run it only inside a network
 * namespace you created).
 *
 * Initiator number i has its own ECDSA P-256 identity (so its own HIT) and
 * its own IPv4 source address src-base + i (the Responder rate-limits R1s
 * per source), and completes a real base exchange with one Responder:
 * I1 -> R1 (puzzle solved, ECDH, KEYMAT with hipd's own key derivation
 * code, keys.c) -> I2 (encrypted HOST_ID, HIP_MAC, signature) -> R2. The
 * Responder's signatures and MACs are not checked: hipd is what is measured.
 * Packets go out through an IP_HDRINCL raw socket; the host must deliver
 * src-base/16 locally (`ip route add local 10.2.0.0/16 dev lo`).
 *
 * Usage: bench-initiators --dst IPV4 --hit-r HIT [--src-base IPV4]
 *          [--first I] --count N [--window W]
 * Prints one JSON line: completed, failed, seconds, exchanges per second.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coverage.h"
#include "engine/assoc/assoc.h"
#include "hipd.h"
#include "hit.h"
#include "packet.h"
#include "params.h"

enum {
	IP_HDR       = 20,
	PKT_BUF      = HIP_MAX_PACKET + 64,
	TLV_MAX      = 1024,
	KIJ_MAX      = 512,
	ENC_MAX      = TLV_MAX + 64,
	RETRIES      = 5,
	DH_P256      = 7,
};

enum ini_state { INI_IDLE, INI_I1_SENT, INI_I2_SENT, INI_DONE, INI_FAILED };

struct ini {
	struct hip_hi *hi;
	uint8_t host_id_tlv[TLV_MAX];
	size_t host_id_tlv_len;
	struct in_addr src;
	enum ini_state state;
	unsigned tries;
	double t_sent;
	uint8_t *pkt;                 /* last packet sent (IP header included) */
	size_t pkt_len;
	struct hip_ha ha;             /* keys and suites, hipd's own layout */
};

struct run {
	struct in_addr dst, src_base;
	struct hip_hit hit_r;
	unsigned long first, count, window;
	int tx, rx;
	struct hipd d;                /* only conf, for eng_derive_keys() */
	struct ini *ini;
	unsigned long done, failed, in_flight, next;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Our HOST_ID TLV (DI none), as hidb.c builds it: header and padding. */
static int ini_identity(struct ini *in)
{
	uint8_t scratch[HIP_MAX_PACKET];
	struct hip_host_id v = { 0 };
	struct hip_builder b;
	size_t wire_len;
	int ret, n;

	ret = hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &in->hi);
	if (ret < 0)
		return ret;
	v.algorithm = hip_hi_algorithm(in->hi);
	v.hi = hip_hi_wire(in->hi, &wire_len);
	if (!v.hi)
		return -EIO;
	v.hi_len = (uint16_t)wire_len;
	ret = hip_hit_from_hi((uint8_t)hip_hi_suite(in->hi), v.hi, wire_len, &in->ha.hit_local);
	if (ret < 0)
		return ret;
	hip_build_init(&b, scratch, sizeof(scratch), HIP_R1, &in->ha.hit_local, NULL);
	hip_host_id_build(&b, &v);
	n = hip_build_finish(&b);
	if (n < 0 || (size_t)n - HIP_HDR_LEN > sizeof(in->host_id_tlv))
		return n < 0 ? n : -EMSGSIZE;
	in->host_id_tlv_len = (size_t)n - HIP_HDR_LEN;
	memcpy(in->host_id_tlv, scratch + HIP_HDR_LEN, in->host_id_tlv_len);
	return 0;
}

/* Checksum, IPv4 header, keep a copy for retransmission, send. */
static int ini_send(struct run *r, struct ini *in, uint8_t *buf, int hip_len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = r->dst };
	struct hip_addr src, dst;
	struct iphdr ip;
	size_t len = IP_HDR + (size_t)hip_len;

	hip_addr_from_v4(&src, &in->src);
	hip_addr_from_v4(&dst, &r->dst);
	hip_packet_set_checksum(buf + IP_HDR, (size_t)hip_len, &src, &dst);
	memset(&ip, 0, sizeof(ip));
	ip.version = 4;
	ip.ihl = 5;
	ip.ttl = 64;
	ip.protocol = 139;
	ip.tot_len = htons((uint16_t)len);
	ip.saddr = in->src.s_addr;
	ip.daddr = r->dst.s_addr;
	memcpy(buf, &ip, sizeof(ip));
	free(in->pkt);
	in->pkt = malloc(len);
	if (!in->pkt)
		return -ENOMEM;
	memcpy(in->pkt, buf, len);
	in->pkt_len = len;
	in->t_sent = now_s();
	if (sendto(r->tx, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

static int send_i1(struct run *r, struct ini *in)
{
	uint8_t buf[PKT_BUF];
	struct hip_u8_list groups = { .n = 1, .v = { DH_P256 } };
	struct hip_builder b;
	int len;

	hip_build_init(&b, buf + IP_HDR, sizeof(buf) - IP_HDR, HIP_I1, &in->ha.hit_local,
		       &r->hit_r);
	hip_dh_group_list_build(&b, &groups);
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	in->state = INI_I1_SENT;
	return ini_send(r, in, buf, len);
}

static const struct hip_param_ref *need(const struct hip_packet *p, uint16_t type)
{
	return hip_packet_find(p, type);
}

/* The first entry of list that we take (hipd's defaults). */
static uint16_t pick(const struct hip_u16_list *l, const uint16_t *ours, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < n; k++)
			if (l->v[i] == ours[k])
				return l->v[i];
	return 0;
}

/* R1 -> I2, as hipd's bex_r1.c builds it (docs/protocol.md §1 order). */
static int process_r1(struct run *r, struct ini *in, const struct hip_packet *p)
{
	static const uint16_t ciphers[] = { HIP_CIPHER_AES_128_CBC, HIP_CIPHER_AES_256_CBC };
	static const uint16_t esps[] = { HIP_ESP_AES_GCM_16, HIP_ESP_AES128_CBC_SHA256 };
	const struct hip_param_ref *pz = need(p, HIP_PARAM_PUZZLE), *dhp = need(p,
		HIP_PARAM_DIFFIE_HELLMAN), *cp = need(p, HIP_PARAM_HIP_CIPHER),
		*ep = need(p, HIP_PARAM_ESP_TRANSFORM), *rc = need(p, HIP_PARAM_R1_COUNTER);
	struct hip_ha *ha = &in->ha;
	enum hip_rhash rhash = (enum hip_rhash)hip_hit_suite(&r->hit_r);
	uint8_t kij[KIJ_MAX], pub[KIJ_MAX], enc[ENC_MAX], buf[PKT_BUF];
	struct hip_u16_list ciph, esp, one = { .n = 1 };
	struct hip_solution sol = { 0 };
	struct hip_esp_info ei = { 0 };
	struct hip_r1_counter ctr;
	struct hip_puzzle puz;
	struct hip_dh_param dh;
	struct hip_dh *mine = NULL;
	struct hip_builder b;
	size_t kij_len, pub_len, enc_len = 0;
	int ret, len;

	if (!pz || !dhp || !cp || !ep ||
	    hip_puzzle_decode(hip_param_content(p, pz), pz->len, hip_rhash_len(rhash), &puz) < 0 ||
	    hip_dh_param_decode(hip_param_content(p, dhp), dhp->len, &dh) < 0 ||
	    hip_hip_cipher_decode(hip_param_content(p, cp), cp->len, &ciph) < 0 ||
	    hip_esp_transform_decode(hip_param_content(p, ep), ep->len, &esp) < 0 ||
	    (rc && hip_r1_counter_decode(hip_param_content(p, rc), rc->len, &ctr) < 0))
		return -EBADMSG;
	ha->hit_peer = r->hit_r;
	ha->rhash = rhash;
	ha->hip_cipher = pick(&ciph, ciphers, 2);
	ha->esp_suite = pick(&esp, esps, 2);
	if (!ha->hip_cipher || !ha->esp_suite)
		return -ENOTSUP;
	ha->puzzle_len = puz.i_len;
	memcpy(ha->puzzle_i, puz.i, puz.i_len);
	ret = hip_random(sol.j, puz.i_len);
	if (ret == 0)
		ret = hip_puzzle_solve(rhash, puz.k, puz.i, ha->hit_local.b, ha->hit_peer.b, sol.j,
				       0, 0, ha->puzzle_j, NULL);
	kij_len = hip_dh_secret_len(dh.group);
	pub_len = hip_dh_pub_len(dh.group);
	if (ret == 0 && (kij_len == 0 || kij_len > sizeof(kij) || pub_len > sizeof(pub)))
		ret = -ENOTSUP;
	if (ret == 0)
		ret = hip_dh_generate(dh.group, &mine);
	if (ret == 0)
		ret = hip_dh_public(mine, pub, pub_len);
	if (ret == 0)
		ret = hip_dh_derive(mine, dh.pub, dh.pub_len, kij, kij_len);
	if (ret == 0)
		ret = eng_derive_keys(&r->d, ha, kij, kij_len, &ha->hit_local, &ha->hit_peer);
	if (ret == 0)
		ret = hip_cipher_seal(ha->hip_cipher, eng_key_out_enc(ha), in->host_id_tlv,
				      in->host_id_tlv_len, enc, sizeof(enc), &enc_len);
	if (ret < 0)
		goto out;
	hip_build_init(&b, buf + IP_HDR, sizeof(buf) - IP_HDR, HIP_I2, &ha->hit_local,
		       &ha->hit_peer);
	ei.keymat_index = ha->keymat_index;
	ei.new_spi = HIP_SPI_MIN + (uint32_t)(in - r->ini);
	hip_esp_info_build(&b, &ei);
	if (rc)
		hip_r1_counter_build(&b, &ctr);
	sol.k = puz.k;
	sol.opaque = puz.opaque;
	sol.ij_len = puz.i_len;
	memcpy(sol.i, puz.i, puz.i_len);
	memcpy(sol.j, ha->puzzle_j, puz.i_len);
	hip_solution_build(&b, &sol);
	hip_dh_param_build(&b, dh.group, pub, pub_len);
	one.v[0] = ha->hip_cipher;
	hip_hip_cipher_build(&b, &one);
	hip_encrypted_build(&b, enc, enc_len);
	one.v[0] = HIP_PARAM_ESP_TRANSFORM;
	hip_transport_format_list_build(&b, &one);
	one.v[0] = ha->esp_suite;
	hip_esp_transform_build(&b, &one);
	hip_build_mac(&b, HIP_COVER_MAC, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, in->hi);
	len = hip_build_finish(&b);
	if (len < 0) {
		ret = len;
		goto out;
	}
	in->state = INI_I2_SENT;
	in->tries = 0;
	ret = ini_send(r, in, buf, len);
out:
	hip_dh_free(mine);
	hip_wipe(kij, sizeof(kij));
	return ret;
}

static void ini_finish(struct run *r, struct ini *in, enum ini_state s)
{
	in->state = s;
	free(in->pkt);
	in->pkt = NULL;
	hip_wipe(&in->ha.hip_keys, sizeof(in->ha.hip_keys));
	hip_wipe(&in->ha.esp_keys, sizeof(in->ha.esp_keys));
	r->in_flight--;
	if (s == INI_DONE)
		r->done++;
	else
		r->failed++;
}

/* One received packet: find the Initiator by its destination address. */
static void receive(struct run *r, const uint8_t *dgram, size_t n)
{
	size_t ihl = n ? (size_t)(dgram[0] & 0x0f) * 4 : 0;
	struct hip_packet p;
	struct in_addr daddr;
	struct ini *in;
	unsigned long idx;

	if (n < IP_HDR || ihl < IP_HDR || ihl > n)
		return;
	memcpy(&daddr, dgram + 16, sizeof(daddr));
	idx = (unsigned long)(ntohl(daddr.s_addr) - ntohl(r->src_base.s_addr));
	if (idx < r->first || idx >= r->first + r->count)
		return;
	in = &r->ini[idx - r->first];
	if (hip_packet_parse(dgram + ihl, n - ihl, &p) < 0)
		return;
	if (p.type == HIP_R1 && in->state == INI_I1_SENT) {
		if (process_r1(r, in, &p) < 0)
			ini_finish(r, in, INI_FAILED);
	} else if (p.type == HIP_R2 && in->state == INI_I2_SENT) {
		ini_finish(r, in, INI_DONE);
	}
}

/* Start Initiators up to the window; resend what timed out (1 s, x2). */
static void tick(struct run *r, double now)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = r->dst };

	while (r->in_flight < r->window && r->next < r->count) {
		struct ini *in = &r->ini[r->next++];

		r->in_flight++;
		if (send_i1(r, in) < 0)
			ini_finish(r, in, INI_FAILED);
	}
	for (unsigned long i = 0; i < r->next; i++) {
		struct ini *in = &r->ini[i];

		if ((in->state != INI_I1_SENT && in->state != INI_I2_SENT) ||
		    now - in->t_sent < (double)(1u << in->tries))
			continue;
		if (++in->tries > RETRIES) {
			ini_finish(r, in, INI_FAILED);
			continue;
		}
		in->t_sent = now;
		(void)sendto(r->tx, in->pkt, in->pkt_len, 0, (struct sockaddr *)&to, sizeof(to));
	}
}

static int parse_args(int argc, char **argv, struct run *r)
{
	bool have_dst = false, have_hit = false;

	inet_pton(AF_INET, "10.2.0.0", &r->src_base);
	r->window = 64;
	for (int a = 1; a + 1 < argc; a += 2) {
		const char *v = argv[a + 1];

		if (!strcmp(argv[a], "--dst"))
			have_dst = inet_pton(AF_INET, v, &r->dst) == 1;
		else if (!strcmp(argv[a], "--hit-r"))
			have_hit = hip_hit_from_str(v, &r->hit_r) == 0;
		else if (!strcmp(argv[a], "--src-base"))
			inet_pton(AF_INET, v, &r->src_base);
		else if (!strcmp(argv[a], "--first"))
			r->first = strtoul(v, NULL, 10);
		else if (!strcmp(argv[a], "--count"))
			r->count = strtoul(v, NULL, 10);
		else if (!strcmp(argv[a], "--window"))
			r->window = strtoul(v, NULL, 10);
		else
			return -EINVAL;
	}
	if (argc % 2 == 0 || !have_dst || !have_hit || r->count == 0 || r->window == 0 ||
	    r->first + r->count > 65000)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t dgram[PKT_BUF];
	struct run r;
	double t0, tk, t;
	int on = 1;

	memset(&r, 0, sizeof(r));
	if (parse_args(argc, argv, &r) < 0) {
		fprintf(stderr, "usage: %s --dst IPV4 --hit-r HIT [--src-base IPV4] [--first I] "
			"--count N [--window W]\n", argv[0]);
		return 2;
	}
	if (hip_crypto_init() != 0)
		return 1;
	hipd_conf_defaults(&r.d.conf);
	r.tx = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	r.rx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, 139);
	if (r.tx < 0 || r.rx < 0 ||
	    setsockopt(r.tx, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) < 0) {
		perror("bench-initiators: raw sockets");
		return 1;
	}
	r.ini = calloc(r.count, sizeof(*r.ini));
	if (!r.ini)
		return 1;
	tk = now_s();
	for (unsigned long i = 0; i < r.count; i++) {
		struct in_addr s = { htonl(ntohl(r.src_base.s_addr) + (uint32_t)(r.first + i)) };

		r.ini[i].src = s;
		if (ini_identity(&r.ini[i]) < 0) {
			fprintf(stderr, "bench-initiators: generating identity %lu failed\n", i);
			return 1;
		}
	}
	t0 = now_s();
	while (r.done + r.failed < r.count) {
		struct pollfd pfd = { .fd = r.rx, .events = POLLIN };
		ssize_t n;

		tick(&r, now_s());
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		while ((n = recv(r.rx, dgram, sizeof(dgram), 0)) > 0)
			receive(&r, dgram, (size_t)n);
	}
	t = now_s() - t0;
	printf("{\"completed\": %lu, \"failed\": %lu, \"seconds\": %.3f, \"per_s\": %.1f, "
	       "\"keygen_seconds\": %.3f}\n", r.done, r.failed, t, (double)r.done / t, t0 - tk);
	for (unsigned long i = 0; i < r.count; i++) {
		hip_hi_free(r.ini[i].hi);
		free(r.ini[i].pkt);
	}
	free(r.ini);
	return r.failed ? 1 : 0;
}
