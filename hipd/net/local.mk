# hipd/net: raw HIP sockets, the host's own locators and their rtnetlink
# watch, the HIT -> locator map (public header: net/net.h)
hipd_libhipd_a_SOURCES += \
	hipd/net/net.h \
	hipd/net/sock.h hipd/net/sock.c hipd/net/udp.h hipd/net/udp.c \
	hipd/net/locset.h hipd/net/locset.c \
	hipd/net/addrwatch.h hipd/net/addrwatch.c \
	hipd/net/defroute.h hipd/net/defroute.c \
	hipd/net/hosts.h hipd/net/hosts.c \
	hipd/net/known_hosts.h hipd/net/known_hosts.c \
	hipd/net/lsi.h hipd/net/lsi.c hipd/net/lsi_host.h hipd/net/lsi_host.c \
	hipd/net/lsi_export.h hipd/net/lsi_export.c \
	hipd/net/icmp.h hipd/net/icmp.c
