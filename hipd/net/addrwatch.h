/*
 * addrwatch.h - follows the host's addresses with rtnetlink
 * (RTM_NEWADDR / RTM_DELADDR, RTM_NEWLINK with IFF_UP/IFF_RUNNING changes)
 * and keeps d->locset current. Needs no capability (read-only rtnetlink
 * multicast groups), so it lives in the unprivileged engine.
 *
 * After each batch of netlink messages read in one event-loop turn it calls
 * d->addrs_changed(d) (the engine's hook: UPDATE's readdressing) once if
 * the announceable set changed,
 * so readdressing starts within the same turn.
 */
#ifndef HIPD_ADDRWATCH_H
#define HIPD_ADDRWATCH_H

struct hipd;
struct addrwatch;

/* Open the socket, subscribe, dump the current addresses into d->locset
 * (synchronously), and register the fd with d->loop. */
int  addrwatch_start(struct hipd *d, struct addrwatch **out);
void addrwatch_stop(struct addrwatch *aw);
/* The name of a link as rtnetlink last reported it (hipconf show
 * locators), NULL if unknown or aw is NULL. */
const char *addrwatch_ifname(const struct addrwatch *aw, int ifindex);

#endif
