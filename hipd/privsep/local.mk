# hipd/privsep: the privileged process and its request protocol, the
# engine's client of it, capabilities and the seccomp filter
hipd_libhipd_a_SOURCES += \
	hipd/privsep/priv_proto.h hipd/privsep/priv.h hipd/privsep/priv_int.h \
	hipd/privsep/priv.c hipd/privsep/priv_dispatch.c hipd/privsep/priv_loop.c \
	hipd/privsep/priv_client.h hipd/privsep/priv_client.c \
	hipd/privsep/caps.h hipd/privsep/caps.c \
	hipd/privsep/seccomp.h hipd/privsep/seccomp.c \
	hipd/privsep/privsep.h hipd/privsep/privsep.c
hipd_libhipd_a_CPPFLAGS += $(LIBCAP_CFLAGS)
HIPD_LIBS += $(LIBCAP_LIBS)
