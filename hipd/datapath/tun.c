/*
 * tun.c - create and configure the hip0 TUN device (tun.h). Link settings
 * through ioctl, address and route through rtnetlink (libnl-route-3).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>

#include "tun.h"

int tun_open(const char *name, bool offload, char *ifname)
{
	struct ifreq ifr;
	int fd, rc, hdr = TUN_VNET_HDR_LEN;

	if (!name || strlen(name) >= IFNAMSIZ)
		return -EINVAL;
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0);
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		goto fail;
	if (offload) {
		/* TSO6 and TSO4: inner packets are IPv6 between HITs or IPv4
		 * between LSIs (D-22). No ECN GSO, no UDP GSO (older kernels),
		 * so the segmentation in uesp_io.c sees only TCP (RFC 7402
		 * App. B keeps the TCP header as is). */
		if (ioctl(fd, TUNSETVNETHDRSZ, &hdr) < 0 ||
		    ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO6 | TUN_F_TSO4) < 0)
			goto fail;
	}
	if (ifname)
		memcpy(ifname, ifr.ifr_name, IFNAMSIZ);
	return fd;
fail:
	rc = -errno;
	close(fd);
	return rc;
}

static int tun_link_up(const char *ifname, unsigned mtu)
{
	struct ifreq ifr;
	int s, rc = 0;

	s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
	ifr.ifr_mtu = (int)(mtu ? mtu : TUN_DEFAULT_MTU);
	if (ioctl(s, SIOCSIFMTU, &ifr) < 0) {
		rc = -errno;
		goto out;
	}
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		rc = -errno;
		goto out;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		rc = -errno;
out:
	close(s);
	return rc;
}

static int tun_nl_err(int nlerr)
{
	switch (-nlerr) {
	case NLE_EXIST:   return 0;
	case NLE_PERM:    return -EPERM;
	case NLE_NOMEM:   return -ENOMEM;
	case NLE_NODEV:   return -ENODEV;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	}
	return nlerr ? -EIO : 0;
}

static struct nl_addr *tun_nl_addr(const void *a, unsigned prefix)
{
	struct nl_addr *na = nl_addr_build(AF_INET6, a, 16);

	if (na)
		nl_addr_set_prefixlen(na, (int)prefix);
	return na;
}

/* add (true) or delete the hit/128 address on ifindex */
static int tun_addr(struct nl_sock *sk, int ifindex, const struct hip_hit *hit, bool add)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *na = tun_nl_addr(hit->b, 128);
	int rc = -ENOMEM;

	if (!ra || !na)
		goto out;
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, AF_INET6);
	rtnl_addr_set_local(ra, na);
	/* HITs are unique by construction: no DAD, usable at once. */
	rtnl_addr_set_flags(ra, IFA_F_NODAD);
	rc = tun_nl_err(add ? rtnl_addr_add(sk, ra, NLM_F_CREATE | NLM_F_REPLACE)
			    : rtnl_addr_delete(sk, ra, 0));
out:
	nl_addr_put(na);
	rtnl_addr_put(ra);
	return rc;
}

/* dst/prefix (family's address) through ifindex, scope link: for IPv4 the
 * kernel takes the source from hip0's addresses, our LSIs. */
static int tun_route(struct nl_sock *sk, int ifindex, int family, const void *dst_addr,
		     unsigned prefix)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = nl_addr_build(family, dst_addr, family == AF_INET ? 4 : 16);
	int rc = -ENOMEM;

	if (!rt || !nh || !dst) {
		rtnl_route_nh_free(nh);
		goto out;
	}
	nl_addr_set_prefixlen(dst, (int)prefix);
	rtnl_route_set_family(rt, family);
	rtnl_route_set_dst(rt, dst);
	rtnl_route_set_table(rt, RT_TABLE_MAIN);
	rtnl_route_set_scope(rt, RT_SCOPE_LINK);
	rtnl_route_set_protocol(rt, RTPROT_STATIC);
	rtnl_route_nh_set_ifindex(nh, ifindex);
	rtnl_route_add_nexthop(rt, nh);
	rc = tun_nl_err(rtnl_route_add(sk, rt, NLM_F_CREATE | NLM_F_REPLACE));
out:
	nl_addr_put(dst);
	rtnl_route_put(rt);
	return rc;
}

static int tun_with_nl(const char *ifname, const struct hip_hit *hit, bool add, unsigned mtu)
{
	static const uint8_t orchid[16] = { 0x20, 0x01, 0x00, 0x20 };   /* 2001:20::/28 */
	struct nl_sock *sk = NULL;
	int ifindex, rc;

	if (!ifname || !hit)
		return -EINVAL;
	ifindex = (int)if_nametoindex(ifname);
	if (ifindex == 0)
		return -ENODEV;
	if (add) {
		rc = tun_link_up(ifname, mtu);
		if (rc)
			return rc;
	}
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	rc = tun_nl_err(nl_connect(sk, NETLINK_ROUTE));
	if (rc)
		goto out;
	rc = tun_addr(sk, ifindex, hit, add);
	if (!rc && add)
		rc = tun_route(sk, ifindex, AF_INET6, orchid, 28);
out:
	nl_socket_free(sk);
	return rc;
}

int tun_configure(const char *ifname, const struct hip_hit *hit, unsigned mtu)
{
	return tun_with_nl(ifname, hit, true, mtu);
}

int tun_remove_hit(const char *ifname, const struct hip_hit *hit)
{
	return tun_with_nl(ifname, hit, false, 0);
}

/* ---- LSIs (docs/decisions.md D-20, D-22) ---------------------------------------- */

/* lsi/32 on ifindex (IPv4, no broadcast: a point-to-point style address) */
static int tun_addr4(struct nl_sock *sk, int ifindex, const struct in_addr *lsi)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *na = nl_addr_build(AF_INET, &lsi->s_addr, sizeof(lsi->s_addr));
	int rc = -ENOMEM;

	if (!ra || !na)
		goto out;
	nl_addr_set_prefixlen(na, 32);
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, AF_INET);
	rtnl_addr_set_local(ra, na);
	rc = tun_nl_err(rtnl_addr_add(sk, ra, NLM_F_CREATE | NLM_F_REPLACE));
out:
	nl_addr_put(na);
	rtnl_addr_put(ra);
	return rc;
}

int tun_configure_lsi(const char *ifname, const struct in_addr *lsi,
		      const struct hip_lsi_range *range)
{
	struct nl_sock *sk = NULL;
	int ifindex, rc;

	if (!ifname || !lsi || !lsi->s_addr || !range || range->prefix < 1 || range->prefix > 32)
		return -EINVAL;
	ifindex = (int)if_nametoindex(ifname);
	if (ifindex == 0)
		return -ENODEV;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	rc = tun_nl_err(nl_connect(sk, NETLINK_ROUTE));
	if (!rc)
		rc = tun_addr4(sk, ifindex, lsi);
	if (!rc)
		rc = tun_route(sk, ifindex, AF_INET, range->net, range->prefix);
	nl_socket_free(sk);
	return rc;
}
