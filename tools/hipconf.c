/*
 * hipconf - control a running hipd over its UNIX socket (hipconf(8)).
 *
 * Arguments are checked here first, so a typo is reported with the bad
 * word quoted before anything is sent; hipd checks them again.
 *
 * Exit status: 0 ok, 1 usage or bad argument, 2 permission denied,
 * 3 not found, 4 failed, 5 hipd not running.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "checksum.h"
#include "control_proto.h"
#include "hit.h"

enum {
	EXIT_USAGE = 1, EXIT_PERM = 2, EXIT_NOTFOUND = 3, EXIT_FAILED = 4, EXIT_NOT_RUNNING = 5,
	REPLY_TIMEOUT_MS = 60000,
};

enum arg_kind { ARG_HIT, ARG_IP, ARG_LEVEL, ARG_PUZZLE_K, ARG_SERVICE, ARG_HIT_OR_IP,
		ARG_SERVER };
enum { HC_ARGS_MAX = 6 };

struct hc_cmd {
	const char *words;        /* as sent: "add map" */
	const char *args;         /* synopsis */
	int min_args, max_args;
	enum arg_kind kind[HC_ARGS_MAX]; /* of the arguments, in order */
	const char *help;
};

/* Every command hipconf knows; hipd answers "unknown command" for those
 * it does not implement (yet). */
static const struct hc_cmd commands[] = {
	{ "add map", "HIT IP", 2, 2, { ARG_HIT, ARG_IP }, "map a HIT to a locator" },
	{ "del map", "HIT [IP]", 1, 2, { ARG_HIT, ARG_IP },
	  "remove one locator, or every locator of the HIT" },
	{ "show maps", "", 0, 0, { 0 }, "list the HIT -> locator mappings, names and LSIs" },
	{ "add server", "[HIT] IP [SERVICE...]", 1, HC_ARGS_MAX, { ARG_SERVER },
	  "register with a server (rendezvous, relay, relay-esp, candidate-discovery; default "
	  "rendezvous); without its HIT, the HIT is learnt from its R1" },
	{ "del server", "HIT|IP", 1, 1, { ARG_HIT_OR_IP },
	  "cancel the registrations with a server" },
	{ "show servers", "", 0, 0, { 0 }, "servers we register with: state, lifetime" },
	{ "show registrations", "", 0, 0, { 0 },
	  "as a server: services offered, clients registered, relay counters" },
	{ "show hi", "", 0, 0, { 0 }, "local host identities: HITs, algorithms and LSIs" },
	{ "show associations", "", 0, 0, { 0 },
	  "host associations: state, peer, LSIs, locators, SPIs, suites, age" },
	{ "show stats", "", 0, 0, { 0 }, "drop counters, base exchange counts and timings" },
	{ "show config", "", 0, 0, { 0 }, "the configuration in effect" },
	{ "show pins", "", 0, 0, { 0 },
	  "HITs learnt by opportunistic exchanges, pinned per address (known hosts)" },
	{ "del pin", "IP", 1, 1, { ARG_IP },
	  "forget the HIT pinned for IP; the next opportunistic exchange learns anew" },
	{ "trigger", "HIT|IP", 1, 1, { ARG_HIT_OR_IP },
	  "start a base exchange with HIT now; with IP, an opportunistic one (D-27)" },
	{ "close", "HIT", 1, 1, { ARG_HIT }, "close the association with HIT" },
	{ "rekey", "HIT", 1, 1, { ARG_HIT }, "new ESP keys for the association with HIT" },
	{ "add locator", "IP", 1, 1, { ARG_IP }, "announce IP as one of our locators" },
	{ "del locator", "IP", 1, 1, { ARG_IP }, "stop using one of our locators" },
	{ "hide locator", "IP", 1, 1, { ARG_IP }, "never announce this address to peers" },
	{ "unhide locator", "IP", 1, 1, { ARG_IP }, "announce a hidden address again" },
	{ "show locators", "", 0, 0, { 0 }, "our own locators: preferred, manual, hidden" },
	{ "set puzzle", "K|auto", 1, 1, { ARG_PUZZLE_K },
	  "puzzle difficulty (0..28), or automatic" },
	{ "set loglevel", "LEVEL", 1, 1, { ARG_LEVEL },
	  "err, warning, notice, info or debug" },
	{ "reload", "", 0, 0, { 0 }, "re-read hipd.conf and the hosts file" },
	{ "help", "", 0, 0, { 0 }, "the commands this hipd knows" },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: hipconf [--socket PATH] [--json] COMMAND [ARGUMENT]...\n"
		"Control a running hipd.\n"
		"\n"
		"  -s, --socket PATH  hipd's control socket (default " CTL_DEFAULT_SOCKET ")\n"
		"  -j, --json         JSON output, also for errors (on stdout)\n"
		"  -h, --help         this help\n"
		"  -V, --version      print the version\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < N_COMMANDS; i++) {
		char syn[64];

		snprintf(syn, sizeof(syn), "%s%s%s", commands[i].words,
			 commands[i].args[0] ? " " : "", commands[i].args);
		fprintf(f, "  %-24s %s\n", syn, commands[i].help);
	}
	fprintf(f,
		"\n"
		"HIT is an IPv6 address in 2001:20::/28; IP is an IPv4 or IPv6 locator.\n"
		"Changes need root; members of the control group may run show and help.\n"
		"Exit status: 0 ok, 1 usage or bad argument, 2 permission denied,\n"
		"3 not found, 4 failed, 5 hipd not running. See hipconf(8).\n");
}

/* Number of leading words of cmd's name found at argv, 0 if no match. */
static int match_words(const struct hc_cmd *cmd, int argc, char **argv)
{
	char buf[64], *p, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", cmd->words);
	for (p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		if (n >= argc || strcmp(p, argv[n]) != 0)
			return 0;
		n++;
	}
	return n;
}

static int check_arg(enum arg_kind kind, const char *s)
{
	static const char *const levels[] = {
		"err", "warning", "notice", "info", "debug", "error", "warn",
	};
	struct hip_hit hit;
	struct hip_addr a;
	const char *why;
	char *end;
	size_t i;
	long k;
	int r;

	switch (kind) {
	case ARG_HIT:
		r = hip_hit_from_str(s, &hit);
		if (r == -EDOM)
			fprintf(stderr, "hipconf: '%s' is not a HIT (not in the ORCHIDv2 prefix "
				"2001:20::/28)\n", s);
		else if (r)
			fprintf(stderr, "hipconf: '%s' is not a HIT (expected an IPv6 address in "
				"2001:20::/28)\n", s);
		return r ? -1 : 0;
	case ARG_IP:
		if (hip_addr_from_str(s, &a) != 0) {
			fprintf(stderr, "hipconf: '%s' is not an IPv4 or IPv6 address\n", s);
			return -1;
		}
		why = hip_addr_locator_problem(&a);
		if (why) {
			fprintf(stderr, "hipconf: '%s' is %s\n", s, why);
			return -1;
		}
		return 0;
	case ARG_LEVEL:
		for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
			if (strcmp(s, levels[i]) == 0)
				return 0;
		fprintf(stderr, "hipconf: '%s' is not a log level (err, warning, notice, info, "
			"debug)\n", s);
		return -1;
	case ARG_SERVICE:
		if (strcmp(s, "rendezvous") == 0 || strcmp(s, "relay") == 0 ||
		    strcmp(s, "relay-esp") == 0 || strcmp(s, "candidate-discovery") == 0)
			return 0;
		fprintf(stderr, "hipconf: '%s' is not a service (rendezvous, relay, relay-esp or "
			"candidate-discovery)\n", s);
		return -1;
	case ARG_HIT_OR_IP:
		if (hip_hit_from_str(s, &hit) == 0 || hip_addr_from_str(s, &a) == 0)
			return 0;
		fprintf(stderr, "hipconf: '%s' is neither a HIT (2001:20::/28) nor an IP "
			"address\n", s);
		return -1;
	case ARG_SERVER:
		return -1;    /* check_server_args */
	case ARG_PUZZLE_K:
		if (strcmp(s, "auto") == 0)
			return 0;
		errno = 0;
		k = strtol(s, &end, 10);
		if (s[0] < '0' || s[0] > '9' || *end || errno || k > 28) {
			fprintf(stderr, "hipconf: '%s' is not a puzzle difficulty (0..28 or "
				"auto)\n", s);
			return -1;
		}
		return 0;
	}
	return -1;
}

/* add server [HIT] IP [SERVICE...]: a HIT is in 2001:20::/28 (RFC 7343),
 * which no locator is, so the first word tells the forms apart. Without
 * the HIT, hipd learns it from the server's R1 (opportunistic). */
static int check_server_args(int n, char **a)
{
	struct hip_hit hit;
	struct hip_addr addr;
	int i = 1;

	if (hip_hit_from_str(a[0], &hit) == 0) {
		if (n < 2) {
			fprintf(stderr, "hipconf: the server's IP address is missing after its "
				"HIT\n");
			return -1;
		}
		if (check_arg(ARG_IP, a[1]) != 0)
			return -1;
		i = 2;
	} else if (check_arg(ARG_HIT_OR_IP, a[0]) != 0 || check_arg(ARG_IP, a[0]) != 0) {
		return -1;
	}
	for (; i < n; i++) {
		if (hip_addr_from_str(a[i], &addr) == 0) {
			fprintf(stderr, "hipconf: '%s' is not a service: one server is [HIT] IP "
				"[SERVICE...], its HIT first\n", a[i]);
			return -1;
		}
		if (check_arg(ARG_SERVICE, a[i]) != 0)
			return -1;
	}
	return 0;
}

static int full_write(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read exactly len bytes; 0, or -1 on EOF, error or timeout. */
static int full_read(int fd, uint8_t *p, size_t len)
{
	while (len > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, REPLY_TIMEOUT_MS) <= 0) {
			errno = errno ? errno : ETIMEDOUT;
			return -1;
		}
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n == 0 ? ECONNRESET : errno;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int connect_hipd(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hipconf: socket path too long: %s\n", path);
		return -EXIT_USAGE;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "hipconf: socket: %s\n", strerror(errno));
		return -EXIT_FAILED;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	switch (errno) {
	case ENOENT:
		fprintf(stderr, "hipconf: hipd is not running (no socket at %s)\n", path);
		close(fd);
		return -EXIT_NOT_RUNNING;
	case ECONNREFUSED:
		fprintf(stderr, "hipconf: hipd is not running (nothing listens on %s)\n", path);
		close(fd);
		return -EXIT_NOT_RUNNING;
	case EACCES:
	case EPERM:
		fprintf(stderr, "hipconf: cannot connect to %s: %s (root or the hipd group "
			"needed)\n", path, strerror(errno));
		close(fd);
		return -EXIT_PERM;
	default:
		fprintf(stderr, "hipconf: cannot connect to %s: %s\n", path, strerror(errno));
		close(fd);
		return -EXIT_FAILED;
	}
}

/* Send argv, print the answer; returns the exit status. */
static int transact(const char *path, bool json, int argc, char **argv)
{
	uint8_t req[CTL_HDR_LEN + CTL_REQ_MAX], hdr[CTL_HDR_LEN];
	uint8_t *body = NULL;
	uint32_t len;
	int fd, n, status;

	n = ctl_request_encode(req, sizeof(req), json ? CTL_F_JSON : 0, argc,
			       (const char *const *)argv);
	if (n < 0) {
		fprintf(stderr, "hipconf: %s\n", n == -EMSGSIZE ? "command too long" :
			"empty argument or control character in an argument");
		return EXIT_USAGE;
	}
	fd = connect_hipd(path);
	if (fd < 0)
		return -fd;
	if (full_write(fd, req, (size_t)n) != 0 || full_read(fd, hdr, sizeof(hdr)) != 0) {
		fprintf(stderr, "hipconf: no answer from hipd on %s: %s\n", path, strerror(errno));
		status = EXIT_FAILED;
		goto out;
	}
	len = ctl_len_get(hdr);
	if (len < 1 || len > CTL_RESP_MAX) {
		fprintf(stderr, "hipconf: malformed answer from hipd (length %u)\n", len);
		status = EXIT_FAILED;
		goto out;
	}
	body = malloc(len + 1);
	if (!body || full_read(fd, body, len) != 0) {
		fprintf(stderr, "hipconf: answer from hipd cut short: %s\n", strerror(errno));
		status = EXIT_FAILED;
		goto out;
	}
	body[len] = '\0';
	status = body[0] <= CTL_EFAILED ? body[0] : EXIT_FAILED;
	if (status == CTL_OK || json) {
		fwrite(body + 1, 1, len - 1, stdout);
		if (len > 1 && body[len - 1] != '\n')
			putchar('\n');
	} else {
		fprintf(stderr, "hipconf: %s%s", (char *)body + 1,
			len > 1 && body[len - 1] == '\n' ? "" : "\n");
	}
out:
	free(body);
	close(fd);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CTL_DEFAULT_SOCKET;
	const struct hc_cmd *cmd = NULL;
	bool json = false;
	int c, nw = 0, nargs, i;
	size_t k;

	/* '+': options end at the command, so arguments are never options */
	while ((c = getopt_long(argc, argv, "+s:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			path = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hipconf " PACKAGE_VERSION "\n");
			return 0;
		default:
			fprintf(stderr, "Try 'hipconf --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (k = 0; k < N_COMMANDS; k++) {
		int m = match_words(&commands[k], argc, argv);

		if (m > nw) {
			nw = m;
			cmd = &commands[k];
		}
	}
	if (!cmd) {
		fprintf(stderr, "hipconf: unknown command '%s'\n"
			"Try 'hipconf --help' for the list of commands.\n", argv[0]);
		return EXIT_USAGE;
	}
	nargs = argc - nw;
	if (nargs < cmd->min_args || nargs > cmd->max_args) {
		fprintf(stderr, "hipconf: usage: hipconf %s%s%s\n", cmd->words,
			cmd->args[0] ? " " : "", cmd->args);
		return EXIT_USAGE;
	}
	if (cmd->kind[0] == ARG_SERVER && check_server_args(nargs, argv + nw) != 0)
		return EXIT_USAGE;
	for (i = 0; i < nargs && cmd->kind[0] != ARG_SERVER; i++)
		if (check_arg(cmd->kind[i], argv[nw + i]) != 0)
			return EXIT_USAGE;
	return transact(path, json, argc, argv);
}
