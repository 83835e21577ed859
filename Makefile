# colldb - plain Makefile (the layers: docs/design.md, "Layers").
#
#   make            build ./colldb, libcolldb.a, libcolldb.so
#   make deps       install the missing Debian packages (as root; mk/deps.sh)
#   make run        install step (build packages), build, start 4 ranks
#   make check      install step (every package), build, run every test tier
#   make asan | ubsan | valgrind | fuzz | bench | fmt | install | clean
#
# DEV=1 (and CI=true) add -Werror.  O=dir puts objects elsewhere.

VERSION = 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
O ?= build
# gcc unless the command line or the environment names another
# (CC=clang make ubsan); make's own default "cc" does not count
ifeq ($(origin CC),default)
CC = gcc
endif
PKG_CONFIG ?= pkg-config
PKGS = libedit ncursesw libffi check jansson

STD = -std=c11 -D_GNU_SOURCE
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wwrite-strings -Wformat=2 -Wvla -fno-common -Wno-unused-parameter
OPT ?= -O2
DEBUG ?= -g
ifneq ($(filter 1,$(DEV))$(filter true,$(CI)),)
WARN += -Werror
endif
ifneq ($(SANITIZER),)
OPT = -O1
SAN = -fsanitize=$(SANITIZER) $(SANFLAGS) -fno-omit-frame-pointer \
      -fno-sanitize-recover=all
endif

# A build needs the packages of mk/deps.sh's "build" group (and "test" for
# the test programs).  The goals that run the install step first check
# after it, in their sub-make; every other goal stops here, in one line.
INSTALLING_GOALS = deps run check bench valgrind asan ubsan clean fmt
ifeq ($(filter $(INSTALLING_GOALS),$(MAKECMDGOALS)),)
MISSING := $(shell sh mk/deps.sh --missing build $(if $(filter tests,$(MAKECMDGOALS)),test))
ifneq ($(MISSING),)
$(error missing packages: $(MISSING); 'make run' or 'make check' installs them (as root: 'make deps'))
endif
endif

# pkg-config is asked lazily (recursive =), after the deps step ran.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags libedit ncursesw libffi jansson)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs libedit ncursesw libffi jansson)
FFI_LIBS = $(shell $(PKG_CONFIG) --libs libffi)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check)

CFLAGS_ALL = $(STD) $(WARN) $(OPT) $(DEBUG) $(SAN) -fPIC -MMD -MP \
	     -DCOLLDB_VERSION='"$(VERSION)"' \
	     -DCOLLDB_DATADIR='"$(PREFIX)/share/colldb"' \
	     -DCOLLDB_LIBDIR='"$(PREFIX)/lib/colldb"' $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)
LIBS = -lm -ldl -lpthread

ifeq ($(V),1)
Q =
else
Q = @
endif

CORE_SRC = $(wildcard core/*.c core/coll/*.c)

# The mpi transport's MPI calls (core/mpi/plugin.c, core/mpi-plugin.h): one
# plugin per MPI whose compiler wrapper is installed, next to ./colldb.
MPICC_OPENMPI = $(shell command -v mpicc.openmpi 2>/dev/null)
MPICC_MPICH = $(shell command -v mpicc.mpich 2>/dev/null)
MPI_PLUGINS = $(if $(MPICC_OPENMPI),libcolldb-mpi-openmpi.so) \
	      $(if $(MPICC_MPICH),libcolldb-mpi-mpich.so)
SHELL_SRC = $(filter-out shell/start/main.c,$(wildcard shell/*/*.c))
VIZ_SRC = $(wildcard viz/*.c)
HELPER_SRC = $(wildcard tests/helper/*.c)
UNIT_SRC = $(wildcard tests/unit/check_*.c)
TOOL_SRC = $(wildcard tests/tools/*.c)

CORE_OBJ = $(CORE_SRC:%.c=$(O)/%.o)
SHELL_OBJ = $(SHELL_SRC:%.c=$(O)/%.o)
VIZ_OBJ = $(VIZ_SRC:%.c=$(O)/%.o)
HELPER_OBJ = $(HELPER_SRC:%.c=$(O)/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
TOOL_BIN = $(TOOL_SRC:tests/tools/%.c=$(O)/tests/%)
APP_OBJ = $(SHELL_OBJ) $(VIZ_OBJ)

all: colldb libcolldb.a libcolldb.so colldb.pc colldb-uninstalled.pc $(MPI_PLUGINS)

# Include paths follow the layering: core sees only itself, viz sees core,
# shell sees both and includes its folders' headers as "FOLDER/NAME.h"
# (mk/layering.sh checks which folder may include which).
$(O)/core/%.o: INC = -Icore
$(O)/viz/%.o: INC = -Icore -Iviz
$(O)/shell/%.o: INC = -Icore -Iviz -Ishell
$(O)/bench/%.o: INC = -Icore

# The data path's kernels are written for the vectoriser (core/kern.c);
# `make bench` shows what -O3 buys there (bench/kern-bw.c).
ifeq ($(SANITIZER),)
$(O)/core/kern.o: OPT = -O3
endif

$(O)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(INC) $(PKG_CFLAGS) -c -o $@ $<

$(O)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) $(CHECK_CFLAGS) -Icore -Ishell -Iviz -c -o $@ $<

$(O)/libcolldb.a: $(CORE_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/libapp.a: $(APP_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The products at the top are shared by every build directory: .flavor
# names the build that made them, and changes (so they are relinked) when
# another one is asked for (O=, CC=, SANITIZER=).
# (Fuzzer builds make no products at the top: FUZZ=1 leaves it alone.)
FLAVOR := $(O) $(CC) $(SANITIZER) $(SANFLAGS)
ifeq ($(FUZZ),)
ifneq ($(FLAVOR),$(shell cat .flavor 2>/dev/null))
$(shell printf '%s\n' '$(FLAVOR)' >.flavor)
endif
endif

# PREFIX is compiled in (where colldb learn finds the lessons, and the mpi
# transport its plugins): the objects that use it are rebuilt when it
# changes, so 'make install PREFIX=DIR' after a plain 'make' installs a
# colldb that looks in DIR, not in /usr/local.
ifeq ($(FUZZ),)
ifneq ($(PREFIX),$(shell cat $(O)/.prefix 2>/dev/null))
$(shell mkdir -p $(O) && printf '%s\n' '$(PREFIX)' >$(O)/.prefix)
endif
$(O)/shell/start/learn.o $(O)/shell/session/mpi-launch.o: $(O)/.prefix
endif

libcolldb.a: $(O)/libcolldb.a .flavor
	$(Q)cp $< $@

libcolldb.so: $(CORE_OBJ) .flavor
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libcolldb.so.0 $(LDFLAGS_ALL) -o $@ $(CORE_OBJ) $(FFI_LIBS) $(LIBS)
	$(Q)ln -sf libcolldb.so libcolldb.so.0	# what -L. -lcolldb programs load

# The whole runtime goes in and is exported (-rdynamic), so a library that
# `load` puts into an agent rank finds every cdb_* function (core/call.h).
colldb: $(O)/shell/start/main.o $(O)/libapp.a $(O)/libcolldb.a .flavor
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $(O)/shell/start/main.o $(O)/libapp.a \
		-Wl,--whole-archive $(O)/libcolldb.a -Wl,--no-whole-archive \
		$(PKG_LIBS) $(LIBS)

# Never sanitized: MPI loads into a sanitized colldb as it is.
libcolldb-mpi-openmpi.so: core/mpi/plugin.c core/mpi-plugin.h
	@$(if $(Q),echo "  MPICC   $@")
	$(Q)$(MPICC_OPENMPI) $(STD) $(WARN) $(OPT) $(DEBUG) -fPIC -shared \
		$(LDFLAGS) -o $@ $<

libcolldb-mpi-mpich.so: core/mpi/plugin.c core/mpi-plugin.h
	@$(if $(Q),echo "  MPICC   $@")
	$(Q)$(MPICC_MPICH) $(STD) $(WARN) $(OPT) $(DEBUG) -fPIC -shared \
		$(LDFLAGS) -o $@ $<

colldb.pc: mk/colldb.pc.in Makefile
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# pkg-config prefers colldb-uninstalled.pc when PKG_CONFIG_PATH names the
# tree: programs built that way find ./libcolldb.so by their rpath.
colldb-uninstalled.pc: mk/colldb-uninstalled.pc.in Makefile
	$(Q)sed -e 's|@TOP@|$(CURDIR)|g' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(O)/tests/check_%: $(O)/tests/unit/check_%.o $(HELPER_OBJ) $(O)/libapp.a $(O)/libcolldb.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CHECK_LIBS) $(PKG_LIBS) $(LIBS)

# Test-only programs (tests/tools/*.c, each with its own main): the pane
# dump driver and the curses pane demo the viz tier runs.
$(TOOL_BIN): $(O)/tests/%: $(O)/tests/tools/%.o $(O)/libapp.a $(O)/libcolldb.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) $(LIBS)

# ---- examples (docs/examples/) ----------------------------------------------
# User programs built as a user would, against the public header and the
# static library; libkern.so is the library the load/call tests use.

EXAMPLES = ring ring-broken handshake handshake-broken
USER_TESTS = exits ring-exit ring-crash mismatch lint forker batch compute allocspin
EXAMPLE_BIN = $(EXAMPLES:%=$(O)/examples/%) $(O)/examples/libkern.so \
	      $(O)/examples/libhostile.so $(USER_TESTS:%=$(O)/examples/%)
# -O0 in sanitizer runs: instrumented, even -O2 leaves a local the gdb
# tier prints (handshake.c's rank) optimized out
EX_CFLAGS = $(STD) $(WARN) $(if $(SANITIZER),-O0,$(OPT)) $(DEBUG) $(SAN) -Icore $(CFLAGS)
# Each one compiles and links in one step: its headers go to $@.d (read
# with the objects' at the end), so a changed header rebuilds it.
EX_DEPS = -MMD -MP -MF $@.d -MT $@

examples: $(EXAMPLE_BIN)

$(O)/examples/%: docs/examples/%.c core/colldb.h $(O)/libcolldb.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(EX_CFLAGS) $(EX_DEPS) $(LDFLAGS_ALL) -o $@ $< $(O)/libcolldb.a $(FFI_LIBS) $(LIBS)

# tests/user/*.c: user programs only the tests run.
$(O)/examples/%: tests/user/%.c core/colldb.h $(O)/libcolldb.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(EX_CFLAGS) $(EX_DEPS) $(LDFLAGS_ALL) -o $@ $< $(O)/libcolldb.a $(FFI_LIBS) $(LIBS)

# Never sanitized: it must load into whatever ./colldb is (a sanitized
# library needs its runtime loaded first).
$(O)/examples/libkern.so: docs/examples/libkern.c core/colldb.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(STD) $(WARN) $(OPT) $(DEBUG) -Icore $(CFLAGS) $(EX_DEPS) -fPIC -shared \
		$(LDFLAGS) -o $@ $<

# tests/user/libhostile.c: a library that writes over the segment (it sees
# core's internal headers: struct seg_header holds struct coll_args ...,
# so every header seg.h includes counts, through $@.d); never sanitized,
# as libkern.so.
$(O)/examples/libhostile.so: tests/user/libhostile.c core/seg.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(STD) $(WARN) $(OPT) $(DEBUG) -Icore $(CFLAGS) $(EX_DEPS) -fPIC -shared \
		$(LDFLAGS) -o $@ $<

# ---- dependencies ---------------------------------------------------------

# Each goal installs the groups of mk/deps.sh's table it needs.
deps:
	@sh mk/deps.sh build test mpi

# ---- running --------------------------------------------------------------

run:
	@sh mk/deps.sh build
	@$(MAKE) --no-print-directory all
	./colldb -n 4

# ---- tests ----------------------------------------------------------------

check: deps
	@$(MAKE) --no-print-directory all tests examples
	@$(MAKE) --no-print-directory check-layering check-fmt
	$(if $(SANITIZER),,@$(MAKE) --no-print-directory fuzzers)
	@COLLDB_FUZZ_O=$(if $(SANITIZER),,$(FUZZ_O)) sh tests/run.sh $(O)

# ---- fuzzing: tests/fuzz/ (libFuzzer: clang) --------------------------------
# make fuzzers builds every harness into FUZZ_O (the whole app, with
# ASan and UBSan); make fuzz runs each FUZZ_SECS seconds; make check runs
# each a few seconds (tests/fuzz/run.sh).  Not in sanitizer runs: the
# fuzzers are sanitized builds of their own.
FUZZ_CC ?= clang
FUZZ_O ?= build-fuzz
FUZZ_SECS ?= 60
FUZZ_NAMES = parse strace chrome snap script
FUZZ_BIN = $(FUZZ_NAMES:%=$(O)/fuzz/fuzz-%)

# (No -Werror there: gcc is the compiler the warnings are held to.)
fuzzers:
	@$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) FUZZ=1 CI= DEV= \
		SANITIZER=address,undefined SANFLAGS=-fsanitize=fuzzer-no-link fuzz-bin

fuzz-bin: $(FUZZ_BIN)

$(O)/fuzz/fuzz-%: $(O)/tests/fuzz/fuzz-%.o $(O)/tests/fuzz/views.o $(O)/libapp.a $(O)/libcolldb.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) $(LIBS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzzers
	@sh tests/fuzz/run.sh $(FUZZ_O) $(FUZZ_SECS)

# make bench's programs (bench/run.sh) are built with the tests, so they
# keep compiling (defined before the rule: prerequisites expand as read)
BENCH_BIN = $(O)/bench/bench-wake $(O)/bench/pane-cost $(O)/bench/span-cost \
	    $(O)/bench/memcpy-bw $(O)/bench/kern-bw $(O)/bench/explore-bench \
	    $(O)/bench/build-cost $(O)/bench/mpi-ops \
	    $(O)/bench/proto-floor $(O)/bench/user-pp
# The MPI peers (bench/peers.sh): one source, built by each MPI's own
# compiler wrapper (the deps step installs both).
MPI_PEER_BIN = $(O)/bench/mpi-peer-openmpi $(O)/bench/mpi-peer-mpich
tests: $(UNIT_BIN) $(TOOL_BIN) $(BENCH_BIN) $(MPI_PEER_BIN)

# The layers of docs/design.md ("The map"), checked on the #include lines.
check-layering:
	@sh mk/layering.sh

# Sanitizer runs: ranks that crash on purpose must die by their signal (as
# in a normal build), and libedit's own leaks are suppressed.
SAN_OPTS = ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_abort=0:detect_leaks=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_abort=0:print_stacktrace=1:halt_on_error=1

# The products at the top (colldb, libcolldb.*) are shared by every build
# directory: a sanitizer run removes them first, so the tiers run the
# instrumented ones it links (a normal build present would otherwise be
# "up to date" against older objects), and puts the normal ones back
# after, whatever its result.  The objects go to build-SAN-CC.
SAN_PRODUCTS = colldb libcolldb.a libcolldb.so libcolldb.so.0
define san_run
	@rm -f $(SAN_PRODUCTS); \
	$(SAN_OPTS) COLLDB_TEST_CC='$(CC)' \
		COLLDB_TEST_SANFLAGS='-fsanitize=$(2) $(3) -fno-sanitize-recover=all' \
		$(MAKE) --no-print-directory O=build-$(1)-$(notdir $(CC)) \
		SANITIZER=$(2) SANFLAGS='$(3)' check; \
	rc=$$?; rm -f $(SAN_PRODUCTS); \
	$(MAKE) --no-print-directory all >/dev/null; exit $$rc
endef

asan:
	$(call san_run,asan,address,)

# gcc's -fsanitize=undefined leaves out float-cast-overflow (clang's has it)
ubsan:
	$(call san_run,ubsan,undefined,$(if $(findstring gcc,$(notdir $(CC))),-fsanitize=float-cast-overflow))

# make valgrind: the unit tier and the golden transcripts (./colldb, the
# shell, under memcheck) run under valgrind (tests/run.sh).
valgrind:
	@sh mk/deps.sh build test valgrind
	@$(MAKE) --no-print-directory all tests examples
	@VALGRIND=1 sh tests/run.sh $(O)

bench:
	@sh mk/deps.sh build test mpi
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(BENCH_BIN) $(MPI_PEER_BIN)
	@sh bench/run.sh $(O)

$(O)/bench/mpi-peer-openmpi: bench/mpi-peer.c bench/median.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)mpicc.openmpi $(STD) $(WARN) -O2 -o $@ $<

$(O)/bench/mpi-peer-mpich: bench/mpi-peer.c bench/median.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $< (mpich)")
	$(Q)mpicc.mpich $(STD) $(WARN) -O2 -o $@ $<

# The pane's CPU cost (not part of make check): see bench/pane-cost.c.
$(O)/bench/pane-cost: bench/pane-cost.c $(O)/libapp.a $(O)/libcolldb.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) -Icore -Iviz -o $@ $^ $(PKG_LIBS) $(LIBS)

$(O)/bench/%: bench/%.c $(O)/libcolldb.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -Icore -o $@ $^ $(FFI_LIBS) $(LIBS)

# make fmt FILE=path: lay a file out as .clang-format says (then take it
# off mk/fmt-pending.txt); make fmt alone: every file already held to it.
fmt:
	@if [ -n "$(FILE)" ]; then clang-format -i $(FILE); else \
		for f in core/*.[ch] core/*/*.[ch] shell/*/*.[ch] viz/*.[ch] bench/*.c \
		    tests/unit/*.c tests/helper/*.[ch] tests/tools/*.c tests/fuzz/*.c; do \
			grep -qxF "$$f" mk/fmt-pending.txt || clang-format -i "$$f"; \
		done; fi

check-fmt:
	@sh mk/fmt-check.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 colldb $(DESTDIR)$(PREFIX)/bin/colldb
	install -m 644 libcolldb.a $(DESTDIR)$(PREFIX)/lib/libcolldb.a
	install -m 755 libcolldb.so $(DESTDIR)$(PREFIX)/lib/libcolldb.so.0
	ln -sf libcolldb.so.0 $(DESTDIR)$(PREFIX)/lib/libcolldb.so
	install -m 644 core/colldb.h $(DESTDIR)$(PREFIX)/include/colldb.h
	install -d $(DESTDIR)$(PREFIX)/lib/colldb
	for p in $(MPI_PLUGINS); do install -m 755 $$p $(DESTDIR)$(PREFIX)/lib/colldb/$$p; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' mk/colldb.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/colldb.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/colldb.pc
	install -m 644 docs/colldb.1 $(DESTDIR)$(PREFIX)/share/man/man1/colldb.1
	install -d $(DESTDIR)$(PREFIX)/share/colldb/lessons
	install -m 644 scripts/lessons/*.coll $(DESTDIR)$(PREFIX)/share/colldb/lessons/
	install -d $(DESTDIR)$(PREFIX)/share/colldb/lessons/explore
	install -m 644 scripts/lessons/explore/*.coll $(DESTDIR)$(PREFIX)/share/colldb/lessons/explore/
	@DESTDIR='$(DESTDIR)' sh mk/ldconfig.sh $(PREFIX)/lib

clean:
	rm -rf build build-asan* build-ubsan* build-fuzz colldb libcolldb.a libcolldb.so libcolldb.so.0 colldb.pc colldb-uninstalled.pc \
		libcolldb-mpi-openmpi.so libcolldb-mpi-mpich.so \
		tests/golden/*.got tests/user/*.got

.PHONY: all deps run check tests examples check-layering asan ubsan valgrind bench fmt install clean fuzz fuzzers fuzz-bin
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
