# fuzz targets (clang, --enable-fuzz; tests/fuzz.sh runs them)
if ENABLE_FUZZ
noinst_PROGRAMS += fuzz/fuzz_packet fuzz/fuzz_conf fuzz/fuzz_reg_allow
fuzz_fuzz_packet_SOURCES = fuzz/fuzz_packet.c
fuzz_fuzz_packet_LDADD = $(HIP_CORE_LIBS)
fuzz_fuzz_packet_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_conf_SOURCES = fuzz/fuzz_conf.c
fuzz_fuzz_conf_LDADD = $(HIPD_LIBS)
fuzz_fuzz_conf_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_reg_allow_SOURCES = fuzz/fuzz_reg_allow.c
fuzz_fuzz_reg_allow_LDADD = $(HIPD_LIBS)
fuzz_fuzz_reg_allow_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
endif
EXTRA_DIST += fuzz/packet.dict fuzz/corpus
