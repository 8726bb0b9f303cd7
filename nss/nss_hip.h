/*
 * nss_hip.h - the entry points glibc looks up in libnss_hip.so.2 ("hip" in
 * the hosts line of nsswitch.conf). Return codes (docs/decisions.md D-19):
 *   NSS_STATUS_SUCCESS   the name (or HIT / LSI) is in the HIP hosts file
 *   NSS_STATUS_NOTFOUND  ours but no answer: NAME.hip not listed, a listed
 *                        name asked for AF_INET without an LSI, a HIT not
 *                        listed; with [NOTFOUND=return] it stops there
 *   NSS_STATUS_UNAVAIL   not ours: the next source (dns) answers
 *   NSS_STATUS_TRYAGAIN  buffer too small (*errnop = ERANGE)
 */
#ifndef NSS_HIP_H
#define NSS_HIP_H

#include <netdb.h>
#include <nss.h>
#include <stdint.h>
#include <sys/socket.h>

/* The hosts file, fixed at build time: hipd's default hosts_file. */
#ifndef HIP_NSS_HOSTS_FILE
#define HIP_NSS_HOSTS_FILE "/etc/hip/hosts"
#endif

/* hipd's LSI table (D-26), fixed at build time: hipd's default lsi_file.
 * The LSI of a line without lsi= comes from there. */
#ifndef HIP_NSS_LSI_FILE
#define HIP_NSS_LSI_FILE "/run/hipd/lsi"
#endif

enum nss_status _nss_hip_gethostbyname4_r(const char *name, struct gaih_addrtuple **pat,
					  char *buffer, size_t buflen, int *errnop,
					  int *h_errnop, int32_t *ttlp);
enum nss_status _nss_hip_gethostbyname3_r(const char *name, int af, struct hostent *result,
					  char *buffer, size_t buflen, int *errnop,
					  int *h_errnop, int32_t *ttlp, char **canonp);
enum nss_status _nss_hip_gethostbyname2_r(const char *name, int af, struct hostent *result,
					  char *buffer, size_t buflen, int *errnop,
					  int *h_errnop);
enum nss_status _nss_hip_gethostbyname_r(const char *name, struct hostent *result,
					 char *buffer, size_t buflen, int *errnop, int *h_errnop);
enum nss_status _nss_hip_gethostbyaddr2_r(const void *addr, socklen_t len, int af,
					  struct hostent *result, char *buffer, size_t buflen,
					  int *errnop, int *h_errnop, int32_t *ttlp);
enum nss_status _nss_hip_gethostbyaddr_r(const void *addr, socklen_t len, int af,
					 struct hostent *result, char *buffer, size_t buflen,
					 int *errnop, int *h_errnop);

#endif
