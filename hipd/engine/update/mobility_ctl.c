/*
 * mobility_ctl.c - hipconf commands for the host's own locators (locset.h)
 * and rekeying (update.h): add/del/hide/unhide locator, show locators,
 * rekey HIT. Changes are ADMIN-only (control.c's SO_PEERCRED rule); a
 * change of the announceable set starts the readdress at once, as an
 * rtnetlink event would (RFC 8046 §3.2.1, RFC 8047 §6: administrators can
 * block the exposure of chosen addresses with hide).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "net/net.h"
#include "control/control.h"
#include "engine/assoc/assoc.h"
#include "hipd.h"
#include "hit.h"
#include "base/base.h"
#include "mobility_ctl.h"
#include "update.h"

static int parse_own_addr(struct control_reply *rep, const char *s, struct hip_addr *a)
{
	return control_arg_addr(rep, s, a, locset_addr_problem, ", never a locator");
}

static int need_locset(const struct hipd *d, struct control_reply *rep)
{
	if (d->locset)
		return CTL_OK;
	return control_reply_error(rep, CTL_EFAILED, "hipd is not watching its addresses "
				   "(no locator set)");
}

/* The argument of a locator command: one of our possible locators, with
 * the set there to change. */
static int own_locator_arg(const struct hipd *d, struct control_reply *rep, const char *s,
			   struct hip_addr *a)
{
	int st = parse_own_addr(rep, s, a);

	return st == CTL_OK ? need_locset(d, rep) : st;
}

/* The set changed: readdress now, as after a netlink event. */
static void locators_changed(struct hipd *d, uint64_t before)
{
	if (locset_generation(d->locset) != before && d->hadb)
		upd_local_addrs_changed(d);
}

static int reply_ok(const struct control_request *req, struct control_reply *rep,
		    const char *what, const char *addr)
{
	if (req->json) {
		control_reply_printf(rep, "{\"result\": ");
		control_reply_json_str(rep, what);
		control_reply_printf(rep, ", \"address\": ");
		control_reply_json_str(rep, addr);
		control_reply_printf(rep, "}");
	} else {
		control_reply_printf(rep, "%s %s", what, addr);
	}
	return CTL_OK;
}

static bool is_manual(const struct hip_locset *ls, const struct hip_addr *a)
{
	struct hip_local_locator e[HIP_LOCSET_MAX];
	size_t i, n = locset_entries(ls, e, HIP_LOCSET_MAX);

	for (i = 0; i < n; i++)
		if (!memcmp(&e[i].addr, a, sizeof(*a)))
			return e[i].manual;
	return false;
}

static int cmd_add_locator(const struct control_request *req, struct control_reply *rep,
			   void *arg)
{
	struct hipd *d = arg;
	const char *s = req->argv[0];
	struct hip_addr a;
	uint64_t g;
	int st, r;

	st = own_locator_arg(d, rep, s, &a);
	if (st != CTL_OK)
		return st;
	if (is_manual(d->locset, &a))
		return control_reply_error(rep, CTL_EFAILED, "%s is already a manual locator", s);
	g = locset_generation(d->locset);
	r = locset_add(d->locset, &a, 0, true);
	if (r == -ENOSPC)
		return control_reply_error(rep, CTL_EFAILED, "cannot add %s: already %d locators",
					   s, HIP_LOCSET_MAX);
	if (r < 0 && r != -EEXIST)
		return control_reply_error(rep, CTL_EFAILED, "cannot add %s: %s", s,
					   strerror(-r));
	log_notice("locator %s added by hand%s", s, r == -EEXIST ? " (already present)" : "");
	locators_changed(d, g);
	return reply_ok(req, rep, "added locator", s);
}

static int cmd_del_locator(const struct control_request *req, struct control_reply *rep,
			   void *arg)
{
	struct hipd *d = arg;
	const char *s = req->argv[0];
	struct hip_addr a;
	uint64_t g;
	int st, r;

	st = own_locator_arg(d, rep, s, &a);
	if (st != CTL_OK)
		return st;
	g = locset_generation(d->locset);
	r = locset_del(d->locset, &a, true);
	if (r == -ENOENT)
		return control_reply_error(rep, CTL_ENOENT, "%s is not one of our locators", s);
	if (r < 0)
		return control_reply_error(rep, CTL_EFAILED, "cannot remove %s: %s", s,
					   strerror(-r));
	log_notice("locator %s removed by hand", s);
	locators_changed(d, g);
	return reply_ok(req, rep, "removed locator", s);
}

static int set_hidden(const struct control_request *req, struct control_reply *rep,
		      struct hipd *d, bool hidden)
{
	const char *s = req->argv[0];
	struct hip_addr a;
	uint64_t g;
	int st, r;

	st = own_locator_arg(d, rep, s, &a);
	if (st != CTL_OK)
		return st;
	g = locset_generation(d->locset);
	r = locset_set_hidden(d->locset, &a, hidden);
	if (r == -EEXIST)
		return control_reply_error(rep, CTL_EFAILED, "%s is already hidden", s);
	if (r == -ENOENT)
		return control_reply_error(rep, CTL_ENOENT, "%s is not hidden", s);
	if (r == -ENOSPC)
		return control_reply_error(rep, CTL_EFAILED, "cannot hide %s: already %d hidden "
					   "addresses", s, HIP_LOCSET_MAX);
	if (r < 0)
		return control_reply_error(rep, CTL_EFAILED, "%s: %s", s, strerror(-r));
	log_notice("locator %s %s", s, hidden ? "hidden: never announced" : "announced again");
	locators_changed(d, g);
	return reply_ok(req, rep, hidden ? "hidden locator" : "unhidden locator", s);
}

static int cmd_hide_locator(const struct control_request *req, struct control_reply *rep,
			    void *arg)
{
	return set_hidden(req, rep, arg, true);
}

static int cmd_unhide_locator(const struct control_request *req, struct control_reply *rep,
			      void *arg)
{
	return set_hidden(req, rep, arg, false);
}

static bool addr_eq(const struct hip_addr *a, const struct hip_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static int cmd_show_locators(const struct control_request *req, struct control_reply *rep,
			     void *arg)
{
	struct hipd *d = arg;
	struct hip_local_locator e[HIP_LOCSET_MAX];
	struct hip_addr hid[HIP_LOCSET_MAX], p4, p6;
	size_t i, j, n, nh;
	int st = need_locset(d, rep);
	bool have4, have6, first = true;

	if (st != CTL_OK)
		return st;
	n = locset_entries(d->locset, e, HIP_LOCSET_MAX);
	nh = locset_hidden_list(d->locset, hid, HIP_LOCSET_MAX);
	have4 = locset_preferred(d->locset, AF_INET, &p4) == 0;
	have6 = locset_preferred(d->locset, AF_INET6, &p6) == 0;
	if (req->json)
		control_reply_printf(rep, "{\"locators\": [");
	else if (n == 0)
		control_reply_printf(rep, "no locators");
	else
		control_reply_printf(rep, "%-39s  %-16s  %s", "ADDRESS", "INTERFACE", "FLAGS");
	for (i = 0; i < n; i++) {
		char as[INET6_ADDRSTRLEN], ifn[IF_NAMESIZE + 8] = "-";
		bool pref = (have4 && addr_eq(&e[i].addr, &p4)) ||
			    (have6 && addr_eq(&e[i].addr, &p6));

		hip_addr_to_str(&e[i].addr, as, sizeof(as));
		/* the name rtnetlink gave (the engine cannot ask: seccomp) */
		if (e[i].ifindex > 0) {
			const char *nm = addrwatch_ifname(d->addrwatch, e[i].ifindex);

			if (nm)
				snprintf(ifn, sizeof(ifn), "%s", nm);
			else
				snprintf(ifn, sizeof(ifn), "#%d", e[i].ifindex);
		}
		if (req->json) {
			control_reply_printf(rep, "%s{\"address\": \"%s\", \"ifindex\": %d, "
					     "\"interface\": ", i ? ", " : "", as, e[i].ifindex);
			if (e[i].ifindex > 0)
				control_reply_json_str(rep, ifn);
			else
				control_reply_printf(rep, "null");
			control_reply_printf(rep, ", \"preferred\": %s, \"manual\": %s, "
					     "\"hidden\": %s}", pref ? "true" : "false",
					     e[i].manual ? "true" : "false",
					     e[i].hidden ? "true" : "false");
		} else {
			char fl[32];
			size_t k;

			snprintf(fl, sizeof(fl), "%s%s%s", pref ? "preferred " : "",
				 e[i].manual ? "manual " : "", e[i].hidden ? "hidden" : "");
			k = strlen(fl);
			while (k > 0 && fl[k - 1] == ' ')
				fl[--k] = '\0';   /* no trailing blanks */
			if (fl[0])
				control_reply_printf(rep, "\n%-39s  %-16s  %s", as, ifn, fl);
			else
				control_reply_printf(rep, "\n%-39s  %s", as, ifn);
		}
	}
	control_reply_printf(rep, req->json ? "], \"hidden\": [" : "");
	for (j = 0; j < nh; j++) {
		char as[INET6_ADDRSTRLEN];

		hip_addr_to_str(&hid[j], as, sizeof(as));
		if (req->json) {
			control_reply_printf(rep, "%s\"%s\"", j ? ", " : "", as);
			continue;
		}
		control_reply_printf(rep, first ? "\nhidden: %s" : " %s", as);
		first = false;
	}
	if (req->json)
		control_reply_printf(rep, "]}");
	return CTL_OK;
}

static int cmd_rekey(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd *d = arg;
	const char *s = req->argv[0];
	struct hip_hit peer;
	struct hip_ha *ha;
	int r = hip_hit_from_str(s, &peer);

	if (r == -EDOM)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a HIT (not in the "
					   "ORCHIDv2 prefix 2001:20::/28)", s);
	if (r)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a HIT (expected an "
					   "IPv6 address in 2001:20::/28)", s);
	if (!d->hadb)
		return control_reply_error(rep, CTL_EFAILED, "the protocol engine is not running");
	r = upd_rekey_peer(d, &peer);
	switch (r) {
	case 0:
		break;
	case -ENOENT:
		return control_reply_error(rep, CTL_ENOENT, "no association with %s", s);
	case -ENOTCONN:
		ha = hadb_find_peer(d->hadb, &peer);
		return control_reply_error(rep, CTL_EFAILED, "the association with %s is %s, "
					   "not ESTABLISHED", s,
					   ha ? hip_state_name(ha->state) : "not established");
	case -EBUSY:
		return control_reply_error(rep, CTL_EFAILED, "an UPDATE with %s is outstanding; "
					   "try again when it is acknowledged", s);
	default:
		return control_reply_error(rep, CTL_EFAILED, "rekeying %s: %s", s, strerror(-r));
	}
	if (req->json) {
		control_reply_printf(rep, "{\"result\": \"rekeying\", \"hit\": ");
		control_reply_json_str(rep, s);
		control_reply_printf(rep, "}");
	} else {
		control_reply_printf(rep, "rekeying the association with %s", s);
	}
	return CTL_OK;
}

static const struct control_cmd mobility_cmds[] = {
	{ "add locator", "IP", 1, 1, false, cmd_add_locator,
	  "announce IP as one of our locators (kept until 'del locator')" },
	{ "del locator", "IP", 1, 1, false, cmd_del_locator,
	  "stop using one of our locators (until the kernel reports it again)" },
	{ "hide locator", "IP", 1, 1, false, cmd_hide_locator,
	  "never announce this address to peers" },
	{ "unhide locator", "IP", 1, 1, false, cmd_unhide_locator,
	  "announce a hidden address again" },
	{ "show locators", "", 0, 0, true, cmd_show_locators,
	  "our own locators: address, interface, preferred, manual, hidden" },
	{ "rekey", "HIT", 1, 1, false, cmd_rekey,
	  "new ESP keys and SPIs for the association with HIT (UPDATE)" },
};

int mobility_control_register(struct control *c, struct hipd *d)
{
	if (!c)
		return 0;
	return control_register_table(c, mobility_cmds,
				      sizeof(mobility_cmds) / sizeof(mobility_cmds[0]), d);
}
