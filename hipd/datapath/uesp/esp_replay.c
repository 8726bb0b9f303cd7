/*
 * esp_replay.c - ESP anti-replay window with 64-bit extended sequence
 * numbers (RFC 4303 §3.4.3 and Appendix A2; RFC 7402 §3.3.6: ESN MUST).
 *
 * Only the low 32 bits travel; the receiver infers the high half from its
 * window (A2.2): if the window lies within one 2^32 subspace, a seq_lo below
 * the window's bottom belongs to the next subspace; if the window straddles
 * a boundary, a seq_lo at or above the bottom belongs to the previous one.
 * The window is only advanced for packets whose ICV verified.
 */
#include <errno.h>
#include <string.h>

#include "esp.h"

int esp_replay_init(struct esp_replay *r, uint32_t window)
{
	if (!r)
		return -EINVAL;
	if (window == 0)
		window = ESP_REPLAY_DEFAULT;
	if (window > ESP_REPLAY_MAX)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->window = window;
	return 0;
}

static bool replay_bit(const struct esp_replay *r, uint64_t seq)
{
	unsigned k = (unsigned)(seq % ESP_REPLAY_MAX);

	return (r->bits[k / 64] >> (k % 64)) & 1;
}

static void replay_set(struct esp_replay *r, uint64_t seq, bool on)
{
	unsigned k = (unsigned)(seq % ESP_REPLAY_MAX);
	uint64_t m = UINT64_C(1) << (k % 64);

	if (on)
		r->bits[k / 64] |= m;
	else
		r->bits[k / 64] &= ~m;
}

int esp_replay_check(const struct esp_replay *r, uint32_t seq_lo, uint64_t *seq)
{
	uint32_t th = (uint32_t)(r->top >> 32);
	uint32_t tl = (uint32_t)r->top - r->window + 1;   /* bottom, mod 2^32 */
	uint64_t hi, full;

	if ((uint32_t)r->top >= r->window - 1) {
		/* Case A: the window lies inside one subspace. */
		if (seq_lo >= tl) {
			hi = th;
		} else {
			if (th == UINT32_MAX)
				return -ESTALE;    /* would pass 2^64: never sent */
			hi = (uint64_t)th + 1;
		}
	} else {
		/* Case B: the window spans the subspace boundary. */
		if (seq_lo >= tl) {
			if (th == 0)
				return -ESTALE;    /* below sequence number 0 */
			hi = (uint64_t)th - 1;
		} else {
			hi = th;
		}
	}
	full = hi << 32 | seq_lo;
	if (full == 0)
		return -ESTALE;                    /* the first packet is 1 (§3.3.3) */
	if (seq)
		*seq = full;
	if (full > r->top)
		return 0;
	if (r->top - full >= r->window)
		return -ESTALE;
	return replay_bit(r, full) ? -EALREADY : 0;
}

void esp_replay_update(struct esp_replay *r, uint64_t seq)
{
	uint64_t diff, k;

	if (seq <= r->top) {
		if (r->top - seq < r->window)
			replay_set(r, seq, true);
		return;
	}
	diff = seq - r->top;
	if (diff >= ESP_REPLAY_MAX) {
		memset(r->bits, 0, sizeof(r->bits));
	} else {
		/* Clear the slots that now stand for top+1 .. seq. */
		for (k = 1; k <= diff; k++)
			replay_set(r, r->top + k, false);
	}
	replay_set(r, seq, true);
	r->top = seq;
}
