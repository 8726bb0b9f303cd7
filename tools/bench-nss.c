/*
 * bench-nss.c - time getaddrinfo() lookups through whatever nsswitch.conf
 * says (bench/nss.sh sets up the "hip" module in a mount namespace):
 *   bench-nss N NAME [NAME...]
 * For each NAME, N lookups (AF_UNSPEC, SOCK_STREAM), each timed alone
 * (CLOCK_MONOTONIC); prints "NAME: median X us, p90 Y us, min Z us, status"
 * with the getaddrinfo result of the first lookup (ok / EAI text), then the
 * median of N gethostbyname2_r(AF_INET6) calls: the same NSS sources
 * without getaddrinfo's address sorting (RFC 6724: a netlink dump of the
 * local addresses and a UDP connect() per answer when there are several).
 */
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	double *t;
	long n;
	int i, k;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1 || n > 10000000) {
		fprintf(stderr, "usage: bench-nss N NAME [NAME...]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (k = 2; k < argc; k++) {
		int first = 0;

		for (i = 0; i < n; i++) {
			struct addrinfo *res = NULL;
			double t0 = now_us();
			int r = getaddrinfo(argv[k], NULL, &hints, &res);

			t[i] = now_us() - t0;
			if (i == 0)
				first = r;
			if (r == 0)
				freeaddrinfo(res);
		}
		qsort(t, (size_t)n, sizeof(*t), cmp_double);
		printf("%s: median %.1f us, p90 %.1f us, min %.1f us, %s", argv[k], t[n / 2],
		       t[n * 9 / 10], t[0], first ? gai_strerror(first) : "ok");
		for (i = 0; i < n; i++) {
			struct hostent he, *res = NULL;
			char buf[1024];
			int herr;
			double t0 = now_us();

			gethostbyname2_r(argv[k], AF_INET6, &he, buf, sizeof(buf), &res, &herr);
			t[i] = now_us() - t0;
		}
		qsort(t, (size_t)n, sizeof(*t), cmp_double);
		printf("; gethostbyname2_r median %.1f us\n", t[n / 2]);
	}
	free(t);
	return 0;
}
