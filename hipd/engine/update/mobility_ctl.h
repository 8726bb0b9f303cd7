/*
 * mobility_ctl.h - hipconf commands for the host's own locators and for
 * rekeying: add/del/hide/unhide locator, show locators, rekey HIT.
 */
#ifndef HIPD_MOBILITY_CTL_H
#define HIPD_MOBILITY_CTL_H

struct control;
struct hipd;

/* Register the commands with c; handlers use d->locset (answering "not
 * watching addresses" while it is NULL) and the engine for rekey. */
int mobility_control_register(struct control *c, struct hipd *d);

#endif
