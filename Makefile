# hipd - thin entry point. The real build is autotools, out of tree in
# $(BUILD); this file only drives it. See README.md.
BUILD      ?= build
CONFIGURE  ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all check test unit fuzz bench distcheck clean distclean deps

all: $(BUILD)/Makefile
	$(MAKE) -C $(BUILD) -j$(JOBS)

configure: configure.ac Makefile.am
	autoreconf -fi

$(BUILD)/Makefile: configure
	mkdir -p $(BUILD)
	cd $(BUILD) && ../configure $(CONFIGURE)

deps:
	tools/install-deps.sh

# Unit suites only (fast).
unit: $(BUILD)/Makefile
	$(MAKE) -C $(BUILD) -j$(JOBS) check

check: unit

# Everything: what CI and the README run.
test:
	tests/run.sh

fuzz:
	tests/fuzz.sh $(FUZZ_SECONDS)

bench: all
	$(BUILD)/tools/bench-crypto

distcheck: $(BUILD)/Makefile
	$(MAKE) -C $(BUILD) distcheck

clean:
	[ ! -f $(BUILD)/Makefile ] || $(MAKE) -C $(BUILD) clean

distclean:
	rm -rf build build-* autom4te.cache build-aux aclocal.m4 configure Makefile.in config.h.in config.h.in~
