# hipd - thin entry point. The real build is autotools, out of tree in
# $(BUILD); this file only drives it. See README.md.
BUILD      ?= build
CONFIGURE  ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all check test unit fuzz fuzz-long bench distcheck clean distclean deps check-kernel demo scan-build
.PHONY: experiments

all: $(BUILD)/Makefile
	$(MAKE) -C $(BUILD) -j$(JOBS)

configure: configure.ac Makefile.am
	autoreconf -fi

$(BUILD)/Makefile: configure
	mkdir -p $(BUILD)
	cd $(BUILD) && ../configure $(CONFIGURE)

deps:
	tools/install-deps.sh

# Two namespaces, hipd in each, HIT-to-HIT ping over ESP (installs deps, builds; root).
demo:
	BUILD=$(BUILD) tools/demo.sh

# Unit suites only (fast).
unit: $(BUILD)/Makefile
	$(MAKE) -C $(BUILD) -j$(JOBS) check

check: unit

# Everything: what CI and the README run.
test:
	tests/run.sh

fuzz:
	tests/fuzz.sh $(FUZZ_SECONDS)

# Every fuzz target for FUZZ_LONG_SECONDS each (default 600), the inputs
# that reach new code merged into fuzz/corpus/, a summary (tests/fuzz-long.sh).
fuzz-long:
	tests/fuzz-long.sh $(FUZZ_LONG_SECONDS)

# XFRM/ESP tests (tests/kernel/) under Debian 12's kernel in a qemu VM, since the host kernel
# may lack ESP; skipped cleanly where the VM cannot run. See tools/kvm/run-in-esp-vm.sh.
check-kernel:
	@reason=$$(tools/kvm/run-in-esp-vm.sh --probe); rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "check-kernel: SKIPPED: $$reason"; exit 0; fi; \
	if [ $$rc -ne 0 ]; then echo "check-kernel: probe failed ($$rc): $$reason" >&2; exit $$rc; fi; \
	HIPD_VM_TIMEOUT=$${HIPD_VM_TIMEOUT:-1800} tools/kvm/run-in-esp-vm.sh 'sh tests/kernel/run-all.sh'

# clang's static analyzer over a fresh build of everything (warnings are
# errors there too); fails on any finding. Report: $(BUILD)-scan/report.
SCAN_BUILD ?= $(shell command -v scan-build-14 || command -v scan-build)
scan-build: configure
	rm -rf $(BUILD)-scan && mkdir -p $(BUILD)-scan
	cd $(BUILD)-scan && $(SCAN_BUILD) --use-cc=clang $(CURDIR)/configure --enable-werror >/dev/null
	cd $(BUILD)-scan && $(SCAN_BUILD) --use-cc=clang --status-bugs -o report $(MAKE) -j$(JOBS)

bench: all
	$(BUILD)/tools/bench-crypto

distcheck: $(BUILD)/Makefile
	$(MAKE) -C $(BUILD) distcheck

clean:
	[ ! -f $(BUILD)/Makefile ] || $(MAKE) -C $(BUILD) clean

distclean:
	rm -rf build build-* autom4te.cache build-aux aclocal.m4 configure Makefile.in config.h.in config.h.in~

# The seed experiments (issue 17): benchmarks in namespaces (root), a report
# directory with summary.md, CSV and PNG (tools/experiments.sh; EXPERIMENTS_ARGS=--quick).
experiments: all
	BUILD=$(BUILD) tools/experiments.sh $(EXPERIMENTS_ARGS)
