# hipd: the daemon. Its folders' code is one library (hipd/libhipd.a) so the
# unit tests and tools can link it; main.c alone makes the program.
# Layout: README.md "Module map"; hipd/DESIGN.md.
HIPD_INC = -I$(top_srcdir)/hipd
noinst_LIBRARIES += hipd/libhipd.a
hipd_libhipd_a_SOURCES = \
	hipd/hipd.h \
	hipd/daemon.h hipd/daemon.c hipd/control_cmds.c
hipd_libhipd_a_CPPFLAGS = $(AM_CPPFLAGS)
HIPD_LIBS = hipd/libhipd.a $(HIP_CORE_LIBS)

include $(top_srcdir)/hipd/base/local.mk
include $(top_srcdir)/hipd/net/local.mk
include $(top_srcdir)/hipd/control/local.mk
include $(top_srcdir)/hipd/engine/local.mk
include $(top_srcdir)/hipd/datapath/local.mk
include $(top_srcdir)/hipd/privsep/local.mk

sbin_PROGRAMS += hipd/hipd
hipd_hipd_SOURCES = hipd/main.c
hipd_hipd_LDADD = $(HIPD_LIBS)
dist_man_MANS += hipd/hipd.8
EXTRA_DIST += hipd/DESIGN.md
