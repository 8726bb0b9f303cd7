/*
 * fw_state.c - hipfw's state file (docs/decisions.md D-21, hipfw(8) FILES).
 * Network byte order, fixed fields, no padding:
 *
 *   header   "HIPFWST\n" | version u16 (3) | flags u16 (0) | count u32
 *   entry    state u8 | flags u8 (1: an I2 not verified) | zero u16
 *            then the Initiator's end and the Responder's, each
 *   end      HIT 16 | locator 16 | next locator 16 | flags u8 (1: locator,
 *            2: next locator) | zero u8 | HI algorithm u16 | locator SEQ u32 |
 *            SPI u32 | next SPI u32 | SPI SEQ u32 | HI length u16 | zero u16 |
 *            UDP port u16 | next UDP port u16 (D-24; 0 without the locator) |
 *            LSI SPI u32 | offered LSI SPI u32 (D-22; 0 or at least 256) |
 *            the HI (RFC 7401 §5.2.9 Host Identity field, length bytes)
 *
 * and nothing after the last entry. Version 2, written before the LSI
 * SPIs were kept, is the same without them: it is read, its LSI SPIs 0
 * (hipd's IPv4 between LSIs then passes only after a new base exchange).
 * Version 1, written before the UDP ports were kept, is version 2 without
 * them: it is read, its ports 0 (not known: the fast path then does not
 * match them). The loader checks every field before
 * it uses it (a known version, states and flags it knows, lengths inside
 * the buffer, no more entries than the table holds, each HI decoding and
 * giving its HIT, no pair twice, zero where zero is written) and refuses
 * the whole file on the first error: hipfw then starts empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "byteorder.h"
#include "fw_state.h"
#include "hip_crypto.h"
#include "hip_wire.h"

static const uint8_t magic[8] = { 'H', 'I', 'P', 'F', 'W', 'S', 'T', '\n' };

enum { END_LOC = 1, END_LOC_NEXT = 2, ENTRY_UNVERIFIED = 1 };

static bool saved(const struct fw_assoc *a)
{
	/* half-open ones are cheap to lose: their exchange is retransmitted */
	return a->used && a->state >= FW_TS_I2;
}

static size_t end_size(const struct fw_track_end *e)
{
	size_t n = 0;

	if (e->hi)
		(void)hip_hi_wire(e->hi, &n);
	return FW_STATE_END + (n <= FW_STATE_HI_MAX ? n : 0);
}

static size_t end_fixed(unsigned version)
{
	return version == 1 ? FW_STATE_END_V1 : version == 2 ? FW_STATE_END_V2 : FW_STATE_END;
}

static uint8_t *put_end(uint8_t *p, const struct fw_track_end *e)
{
	const uint8_t *w = NULL;
	size_t n = 0;

	if (e->hi)
		w = hip_hi_wire(e->hi, &n);
	if (!w || n > FW_STATE_HI_MAX)
		n = 0;   /* an HI too big to save is learnt again */
	memset(p, 0, FW_STATE_END);
	memcpy(p, e->hit.b, 16);
	memcpy(p + 16, &e->loc, 16);
	memcpy(p + 32, &e->loc_next, 16);
	p[48] = (uint8_t)((e->have_loc ? END_LOC : 0) | (e->have_loc_next ? END_LOC_NEXT : 0));
	hip_wr16(p + 50, n ? hip_hi_algorithm(e->hi) : 0);
	hip_wr32(p + 52, e->loc_seq);
	hip_wr32(p + 56, e->spi);
	hip_wr32(p + 60, e->spi_next);
	hip_wr32(p + 64, e->spi_seq);
	hip_wr16(p + 68, (uint16_t)n);
	hip_wr16(p + 72, e->have_loc ? e->udp_port : 0);
	hip_wr16(p + 74, e->have_loc_next ? e->udp_port_next : 0);
	hip_wr32(p + 76, e->lsi_spi);
	hip_wr32(p + 80, e->lsi_spi_offer);
	if (n)
		memcpy(p + FW_STATE_END, w, n);
	return p + FW_STATE_END + n;
}

int fw_state_encode(const struct fw_track *t, uint8_t **out, size_t *len)
{
	size_t size = FW_STATE_HEADER;
	uint32_t i, count = 0;
	uint8_t *buf, *p;

	*out = NULL;
	*len = 0;
	for (i = 0; t->pool && i < t->max; i++)
		if (saved(&t->pool[i])) {
			size += FW_STATE_ENTRY + end_size(&t->pool[i].end[0]) +
				end_size(&t->pool[i].end[1]);
			count++;
		}
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, magic, sizeof(magic));
	hip_wr16(buf + 8, FW_STATE_VERSION);
	hip_wr16(buf + 10, 0);
	hip_wr32(buf + 12, count);
	p = buf + FW_STATE_HEADER;
	for (i = 0; t->pool && i < t->max; i++) {
		const struct fw_assoc *a = &t->pool[i];

		if (!saved(a))
			continue;
		p[0] = (uint8_t)a->state;
		p[1] = a->unverified ? ENTRY_UNVERIFIED : 0;
		p[2] = p[3] = 0;
		p = put_end(p + FW_STATE_ENTRY, &a->end[0]);
		p = put_end(p, &a->end[1]);
	}
	*out = buf;
	*len = size;
	return 0;
}

/* One end of a file of that version from (buf, len) at *off into e: 0 or
 * -EBADMSG with err. */
static int get_end(const uint8_t *buf, size_t len, unsigned version, size_t *off,
		   struct fw_track_end *e, char *err, size_t err_len)
{
	const uint8_t *p = buf + *off;
	size_t fixed = end_fixed(version);
	struct hip_hit computed;
	uint16_t alg, n;

	if (len - *off < fixed) {
		snprintf(err, err_len, "truncated at byte %zu", *off);
		return -EBADMSG;
	}
	memcpy(e->hit.b, p, 16);
	memcpy(&e->loc, p + 16, 16);
	memcpy(&e->loc_next, p + 32, 16);
	if ((p[48] & ~(END_LOC | END_LOC_NEXT)) || p[49] || hip_rd16(p + 70)) {
		snprintf(err, err_len, "bad end flags at byte %zu", *off);
		return -EBADMSG;
	}
	e->have_loc = p[48] & END_LOC;
	e->have_loc_next = p[48] & END_LOC_NEXT;
	if (version >= 2) {
		e->udp_port = hip_rd16(p + 72);
		e->udp_port_next = hip_rd16(p + 74);
		if ((e->udp_port && !e->have_loc) || (e->udp_port_next && !e->have_loc_next)) {
			snprintf(err, err_len, "a UDP port without its locator at byte %zu", *off);
			return -EBADMSG;
		}
	}
	if (version >= 3) {
		e->lsi_spi = hip_rd32(p + 76);
		e->lsi_spi_offer = hip_rd32(p + 80);
		/* RFC 4303 §2.1: 1..255 are reserved, hipd never offers them */
		if ((e->lsi_spi && e->lsi_spi < HIP_SPI_MIN) ||
		    (e->lsi_spi_offer && e->lsi_spi_offer < HIP_SPI_MIN)) {
			snprintf(err, err_len, "a reserved LSI SPI at byte %zu", *off);
			return -EBADMSG;
		}
	}
	alg = hip_rd16(p + 50);
	e->loc_seq = hip_rd32(p + 52);
	e->spi = hip_rd32(p + 56);
	e->spi_next = hip_rd32(p + 60);
	e->spi_seq = hip_rd32(p + 64);
	n = hip_rd16(p + 68);
	*off += fixed;
	if (n > FW_STATE_HI_MAX || n > len - *off || (!n && alg)) {
		snprintf(err, err_len, "bad Host Identity length %u at byte %zu", n, *off);
		return -EBADMSG;
	}
	if (!n)
		return 0;
	/* the HI must decode and give the HIT, as a HOST_ID on the wire */
	if (hip_hi_from_wire(alg, buf + *off, n, &e->hi) < 0 ||
	    (unsigned)hip_hi_suite(e->hi) != hip_hit_suite(&e->hit) ||
	    hip_hit_from_hi((uint8_t)hip_hi_suite(e->hi), buf + *off, n, &computed) < 0 ||
	    hip_hit_cmp(&computed, &e->hit) != 0) {
		snprintf(err, err_len, "a Host Identity that does not give its HIT at byte %zu",
			 *off);
		return -EBADMSG;
	}
	*off += n;
	return 0;
}

int fw_state_decode(struct fw_track *t, const uint8_t *buf, size_t len, uint64_t now_ns,
		    uint64_t grace_ns, char *err, size_t err_len)
{
	struct fw_track_end ends[2];
	struct fw_assoc *a;
	uint32_t count, k;
	unsigned version;
	size_t off;
	int ret = 0, i;

	memset(ends, 0, sizeof(ends));
	if (err_len)
		err[0] = '\0';
	if (len < FW_STATE_HEADER || memcmp(buf, magic, sizeof(magic)) != 0) {
		snprintf(err, err_len, "not a hipfw state file");
		return -EBADMSG;
	}
	version = hip_rd16(buf + 8);
	if (version < 1 || version > FW_STATE_VERSION || hip_rd16(buf + 10) != 0) {
		snprintf(err, err_len, "version %u, flags %u: this hipfw reads versions 1 to %u",
			 version, hip_rd16(buf + 10), FW_STATE_VERSION);
		return -EPROTONOSUPPORT;
	}
	count = hip_rd32(buf + 12);
	if (t->used || count > FW_STATE_ENTRIES_MAX || count > t->max ||
	    count > (len - FW_STATE_HEADER) / (FW_STATE_ENTRY + 2 * end_fixed(version))) {
		snprintf(err, err_len, "%u associations: more than the file or the table "
			 "(--max-associations %u) holds", count, t->max);
		return -E2BIG;
	}
	off = FW_STATE_HEADER;
	for (k = 0; k < count; k++) {
		const uint8_t *p = buf + off;
		uint8_t state, flags;

		if (len - off < FW_STATE_ENTRY) {
			snprintf(err, err_len, "truncated at byte %zu", off);
			ret = -EBADMSG;
			goto out;
		}
		state = p[0];
		flags = p[1];
		if (state < FW_TS_I2 || state > FW_TS_CLOSED || (flags & ~ENTRY_UNVERIFIED) ||
		    p[2] || p[3]) {
			snprintf(err, err_len, "bad state %u or flags %u at byte %zu", state, flags,
				 off);
			ret = -EBADMSG;
			goto out;
		}
		off += FW_STATE_ENTRY;
		for (i = 0; i < 2; i++) {
			ret = get_end(buf, len, version, &off, &ends[i], err, err_len);
			if (ret < 0)
				goto out;
		}
		a = fw_track_restore(t, &ends[0].hit, &ends[1].hit, now_ns);
		if (!a) {
			snprintf(err, err_len, "the HIT pair of association %u twice", k + 1);
			ret = -EBADMSG;
			goto out;
		}
		a->end[0] = ends[0];   /* the entry takes the HIs */
		a->end[1] = ends[1];
		memset(ends, 0, sizeof(ends));
		a->state = (enum fw_track_state)state;
		a->unverified = flags & ENTRY_UNVERIFIED;
		if (a->state == FW_TS_ESTABLISHED)
			a->probation_ns = now_ns + grace_ns;
		t->ctr.restored++;
	}
	if (off != len) {
		snprintf(err, err_len, "%zu bytes after the last association", len - off);
		ret = -EBADMSG;
	}
out:
	hip_hi_free(ends[0].hi);
	hip_hi_free(ends[1].hi);
	if (ret < 0) {
		fw_track_clear(t);
		t->ctr.restored = 0;
		return ret;
	}
	t->dirty = false;
	if (version == 1 && count)
		snprintf(err, err_len, "a version 1 file: the UDP ports of its locators are not "
			 "known, ESP in UDP matched without them");
	return (int)count;
}

static int state_path(char *out, size_t cap, const char *dir, const char *suffix)
{
	return (size_t)snprintf(out, cap, "%s/%s%s", dir, FW_STATE_FILE, suffix) < cap ?
	       0 : -ENAMETOOLONG;
}

int fw_state_save(const struct fw_track *t, const char *dir)
{
	char path[4096], tmp[4096];
	uint8_t *buf = NULL;
	size_t len = 0, done = 0;
	ssize_t n;
	int fd = -1, ret;

	ret = state_path(path, sizeof(path), dir, "");
	if (ret == 0)
		ret = state_path(tmp, sizeof(tmp), dir, ".tmp");
	if (ret == 0)
		ret = fw_state_encode(t, &buf, &len);
	if (ret < 0)
		goto out;
	/* a temporary file a killed run left is written over, never followed */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0) {
		ret = -errno;
		goto out;
	}
	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			goto out;
		}
		done += (size_t)n;
	}
	if (fsync(fd) < 0) {
		ret = -errno;
		goto out;
	}
	ret = close(fd);
	fd = -1;
	if (ret < 0 || rename(tmp, path) < 0)
		ret = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0 && buf)
		(void)unlink(tmp);
	free(buf);
	return ret;
}

int fw_state_load(struct fw_track *t, const char *dir, uint64_t now_ns, uint64_t grace_ns,
		  char *err, size_t err_len)
{
	/* the most a table of t->max entries writes */
	size_t cap = FW_STATE_HEADER + (size_t)t->max * (FW_STATE_ENTRY + 2 *
			(FW_STATE_END + FW_STATE_HI_MAX));
	char path[4096];
	uint8_t *buf = NULL;
	size_t len = 0;
	struct stat st;
	ssize_t n;
	int fd = -1, ret;

	if (err_len)
		err[0] = '\0';
	ret = state_path(path, sizeof(path), dir, "");
	if (ret < 0) {
		snprintf(err, err_len, "%s/%s: name too long", dir, FW_STATE_FILE);
		return ret;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > cap) {
		snprintf(err, err_len, "%s: not a regular file of at most %zu bytes", path, cap);
		ret = -EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, err_len, "%s: no memory", path);
		goto out;
	}
	/* one byte more than stat said: a file that grew is refused below */
	while (len <= (size_t)st.st_size) {
		n = read(fd, buf + len, (size_t)st.st_size + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, err_len, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len != (size_t)st.st_size) {
		snprintf(err, err_len, "%s: changed while read", path);
		ret = -EBADMSG;
		goto out;
	}
	{
		char why[200];

		ret = fw_state_decode(t, buf, len, now_ns, grace_ns, why, sizeof(why));
		if (ret < 0 || why[0])
			snprintf(err, err_len, "%s: %s", path, why);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}
