/*
 * lsi_export.h - hipd's LSI table as a file for the NSS module
 * (docs/decisions.md D-26; hipd.conf lsi_file, default /run/hipd/lsi):
 * one line per mapped HIT, "HIT LSI", the LSI hipd uses (pinned by the
 * hosts file's lsi= or derived, D-20), after a comment line. nss/lsi_file.c
 * reads it, so a name without lsi= resolves to the derived LSI.
 */
#ifndef HIPD_LSI_EXPORT_H
#define HIPD_LSI_EXPORT_H

#include "hosts.h"

/* Write the LSIs of h's mapped HITs to path ("" = none): a temporary file
 * in the same directory, mode 0644, renamed over path. A failure is logged
 * (warning) and returned as -errno; hipd goes on without the file. */
int lsi_export_write(const struct hosts *h, const char *path);

/* Remove path at a clean exit ("" = none). Nothing if h is NULL: hipd
 * stopped before it had a hosts map (say, a second hipd refused by the
 * pid file lock), so the file is not this hipd's. */
void lsi_export_remove(const struct hosts *h, const char *path);

#endif
