# One Makefile for the whole toolchain.  See README.md.
#
#   make                  build everything into $(BUILD)/ (default build/)
#   make DEVELOPER=1      ... with -Werror and a strict warning list (CI)
#   make check            unit + integration tests, TAP, "N passed, M failed"
#   make check SANITIZE=1 the same with ASan+UBSan builds, in build-san/
#   make demo             profile a bundled example end to end
#   make fuzz             fuzz every reader for FUZZ_SECONDS (60) each with
#                         libFuzzer, built with clang in build-fuzz/
#                         (tests/fuzz/; FUZZ_TARGETS=NAME... picks some)
#   make install PREFIX=DIR
#   make deps             install the Debian packages (root) or print how
#
# Layout of a build (mirrors an installation, so the hpcrun launcher finds
# its runtime at ../lib/hpcrun/libhpcrun.so relative to itself in both):
#   $(BUILD)/bin/{hpcrun,hpcstruct,hpcprof,hpcviewer-tui}
#   $(BUILD)/lib/hpcrun/libhpcrun.so
#   $(BUILD)/obj/...      objects;  $(BUILD)/tests/...  unit-test binaries

PREFIX ?= /usr/local
SANITIZE ?=
DEVELOPER ?=
FUZZ_SECONDS ?= 60

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
else
BUILD ?= build
SAN_FLAGS =
endif

CC ?= cc
CFLAGS ?= -O2 -g
STD_FLAGS = -std=gnu11 -fPIC -Wall -Wextra -MMD -MP -D_GNU_SOURCE -Ilib
ifeq ($(DEVELOPER),1)
STD_FLAGS += -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wold-style-definition -Wpointer-arith -Wvla -Wformat=2 -Wundef \
	-Wno-format-nonliteral -Wcast-align -Wwrite-strings
endif

# Debian packages the project needs to build and test.
DEB_PACKAGES = gcc make pkg-config libdw-dev libelf-dev libcapstone-dev \
	libxml2-dev libxml2-utils zlib1g-dev liblzma-dev xz-utils libncurses-dev tmux \
	man-db file binutils clang libclang-rt-14-dev g++ gfortran libomp-dev \
	openmpi-bin libopenmpi-dev libjemalloc2 chromium
# npm packages the tests use: a real viewer of the trace exports (t4092).
NPM_PACKAGES = speedscope@1
PKGS = libdw libelf capstone libxml-2.0 zlib liblzma ncursesw

ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
MISSING := $(shell for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || echo $$p; done)
ifneq ($(strip $(MISSING)),)
$(error missing libraries: $(strip $(MISSING)); install them with 'apt-get install $(DEB_PACKAGES)' (or run 'make deps' as root))
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS := $(shell pkg-config --libs $(PKGS))
else
# "make deps demo" (the README's quick start): the libraries are looked up
# when the recipes run, after deps has installed them, one goal at a time.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))
.NOTPARALLEL:
endif

ALL_CFLAGS = $(STD_FLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SAN_FLAGS)
ALL_LDFLAGS = -Wl,--as-needed $(LDFLAGS) $(SAN_FLAGS)
# The runtime is preloaded into arbitrary programs: no sanitizer runtime
# (ASan must come first in the link order of the program itself).
# A section per function: tests/t1111 follows the sampling handler's calls
# function by function through the objects' relocations.
RT_CFLAGS = $(STD_FLAGS) $(CFLAGS) -fvisibility=hidden -DHPC_RUNTIME \
	-ffunction-sections
# Capstone is no link dependency: --data dlopens it (datacentric-memop.c).
RT_LIBS = -ldl -lpthread -lrt

# Per-directory object lists: every .c in the directory belongs to it.
LIB_SRCS := $(sort $(wildcard lib/*.c))
HPCRUN_LAUNCHER_SRCS := $(sort $(wildcard hpcrun/*.c))
HPCRUN_RT_SRCS := $(sort $(wildcard hpcrun/rt/*.c))
HPCSTRUCT_SRCS := $(sort $(wildcard hpcstruct/*.c))
HPCPROF_SRCS := $(filter-out hpcprof/hpcprof-mpi.c,$(sort $(wildcard hpcprof/*.c)))
# hpcprof-mpi: hpcprof's modules and its own main, built when MPI is there.
MPICC ?= mpicc
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1)
VIEWER_SRCS := $(sort $(wildcard hpcviewer-tui/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/u-*.c))
# lib/ modules also linked into libhpcrun.so (async-signal-safe ones only).
RT_LIB_SRCS := lib/hpcrun-fmt-write.c lib/hpcrun-events.c lib/textrec-write.c \
	lib/hpcsync-write.c lib/hpcshare-write.c lib/hpctrace-write.c \
	lib/hpcpy-write.c lib/pyline.c lib/seccomp-filters.c lib/python-argv.c

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
rtobj = $(patsubst %.c,$(BUILD)/obj-rt/%.o,$(1))

LIBHPC = $(BUILD)/obj/libhpc.a
PROGRAMS = $(BUILD)/bin/hpcrun $(BUILD)/bin/hpcstruct $(BUILD)/bin/hpcprof \
	$(BUILD)/bin/hpcviewer-tui
ifeq ($(HAVE_MPI),1)
PROGRAMS += $(BUILD)/bin/hpcprof-mpi
endif
RUNTIME = $(BUILD)/lib/hpcrun/libhpcrun.so
UNIT_TESTS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# Named explicitly so make keeps them (they are not intermediate files).
UNIT_OBJS = $(call obj,$(UNIT_SRCS) tests/unit/unit.c)

# The libFuzzer harnesses, one per reader (tests/fuzz/fuzz-NAME.c): clang,
# ASan+UBSan, each linked with lib/ and FUZZ_SRCS_NAME, its tool's code
# without the tool's main, in a build directory of their own.
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_TARGETS ?= hpcstruct hpcrun-fmt structfile config experiment kallsyms \
	hpcsync hpcshare phases tsv formula hpctrace hpcpy
FUZZ_SRCS_hpcstruct = $(filter-out hpcstruct/hpcstruct.c,$(HPCSTRUCT_SRCS))
FUZZ_SRCS_structfile = $(filter-out hpcprof/hpcprof.c,$(HPCPROF_SRCS))
FUZZ_SRCS_config = $(FUZZ_SRCS_structfile)
FUZZ_SRCS_kallsyms = $(FUZZ_SRCS_structfile)
FUZZ_SRCS_experiment = $(filter-out hpcviewer-tui/hpcviewer-tui.c,$(VIEWER_SRCS))
FUZZ_SRCS_phases = $(FUZZ_SRCS_experiment)
FUZZ_SRCS_tsv = $(FUZZ_SRCS_experiment)
FUZZ_HARNESSES = $(patsubst %,$(FUZZ_BUILD)/bin/fuzz-%,$(FUZZ_TARGETS))
fuzzobj = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(1))
# Named, so make keeps them (the link rule's are not intermediate files).
FUZZ_OBJS = $(call fuzzobj,$(sort tests/fuzz/fuzz-file.c $(LIB_SRCS) \
	$(foreach t,$(FUZZ_TARGETS),tests/fuzz/fuzz-$(t).c $(FUZZ_SRCS_$(t)))))

.PHONY: all check demo fuzz install deps clean
all: $(PROGRAMS) $(RUNTIME)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/obj-rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

$(LIBHPC): $(call obj,$(LIB_SRCS))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/hpcrun: $(call obj,$(HPCRUN_LAUNCHER_SRCS)) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/bin/hpcstruct: $(call obj,$(HPCSTRUCT_SRCS)) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/bin/hpcprof: $(call obj,$(HPCPROF_SRCS)) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

$(BUILD)/obj/hpcprof/hpcprof-mpi.o: hpcprof/hpcprof-mpi.c
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/bin/hpcprof-mpi: $(call obj,$(filter-out hpcprof/hpcprof.c,$(HPCPROF_SRCS)) hpcprof/hpcprof-mpi.c) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

$(BUILD)/bin/hpcviewer-tui: $(call obj,$(VIEWER_SRCS)) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

$(RUNTIME): $(call rtobj,$(HPCRUN_RT_SRCS) $(RT_LIB_SRCS)) hpcrun/rt/libhpcrun.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=hpcrun/rt/libhpcrun.map $(LDFLAGS) \
		-o $@ $(call rtobj,$(HPCRUN_RT_SRCS) $(RT_LIB_SRCS)) $(RT_LIBS)

$(BUILD)/tests/u-%: $(BUILD)/obj/tests/unit/u-%.o $(BUILD)/obj/tests/unit/unit.o $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

# u-par-*: hpcprof's tree merge, linked with hpcprof's modules.
$(BUILD)/obj/tests/unit/u-par-%.o: ALL_CFLAGS += -Ihpcprof
$(BUILD)/tests/u-par-%: $(BUILD)/obj/tests/unit/u-par-%.o $(BUILD)/obj/tests/unit/unit.o \
		$(call obj,$(filter-out hpcprof/hpcprof.c,$(HPCPROF_SRCS))) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

# u-sharing-*: hpcprof's sharing classifier, linked with hpcprof's modules.
$(BUILD)/obj/tests/unit/u-sharing-%.o: ALL_CFLAGS += -Ihpcprof
$(BUILD)/tests/u-sharing-%: $(BUILD)/obj/tests/unit/u-sharing-%.o $(BUILD)/obj/tests/unit/unit.o \
		$(call obj,$(filter-out hpcprof/hpcprof.c,$(HPCPROF_SRCS))) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

# unit tests of a tool's module link that module too
$(BUILD)/tests/u-dataview-label: $(BUILD)/obj/hpcviewer-tui/dataview.o

# u-python-layout: the runtime's CPython layouts (no runtime state).
$(BUILD)/obj/tests/unit/u-python-layout.o: ALL_CFLAGS += -Ihpcrun/rt
$(BUILD)/tests/u-python-layout: $(BUILD)/obj/hpcrun/rt/python-layout.o

# Unit tests of the viewer's modules (u-flame-*) link its code without main.
$(BUILD)/tests/u-flame-%: $(BUILD)/obj/tests/unit/u-flame-%.o $(BUILD)/obj/tests/unit/unit.o \
		$(call obj,$(filter-out hpcviewer-tui/hpcviewer-tui.c,$(VIEWER_SRCS))) $(LIBHPC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

check: all $(UNIT_OBJS) $(UNIT_TESTS)
	@HPC_BUILD=$(abspath $(BUILD)) tests/run-tests.sh $(UNIT_TESTS) $(sort $(wildcard tests/t[0-9]*.sh))

demo: all
	@HPC_BUILD=$(abspath $(BUILD)) tests/lib/demo.sh

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(STD_FLAGS) -I. $(PKG_CFLAGS) $(CFLAGS) \
		-fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

.SECONDARY: $(FUZZ_OBJS)
.SECONDEXPANSION:
$(FUZZ_BUILD)/bin/fuzz-%: $$(call fuzzobj,tests/fuzz/fuzz-$$*.c \
		tests/fuzz/fuzz-file.c $$(LIB_SRCS) $$(FUZZ_SRCS_$$*))
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $(LDFLAGS) -o $@ $^ \
		$(PKG_LIBS) -lpthread -lm

fuzz: $(FUZZ_HARNESSES)
	tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/hpcrun \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(RUNTIME) $(DESTDIR)$(PREFIX)/lib/hpcrun/
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	$(if $(wildcard man/*.5),install -m 644 $(wildcard man/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/)

deps:
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(DEB_PACKAGES) && \
		{ npm install -g $(NPM_PACKAGES) || \
		  echo "make deps: npm could not install $(NPM_PACKAGES): the trace export's viewer test (t4092) will skip"; }; \
	else \
		echo "run as root: apt-get update && apt-get install -y $(DEB_PACKAGES) && npm install -g $(NPM_PACKAGES)"; \
		exit 1; \
	fi

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD)/obj $(BUILD)/obj-rt $(BUILD)/tests $(FUZZ_BUILD)/obj -name '*.d' -type f 2>/dev/null)
