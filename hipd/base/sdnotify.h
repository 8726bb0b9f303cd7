/*
 * sdnotify.h - readiness and status for systemd (Type=notify), without
 * libsystemd: one datagram to $NOTIFY_SOCKET (sd_notify(3) protocol).
 */
#ifndef HIPD_SDNOTIFY_H
#define HIPD_SDNOTIFY_H

/* Send state ("READY=1", "STOPPING=1", ...; several separated by '\n').
 * 0 when NOTIFY_SOCKET is not set (not started by systemd), 1 when sent,
 * -errno when the socket is set but unusable. */
int hipd_sd_notify(const char *state);

/* RELOADING=1 with MONOTONIC_USEC (systemd >= 253 wants it), then READY=1
 * after the reload: hipd_sd_notify_reloading(), hipd_sd_notify("READY=1"). */
int hipd_sd_notify_reloading(void);

#endif
