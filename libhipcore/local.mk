# libhipcore: wire format, HIT, state machine table, the control protocol
# hipd and hipconf share
noinst_LIBRARIES += libhipcore/libhipcore.a
libhipcore_libhipcore_a_SOURCES = \
	libhipcore/hip_wire.h libhipcore/byteorder.h \
	libhipcore/hit.h libhipcore/hit.c \
	libhipcore/checksum.h libhipcore/checksum.c \
	libhipcore/packet.h libhipcore/builder.c libhipcore/parser.c \
	libhipcore/params.h libhipcore/params_bex.c libhipcore/params_misc.c \
	libhipcore/coverage.h libhipcore/coverage.c \
	libhipcore/state.h libhipcore/state.c \
	libhipcore/control_proto.h libhipcore/control_proto.c \
	libhipcore/hosts_line.h libhipcore/hosts_line.c \
	libhipcore/lsi_derive.h libhipcore/lsi_derive.c

HIP_CORE_LIBS = libhipcore/libhipcore.a libcrypto-wrap/libcrypto-wrap.a $(OPENSSL_LIBS)
