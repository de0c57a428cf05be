# fpubench: see README.md.  `make run` and `make check` install what is
# missing first (scripts/install-deps.sh), so both work on a fresh Debian 12.

BUILD    ?= build
SANITIZE ?= 0
NPROC    := $(shell nproc)

PKGS     := libvirt libgit2 libcrypto sqlite3 libxml-2.0 json-c zlib yaml-0.1 libcurl
CC       ?= cc
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-missing-field-initializers -pthread -I. -Ibench
LDFLAGS  += -pthread

ifeq ($(SANITIZE),1)
OBJ      := $(BUILD)/san
CFLAGS   += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
else
OBJ      := $(BUILD)/obj
endif

# Where `make install` puts things (GNU's names; DESTDIR is honoured).
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
datarootdir ?= $(prefix)/share
datadir     ?= $(datarootdir)
mandir      ?= $(datarootdir)/man
INSTALL     ?= install

# The version each run records in the history, and a regression mail names.
VERSION    := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(OBJ)/bench/run/runlog.o $(OBJ)/bench/cmd/dispatch.o $(OBJ)/bench/cmd/cmd_bisect.o: CFLAGS += -DFPUBENCH_VERSION=\"$(VERSION)\"

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

# Every module but main.c goes into one library; the layers (lib/ under
# provenance/ and bench/, bench/ by stage) are checked by scripts/check-layout.sh.
BENCH_SRC  := $(wildcard lib/*.c provenance/*.c) $(filter-out bench/cmd/main.c,$(wildcard bench/*/*.c))
BENCH_OBJ  := $(BENCH_SRC:%.c=$(OBJ)/%.o)
MAIN_OBJ   := $(OBJ)/bench/cmd/main.o
LIBBENCH   := $(OBJ)/libbench.a
FPUBENCH   := $(OBJ)/fpubench

# tests/unit mirrors the sources: tests/unit/bench/judge/test_console.c tests
# bench/judge/console.c.
UNIT_SRC   := $(sort $(shell find tests/unit -name 'test_*.c'))
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(OBJ)/tests/%)

GUEST_OUT  := $(abspath $(BUILD)/guest)

# The binary finds its data from its own directory (lib/runtime.h): installed,
# DATADIR/fpubench from BINDIR; in the build tree, the sources and the guest
# from $(OBJ).  Only these relative paths are compiled in, and runtime.o is
# rebuilt when they change (runtime.flags, as git's GIT-PREFIX).
relpath       = $(shell realpath -m --relative-to=$(1) $(2))
RUNTIME_FLAGS := -DRUNTIME_INSTALL_DATA=\"$(call relpath,$(abspath $(bindir)),$(abspath $(datadir))/fpubench)\" \
		 -DRUNTIME_BUILD_SRC=\"$(call relpath,$(abspath $(OBJ)),$(CURDIR))\" \
		 -DRUNTIME_BUILD_GUEST=\"$(call relpath,$(abspath $(OBJ)),$(GUEST_OUT))\"

.PHONY: all deps guest run check check-layout check-docs check-trees check-lava check-lava-server unit e2e fuzz bench flake clean man completion install uninstall FORCE
.DEFAULT_GOAL := all

all: $(BUILD)/fpubench guest

deps:
	@scripts/install-deps.sh

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(OBJ)/runtime.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(RUNTIME_FLAGS)' | cmp -s - $@ || echo '$(RUNTIME_FLAGS)' >$@

$(OBJ)/lib/runtime.o $(OBJ)/tests/lib/test_runtime: private CFLAGS += $(RUNTIME_FLAGS)
$(OBJ)/lib/runtime.o $(OBJ)/tests/lib/test_runtime: $(OBJ)/runtime.flags

$(LIBBENCH): $(BENCH_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FPUBENCH): $(MAIN_OBJ) $(LIBBENCH)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

ifneq ($(SANITIZE),1)
$(BUILD)/fpubench: $(FPUBENCH)
	ln -sf obj/fpubench $@
else
$(BUILD)/fpubench: $(FPUBENCH)
endif

# Unit tests link the bench library; a test that mocks a libvirt or libgit2
# call lists it in test_NAME.wrap beside it, one symbol a line.
$(OBJ)/tests/%: tests/unit/%.c $(LIBBENCH)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DFPUBENCH_SRCDIR=\"$(CURDIR)\" $(PKG_CFLAGS) -Itests/unit -o $@ $< $(LIBBENCH) \
		$(addprefix -Wl$(comma)--wrap=,$(shell cat tests/unit/$*.wrap 2>/dev/null)) \
		$(LDFLAGS) $(PKG_LIBS) -lcmocka

comma := ,

guest:
	@$(MAKE) --no-print-directory -C guest-tests OUT=$(GUEST_OUT)

# A developer's runs stay in the checkout (results/); the binary's own
# default is the user's data directory.
run: deps all
	$(BUILD)/fpubench run --results results

# `make install`: the binary, and in DATADIR/fpubench what it reads at run
# time (lib/runtime.h): the guest payload, the series, the default config
# and the test module's sources; and the man pages and the bash completion.
DATA_DEST   := $(DESTDIR)$(datadir)/fpubench

install: all man completion
	rm -rf $(DATA_DEST)
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DATA_DEST)/guest $(DATA_DEST)/patches $(DATA_DEST)/kmod
	$(INSTALL) -m 755 $(FPUBENCH) $(DESTDIR)$(bindir)/fpubench
	$(INSTALL) -m 755 $(GUEST_OUT)/init $(DATA_DEST)/guest/init
	$(INSTALL) -m 644 $(GUEST_OUT)/tests.list $(DATA_DEST)/guest/tests.list
	$(INSTALL) -m 644 $(filter-out patches/gcov,$(wildcard patches/*)) $(DATA_DEST)/patches
	$(INSTALL) -d $(DATA_DEST)/patches/gcov
	$(INSTALL) -m 644 $(wildcard patches/gcov/*) $(DATA_DEST)/patches/gcov
	$(INSTALL) -m 644 $(wildcard guest-tests/kmod/*) $(DATA_DEST)/kmod
	$(INSTALL) -m 644 bench/fpubench.conf $(DATA_DEST)/fpubench.conf
	$(INSTALL) -d $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(datadir)/bash-completion/completions
	$(INSTALL) -m 644 $(MAN_PAGES) $(DESTDIR)$(mandir)/man1
	$(INSTALL) -m 644 $(BUILD)/completion/fpubench $(DESTDIR)$(datadir)/bash-completion/completions/fpubench

uninstall:
	rm -rf $(DATA_DEST)
	rm -f $(DESTDIR)$(bindir)/fpubench $(DESTDIR)$(datadir)/bash-completion/completions/fpubench
	rm -f $(addprefix $(DESTDIR)$(mandir)/man1/,$(notdir $(wildcard $(BUILD)/man/*.1)))

# The benchmark (bench/RESULTS.md): too slow and too noisy for CI,
# which only checks that its scripts parse (in check).  BENCH_QUICK=1 for a
# quick pass.
bench: all
	scripts/bench.sh

# Under the sanitizers, libraries' own leaks are suppressed by name (tests/lsan.supp).
unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $$t; done

# Every kernel a user tests (tests/e2e/trees.sh): both Debian trees in one
# cache, a two-tree nightly and a tree without the 486.  It builds five
# kernels, about 20 minutes cold on 2 cores, so it is not part of check.
check-trees: all
	tests/e2e/trees.sh $(BUILD)/fpubench

# LAVA (tests/e2e/lava.sh): lava-dispatcher is heavy (about 140 packages),
# so only this target asks install-deps for it; `make run` never does.
check-lava: all
	@FPUBENCH_DEPS_LAVA=1 scripts/install-deps.sh
	tests/e2e/lava.sh $(BUILD)/fpubench

# The server leg (tests/e2e/lava-server.sh): Debian's lava-server with
# PostgreSQL, started and stopped by the test; heavier still, so its own
# variable and target.
check-lava-server: all
	@FPUBENCH_DEPS_LAVA=1 FPUBENCH_DEPS_LAVA_SERVER=1 scripts/install-deps.sh
	tests/e2e/lava-server.sh $(BUILD)/fpubench

# The layers of the sources (what each folder may include) and the paths
# that comments and documents name; tests/check-layout.sh plants faults.
check-layout:
	@scripts/check-layout.sh
	@tests/check-layout.sh >/dev/null || tests/check-layout.sh

# The builds and the fuzzers use every core (-j$(NPROC)); the unit tests run
# one after the other, and the end-to-end tests size their own jobs.
check: deps check-layout
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@$(MAKE) --no-print-directory check-docs
	@$(MAKE) --no-print-directory mutants-unit
	@for s in scripts/*.sh; do sh -n "$$s" || exit 1; done
	@$(MAKE) --no-print-directory -j$(NPROC) unit
	@$(MAKE) --no-print-directory -j$(NPROC) unit SANITIZE=1
	@$(MAKE) --no-print-directory -j$(NPROC) SANITIZE=1 $(BUILD)/san/fpubench
	@$(MAKE) --no-print-directory -j$(NPROC) fuzz FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS)
	tests/e2e/run.sh $(BUILD)/fpubench
	tests/e2e/series.sh $(BUILD)/fpubench
	tests/e2e/lkdtm.sh $(BUILD)/fpubench
	tests/e2e/misbehave.sh $(BUILD)/fpubench
	tests/e2e/kill.sh $(BUILD)/fpubench 20
	tests/e2e/restore.sh $(BUILD)/fpubench
	tests/e2e/fail-fast.sh $(BUILD)/fpubench
	tests/e2e/install.sh

# Man pages: docs/fpubench.md and docs/fpubench-<command>.md through
# go-md2man, each command's OPTIONS from the option table (the hidden
# `fpubench --dump-options`); the bash completion from the same table and
# the default config's CPU setups.  `make install` installs both.
MAN_CMDS   := run test bisect history console provenance tree lava
MAN_PAGES  := $(BUILD)/man/fpubench.1 $(MAN_CMDS:%=$(BUILD)/man/fpubench-%.1)
MAN_DATE   := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
OPT_DUMP   := $(BUILD)/options.tsv

$(OPT_DUMP): $(FPUBENCH)
	$(FPUBENCH) --dump-options >$@.tmp && mv $@.tmp $@

$(BUILD)/man/%.1: docs/%.md $(OPT_DUMP) scripts/gen-man.py
	@mkdir -p $(dir $@)
	scripts/gen-man.py $(OPT_DUMP) $< $@ $(VERSION) $(MAN_DATE)

man: $(MAN_PAGES)

$(BUILD)/completion/fpubench: $(OPT_DUMP) bench/fpubench.conf scripts/gen-completion.py
	@mkdir -p $(dir $@)
	scripts/gen-completion.py $(OPT_DUMP) bench/fpubench.conf $@

completion: $(BUILD)/completion/fpubench

# Every command has its page, each option of the table is in its command's
# man page, and the completion offers it (tests/docs.sh).
check-docs: man completion
	tests/docs.sh $(BUILD)

# Fuzzing: libFuzzer with ASan+UBSan on the parsers that read untrusted
# input (tests/fuzz/fuzz_*.c), each seeded with the fixtures it parses.
# A crash or leak fails the target and leaves its input in build/fuzz/.
FUZZ_SECONDS ?= 60
CHECK_FUZZ_SECONDS ?= 30
FUZZ_CC      ?= clang
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all \
		$(RUNTIME_FLAGS) -std=c11 -D_GNU_SOURCE -I. -Ibench
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB_OBJ := $(BENCH_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
seeds_fuzz_console   := tests/fixtures/console
seeds_fuzz_patchfile := tests/fixtures/patches tests/fixtures/patches/series/unit patches
seeds_fuzz_series    := patches tests/fixtures/config tests/fixtures/kconfig
seeds_fuzz_mail      := tests/fixtures/provenance
seeds_fuzz_link      := tests/fixtures/provenance
seeds_fuzz_subject   := tests/fixtures/provenance
seeds_fuzz_conf      := tests/fixtures/conf
seeds_fuzz_ktap      := tests/fixtures/console
seeds_fuzz_gcda      := tests/fixtures/gcda
seeds_fuzz_lava_log  := tests/fixtures/lava

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined $(PKG_CFLAGS) -c -o $@ $<

$(FUZZ_DIR)/libfuzz.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libfuzz.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_DIR)/libfuzz.a \
		$(PKG_LIBS) -pthread

# Each fuzzer is a target of its own, so that `make -jN fuzz` runs N at once;
# its output comes whole when it ends, and an artefact it left fails it.
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)

fuzz-run-%: $(FUZZ_DIR)/%
	@mkdir -p $(FUZZ_DIR)/corpus-$*
	@{ echo "== $* for $(FUZZ_SECONDS) s" && \
		$(FUZZ_DIR)/$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/$*- \
			$(FUZZ_DIR)/corpus-$* $(seeds_$*) 2>&1 | tail -n 12; } >$(FUZZ_DIR)/$*.out; \
		cat $(FUZZ_DIR)/$*.out; test -z "$$(ls $(FUZZ_DIR)/$*-* 2>/dev/null)"

# Runs the default matrix N times; every cell must give one status.
N ?= 20
flake: all
	scripts/flake.sh $(BUILD)/fpubench $(N)

clean:
	rm -rf $(BUILD)

-include $(BENCH_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)

# The mutation harness (tests/mutants/README.md): the pristine kernel must
# pass, then every hand-written mutant must be killed or explained; then the
# generated mutants not judged before (SAMPLE=N SEED=S: N of them; COVERAGE=
# an lcov tracefile: only on the lines it says run), into <cache>/mutants.db.
.PHONY: mutants mutants-sample mutants-unit
mutants: all
	scripts/mutants.sh --generate $(BUILD)/fpubench

# CI's fixed sample of generated mutants (tests/mutants/ci-sample), judged
# again every time: each was killed, and one that survives fails.
mutants-sample: all
	MUTANTS= MUTANTS_IDS=tests/mutants/ci-sample RETEST=all scripts/mutants.sh --generate $(BUILD)/fpubench

# The generator's own tests, on a C file of the 6.1 tree, and mutants.sh
# --generate with a stub bench (no kernel needed).
mutants-unit:
	tests/mutants/gen/test_gen.py
	tests/mutants/gen/test-generate.sh

# Line coverage of the kernel's FPU code (bench/run/coverage.h): "patched"
# built with gcov on the FPU objects, booted on every default setup with
# every test; tracefiles, HTML and summary.txt go to COVERAGE_DIR.
COVERAGE_DIR ?= results/coverage
.PHONY: coverage check-coverage
coverage: deps all
	$(BUILD)/fpubench test --coverage $(COVERAGE_DIR)

# Its end-to-end test (tests/e2e/coverage.sh): one FSAVE and one FXSAVE
# setup; one kernel build when cold, so not part of check.
check-coverage: all
	tests/e2e/coverage.sh $(BUILD)/fpubench
