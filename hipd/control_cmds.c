/*
 * control_cmds.c - the control commands of the daemon layer: the hosts map
 * (add/del/show map), log level, reload, show config. The engine registers
 * its own (show associations, trigger, close, ...).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "daemon.h"
#include "net/net.h"
#include "base/base.h"
#include "engine/update/update.h"

/* Same wording as hipconf's client-side check. */
static int parse_hit_arg(struct control_reply *rep, const char *s, struct hip_hit *hit)
{
	int r = hip_hit_from_str(s, hit);

	if (r == -EDOM)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a HIT (not in the "
					   "ORCHIDv2 prefix 2001:20::/28)", s);
	if (r)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a HIT (expected an "
					   "IPv6 address in 2001:20::/28)", s);
	return CTL_OK;
}

static int parse_locator_arg(struct control_reply *rep, const char *s, struct hip_addr *a)
{
	return control_arg_addr(rep, s, a, hip_addr_locator_problem, "");
}

static int reply_done(const struct control_request *req, struct control_reply *rep)
{
	if (req->json)
		control_reply_printf(rep, "{}");
	return CTL_OK;
}

static int cmd_add_map(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd_daemon *hd = arg;
	char hs[HIP_HIT_STR_LEN], as[INET6_ADDRSTRLEN];
	struct hip_hit hit;
	struct hip_addr loc;
	int st, r;

	st = parse_hit_arg(rep, req->argv[0], &hit);
	if (st == CTL_OK)
		st = parse_locator_arg(rep, req->argv[1], &loc);
	if (st != CTL_OK)
		return st;
	hip_hit_to_str(&hit, hs, sizeof(hs));
	hip_addr_to_str(&loc, as, sizeof(as));
	r = hosts_add(hd->d.hosts, &hit, &loc);
	if (r == -EEXIST)
		return control_reply_error(rep, CTL_EFAILED, "%s is already mapped to %s", hs, as);
	if (r == -ENOSPC)
		return control_reply_error(rep, CTL_EFAILED, "%s already has %d locators", hs,
					   HOSTS_MAX_LOCATORS);
	if (r)
		return control_reply_error(rep, CTL_EFAILED, "cannot add the mapping: %s",
					   strerror(-r));
	log_info("mapped %s to %s", hs, as);
	lsi_export_write(hd->d.hosts, hd->d.conf.lsi_file);   /* D-26 */
	return reply_done(req, rep);
}

static int cmd_del_map(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd_daemon *hd = arg;
	char hs[HIP_HIT_STR_LEN], as[INET6_ADDRSTRLEN] = "";
	struct hip_hit hit;
	struct hip_addr loc;
	int st, r;

	st = parse_hit_arg(rep, req->argv[0], &hit);
	if (st == CTL_OK && req->argc > 1)
		st = parse_locator_arg(rep, req->argv[1], &loc);
	if (st != CTL_OK)
		return st;
	hip_hit_to_str(&hit, hs, sizeof(hs));
	if (req->argc > 1)
		hip_addr_to_str(&loc, as, sizeof(as));
	r = hosts_del(hd->d.hosts, &hit, req->argc > 1 ? &loc : NULL);
	if (r == -ENOENT && req->argc > 1)
		return control_reply_error(rep, CTL_ENOENT, "%s is not mapped to %s", hs, as);
	if (r == -ENOENT)
		return control_reply_error(rep, CTL_ENOENT, "no mapping for %s", hs);
	if (r)
		return control_reply_error(rep, CTL_EFAILED, "%s", strerror(-r));
	log_info("unmapped %s%s%s", hs, as[0] ? " from " : "", as);
	lsi_export_write(hd->d.hosts, hd->d.conf.lsi_file);   /* D-26 */
	return reply_done(req, rep);
}

struct map_list {
	const struct hosts_entry **e;
	size_t n;
};

static int collect_entry(const struct hosts_entry *e, void *arg)
{
	struct map_list *l = arg;

	l->e[l->n++] = e;
	return 0;
}

static int cmp_entry_hit(const void *a, const void *b)
{
	const struct hosts_entry *const *x = a, *const *y = b;

	return hip_hit_cmp(&(*x)->hit, &(*y)->hit);
}

static const char *origin_name(uint8_t origin)
{
	if (origin == (HOSTS_ORIGIN_FILE | HOSTS_ORIGIN_RUNTIME))
		return "file+runtime";
	return origin == HOSTS_ORIGIN_FILE ? "file" : "runtime";
}

/* Names from the hosts file (D-19) and the HIT's LSI: the file's lsi=, else
 * derived from the HIT (D-20, "(derived)"; "lsi_source" in JSON). "names"
 * appears in JSON only when the file gives some, "lsi" only when the LSI
 * range is not full. */
static void show_map_names(struct control_reply *rep, bool json, struct hosts *h,
			   const struct hosts_entry *e)
{
	char ls[INET_ADDRSTRLEN];
	enum lsi_source src = LSI_DERIVED;
	struct in_addr lsi;
	bool has_lsi;
	const char *p;
	size_t i;

	if (json)
		control_reply_printf(rep, "]");
	has_lsi = hosts_lsi_find(h, &e->hit, &lsi, &src) == 0;   /* given at load */
	if (e->n_names == 0 && !has_lsi)
		return;
	if (has_lsi)
		inet_ntop(AF_INET, &lsi, ls, sizeof(ls));
	if (json) {
		if (e->n_names)
			control_reply_printf(rep, ",\"names\":[");
		for (i = 0, p = e->names; i < e->n_names; i++, p += strlen(p) + 1) {
			control_reply_printf(rep, "%s", i ? "," : "");
			control_reply_json_str(rep, p);
		}
		control_reply_printf(rep, "%s", e->n_names ? "]" : "");
		if (has_lsi)
			control_reply_printf(rep, ",\"lsi\":\"%s\",\"lsi_source\":\"%s\"", ls,
					     src == LSI_FROM_FILE ? "file" : "derived");
		return;
	}
	control_reply_printf(rep, "%-39s ", "");
	for (i = 0, p = e->names; i < e->n_names; i++, p += strlen(p) + 1)
		control_reply_printf(rep, " name=%s", p);
	if (has_lsi)
		control_reply_printf(rep, " lsi=%s%s", ls, src == LSI_FROM_FILE ? "" :
				     " (derived)");
	control_reply_printf(rep, "\n");
}

static int cmd_show_maps(const struct control_request *req, struct control_reply *rep,
			 void *arg)
{
	struct hipd_daemon *hd = arg;
	struct map_list l = { 0 };
	size_t i, j;

	l.e = malloc((hosts_count(hd->d.hosts) + 1) * sizeof(*l.e));
	if (!l.e)
		return control_reply_error(rep, CTL_EFAILED, "out of memory");
	hosts_foreach(hd->d.hosts, collect_entry, &l);
	qsort(l.e, l.n, sizeof(*l.e), cmp_entry_hit);
	if (req->json)
		control_reply_printf(rep, "{\"maps\":[");
	else if (l.n == 0)
		control_reply_printf(rep, "no mappings\n");
	else
		control_reply_printf(rep, "%-39s  %-39s  %s\n", "HIT", "LOCATOR", "SOURCE");
	for (i = 0; i < l.n; i++) {
		char hs[HIP_HIT_STR_LEN], as[INET6_ADDRSTRLEN];

		hip_hit_to_str(&l.e[i]->hit, hs, sizeof(hs));
		if (req->json)
			control_reply_printf(rep, "%s{\"hit\":\"%s\",\"locators\":[", i ? "," : "",
					     hs);
		for (j = 0; j < l.e[i]->n_loc; j++) {
			hip_addr_to_str(&l.e[i]->loc[j], as, sizeof(as));
			if (req->json)
				control_reply_printf(rep, "%s{\"address\":\"%s\","
						     "\"source\":\"%s\"}", j ? "," : "", as,
						     origin_name(l.e[i]->origin[j]));
			else
				control_reply_printf(rep, "%-39s  %-39s  %s\n", j ? "" : hs, as,
						     origin_name(l.e[i]->origin[j]));
		}
		show_map_names(rep, req->json, hd->d.hosts, l.e[i]);
		if (req->json)
			control_reply_printf(rep, "}");
	}
	if (req->json)
		control_reply_printf(rep, "]}");
	free(l.e);
	return CTL_OK;
}

static int cmd_set_loglevel(const struct control_request *req, struct control_reply *rep,
			    void *arg)
{
	struct hipd_daemon *hd = arg;
	int level;

	if (log_level_from_name(req->argv[0], &level) != 0)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a log level (err, "
					   "warning, notice, info, debug)", req->argv[0]);
	log_set_level(level);
	hd->d.conf.log_level = level;
	log_notice("log level set to %s", log_level_name(level));
	return reply_done(req, rep);
}

static int cmd_reload(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd_daemon *hd = arg;
	char err[HIPD_CONF_ERR_MAX];

	if (hd->reload(hd, err, sizeof(err)) != 0)
		return control_reply_error(rep, CTL_EFAILED, "reload failed, nothing changed: %s",
					   err);
	if (req->json)
		return reply_done(req, rep);
	control_reply_printf(rep, "reloaded\n");
	return CTL_OK;
}

static int cmd_show_config(const struct control_request *req, struct control_reply *rep,
			   void *arg)
{
	struct hipd_daemon *hd = arg;
	enum hipd_conf_vtype type;
	char val[HIPD_CONF_VALUE_MAX];
	const char *key;
	size_t i;

	if (req->json) {
		control_reply_printf(rep, "{\"config_file\":");
		control_reply_json_str(rep, hd->d.conf.config_file);
	} else {
		control_reply_printf(rep, "# %s\n", hd->d.conf.config_file[0] ?
				     hd->d.conf.config_file : "(no config file: defaults)");
	}
	for (i = 0; (key = hipd_conf_get(&hd->d.conf, i, val, sizeof(val), &type)); i++) {
		if (!req->json) {
			control_reply_printf(rep, "%s = %s\n", key, val);
			continue;
		}
		control_reply_printf(rep, ",\"%s\":", key);
		switch (type) {
		case HIPD_CONF_V_NUMBER:
			control_reply_printf(rep, "%s", val);
			break;
		case HIPD_CONF_V_BOOL:
			control_reply_printf(rep, "%s", strcmp(val, "yes") ? "false" : "true");
			break;
		case HIPD_CONF_V_LIST: {
			char *p, *save = NULL;
			bool first = true;

			control_reply_printf(rep, "[");
			for (p = strtok_r(val, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
				control_reply_printf(rep, "%s%s", first ? "" : ",", p);
				first = false;
			}
			control_reply_printf(rep, "]");
			break;
		}
		default:
			control_reply_json_str(rep, val);
		}
	}
	if (req->json)
		control_reply_printf(rep, "}");
	return CTL_OK;
}

static const struct control_cmd daemon_cmds[] = {
	{ "add map", "HIT IP", 2, 2, false, cmd_add_map, "map a HIT to a locator" },
	{ "del map", "HIT [IP]", 1, 2, false, cmd_del_map,
	  "remove a locator, or all of the HIT's (file ones return on reload)" },
	{ "show maps", "", 0, 0, true, cmd_show_maps,
	  "list the HIT -> locator mappings, names and LSIs" },
	{ "set loglevel", "LEVEL", 1, 1, false, cmd_set_loglevel,
	  "log level: err, warning, notice, info, debug" },
	{ "reload", "", 0, 0, false, cmd_reload, "re-read the configuration and hosts file" },
	{ "show config", "", 0, 0, true, cmd_show_config, "the configuration in effect" },
};

int hipd_control_register(struct hipd_daemon *hd,
			  int (*reload)(struct hipd_daemon *hd, char *err, size_t errlen))
{
	int r;

	hd->reload = reload;
	r = control_register_table(hd->d.control, daemon_cmds,
				   sizeof(daemon_cmds) / sizeof(daemon_cmds[0]), hd);

	/* own locators and rekey (mobility_ctl.c) */
	return r ? r : mobility_control_register(hd->d.control, &hd->d);
}
