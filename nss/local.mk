# nss: libnss_hip.so.2, the glibc NSS module that resolves the names of the
# HIP hosts file to HITs and LSIs (docs/decisions.md D-19). No libtool in
# this tree: the module is linked as a -shared "program" from its own -fPIC
# objects (libhipcore/hosts_line.c compiled again, libc only).
nsslib_PROGRAMS = nss/libnss_hip.so.2
NSS_HIP_SOURCES = nss/nss_hip.h nss/nss_hip.c nss/hip_file.h nss/hip_file.c \
	nss/lsi_file.h nss/lsi_file.c nss/file_cache.h nss/file_cache.c \
	libhipcore/hosts_line.h libhipcore/hosts_line.c
nss_libnss_hip_so_2_SOURCES = $(NSS_HIP_SOURCES)
nss_libnss_hip_so_2_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nss
nss_libnss_hip_so_2_CFLAGS = $(AM_CFLAGS) -fPIC
nss_libnss_hip_so_2_LDFLAGS = $(HIP_LDFLAGS) -shared -Wl,-soname,libnss_hip.so.2 \
	-Wl,--version-script=$(top_srcdir)/nss/libnss_hip.map
nss_libnss_hip_so_2_LDADD =
nss_libnss_hip_so_2_DEPENDENCIES = $(top_srcdir)/nss/libnss_hip.map
EXTRA_DIST += nss/libnss_hip.map

# (glibc finds a module under /usr/local only through ld.so.cache: run
# ldconfig after `make install` there; packages go to /usr/lib/MULTIARCH.)

# hip-nsswitch: the one way the hosts line of nsswitch.conf gets "hip"
sbin_SCRIPTS = nss/hip-nsswitch
nss/hip-nsswitch: $(top_srcdir)/nss/hip-nsswitch.sh
	$(AM_V_GEN)$(MKDIR_P) nss && cp $(top_srcdir)/nss/hip-nsswitch.sh $@ && chmod +x $@
CLEANFILES = nss/hip-nsswitch
EXTRA_DIST += nss/hip-nsswitch.sh
dist_man_MANS += nss/hip-nsswitch.8
EXTRA_DIST += debian/libnss-hip.install debian/libnss-hip.README.Debian
