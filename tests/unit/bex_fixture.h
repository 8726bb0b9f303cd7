/*
 * bex_fixture.h - shared by check_bex.c (the base exchange) and
 * check_bex_after.c (CLOSE, replacement, input checks): the two hosts of a
 * bex_harness pair and the check that their exchange succeeded.
 */
#ifndef BEX_FIXTURE_H
#define BEX_FIXTURE_H

#include "bex_harness.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])

/* Both sides derived the same keys, SPIs are mirrored and >= 256. */
void assert_established_pair(struct bex_net *n);

#endif
