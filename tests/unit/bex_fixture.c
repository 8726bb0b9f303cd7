/*
 * bex_fixture.c - shared by check_bex.c and check_bex_after.c: the check
 * that both engines of a bex_harness pair ended the base exchange
 * ESTABLISHED with the same keys.
 */
#include <check.h>

#include "bex_fixture.h"

/* Both sides derived the same keys, SPIs are mirrored and >= 256. */
void assert_established_pair(struct bex_net *n)
{
	struct hip_ha *a = bex_ha(A(n)), *b = bex_ha(B(n));

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(a->state, HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(b->state, HIP_STATE_ESTABLISHED);
	ck_assert_uint_ge(a->spi_in, HIP_SPI_MIN);
	ck_assert_uint_ge(b->spi_in, HIP_SPI_MIN);
	ck_assert_uint_eq(a->spi_out, b->spi_in);
	ck_assert_uint_eq(b->spi_out, a->spi_in);
	ck_assert_int_eq(a->dh_group, b->dh_group);
	ck_assert_int_eq(a->hip_cipher, b->hip_cipher);
	ck_assert_int_eq(a->esp_suite, b->esp_suite);
	ck_assert_uint_gt(a->esp_keys.gl_enc[0] | a->esp_keys.gl_auth[0] |
			  a->esp_keys.lg_enc[0] | a->esp_keys.lg_auth[0] |
			  a->esp_keys.gl_enc[1] | a->esp_keys.lg_enc[1], 0);
	ck_assert_mem_eq(&a->esp_keys, &b->esp_keys, sizeof(a->esp_keys));
	ck_assert_mem_eq(&a->hip_keys, &b->hip_keys, sizeof(a->hip_keys));
	ck_assert_mem_eq(a->hit_local.b, b->hit_peer.b, HIP_HIT_LEN);
	ck_assert_mem_eq(b->hit_local.b, a->hit_peer.b, HIP_HIT_LEN);
}
