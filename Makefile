# SPDX-License-Identifier: GPL-2.0
#
# mpirma: kernel module, user library, tools, selftests.  `make help` lists
# the targets.  The module itself is built by kbuild from ./Kbuild and
# kmod/Kbuild; this file drives kbuild and builds everything in user space.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
# Keep intermediate objects (no rebuild of every .o on the next make).
.SECONDARY:
MAKEFLAGS += --no-print-directory

empty :=
space := $(empty) $(empty)
comma := ,

VERSION := $(shell cat $(CURDIR)/VERSION 2>/dev/null || echo 0)
SOVERSION := 0

# ------------------------------------------------------------------ kernel

# Kernel build tree: KDIR (or KERNELDIR, as dkms.conf passes it), else the
# running kernel's, else the one Debian's linux-headers-amd64 (what make deps
# installs) depends on: the kernel linux-image-amd64 boots, in the VM too.
# Never simply the newest: a node with 6.12 headers installed but 6.1
# running would build a module nothing loads.
#
# KVER=6.12 (or 6.1, 6.12-rt, rt, a full release): build for that installed
# kernel instead (tools/mpirma-kernels --resolve), in a copy of the sources
# under build/kmod/<release>/ (kbuild writes an external module's objects
# beside its sources), staged as build/modules/<release>/mpirma.ko.  The
# default build in kmod/ is left alone, so builds for several kernels live
# side by side (make module-all builds one for every installed kernel).
ifneq ($(KVER),)
KREL := $(shell $(CURDIR)/tools/mpirma-kernels --resolve '$(KVER)')
ifeq ($(KREL),)
$(error KVER=$(KVER) names no installed kernel (tools/mpirma-kernels lists them))
endif
KDIR := /lib/modules/$(KREL)/build
KOBJ := build/kmod/$(KREL)
KSTAGE := build/modules/$(KREL)
endif
ifneq ($(KERNELDIR),)
KDIR ?= $(KERNELDIR)
endif
ifeq ($(KDIR),)
ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
KDIR := /lib/modules/$(shell uname -r)/build
else
KDIR := $(shell $(CURDIR)/tools/mpirma-kernels --default-build-dir 2>/dev/null)
endif
endif
# The release KDIR builds for (install puts the module there).
KREL ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	 $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# Without KVER: the module in kmod/, staged in build/modules/.
KOBJ ?= .
KSTAGE ?= build/modules

# KWERROR=1: any compiler warning in kmod/ is an error (KCFLAGS=-Werror).
# dkms.conf sets 0: a user's newer compiler must not break the install.
KWERROR ?= 1
KBUILD_ARGS = -C $(KDIR) M=$(CURDIR) $(if $(filter 1,$(KWERROR)),KCFLAGS=-Werror)

# ------------------------------------------------------------------ layout

B := build
OBJ := $(B)/obj
KSRC := $(B)/ksrc/linux-source-6.1
KSRC_TAR := /usr/src/linux-source-6.1.tar.xz
KSRC_STAMP := $(B)/ksrc/.stamp
KSRC_MEMBERS := tools/testing/selftests/kselftest_harness.h \
		tools/testing/selftests/kselftest.h \
		scripts/checkpatch.pl scripts/spelling.txt \
		scripts/const_structs.checkpatch
KSELFTEST := $(KSRC)/tools/testing/selftests
CHECKPATCH := $(KSRC)/scripts/checkpatch.pl

STDIR := $(B)/libexec/mpirma/selftests
MTDIR := $(B)/libexec/mpirma/mpitests
EXDIR := $(B)/examples
VMDIR := $(B)/libexec/mpirma/vm

# ------------------------------------------------------------------ flags

CC ?= cc
AR ?= ar
CFLAGS ?= -O2 -g
WARNFLAGS := -Wall -Wextra -Werror
ALL_CFLAGS = $(CFLAGS) $(WARNFLAGS) -std=gnu11 -Iinclude -MMD -MP $(EXTRA_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) -Wl,--as-needed
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	      -fno-omit-frame-pointer
# -Wno-tsan: TSan does not model the one standalone fence (rma_queue.c),
# which orders plain stores before a system call, not threads.
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer -Wno-tsan
# The harness headers come from linux-source: -isystem keeps our -Werror
# off their code.
ST_CFLAGS = -isystem $(KSELFTEST) -Iselftests/lib
ST_LDLIBS := -lpthread -lnuma
# common/*.c compiled for user space: exact IEEE semantics as in the
# kernel build (kmod/Kbuild), no FMA contraction.
KUSER_CFLAGS := -DMPIRMA_USERSPACE -Icommon -ffp-contract=off

# ------------------------------------------------------------------ sources

# Three layers, each using only those below it (lib/check-layers, in make
# unit): lib/base: the process, handles, errors, info, attributes,
# datatypes, ops; lib/runtime: groups, communicators, point-to-point,
# collectives, requests; lib/rma: windows and the RMA engine.
LIB_DIRS := lib/base lib/rma lib/runtime
LIB_SRCS := $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
LIB_INC := $(addprefix -I,$(LIB_DIRS))
TOOL_SRCS := $(wildcard tools/*.c)
ST_SRCS := $(wildcard selftests/*.c)
ST_LIB_SRCS := $(wildcard selftests/lib/*.c)
UT_SRCS := $(wildcard tests/*.c)
KUSER_SRCS := $(wildcard common/*.c)
MAN_SRCS := $(wildcard docs/man/*.[1-8])
KSOURCES := $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h common/*.c common/*.h)) \
	    include/mpirma_uapi.h
SCRIPTS := tools/mpirma-vm tools/mpirma-kernels tools/mpirma-deps tools/check-tally tools/vm/run-job tools/mpirma-debug-kernel \
	   $(wildcard tools/mpicc tools/vm-check tools/vm-faults mpitests/run) \
	   $(wildcard .ci/run selftests/run) lib/check-layers lib/check-api

# Library: built only once lib/ has sources.
# The library carries the kernel's reduction engine, built for user space, so
# MPI_Reduce computes the same bits as MPI_Accumulate.
# the reduction engine's vectorized builds (LIB_VECT_CFLAGS)
REDUCE_VEC_OBJS = $(foreach v,vec avx2,$(1)/common/reduce_$(v).o $(1)/common/reduce_fp_$(v).o)
LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/pic/%.o) $(KUSER_SRCS:%.c=$(OBJ)/pic/%.o) \
	    $(call REDUCE_VEC_OBJS,$(OBJ)/pic)
LIB_MAP := $(wildcard lib/libmpirma.map)
ifneq ($(LIB_SRCS),)
LIB_A := $(B)/lib/libmpirma.a
LIB_SO := $(B)/lib/libmpirma.so.$(VERSION)
LIB_TARGETS := $(LIB_A) $(LIB_SO) $(B)/lib/libmpirma.so.$(SOVERSION) \
	       $(B)/lib/libmpirma.so
# Programs find the library next to them: bin/../lib, libexec/mpirma/x/../../../lib.
LINK_LIB_BIN = -L$(B)/lib -lmpirma '-Wl,-rpath,$$ORIGIN/../lib'
LINK_LIB_ST = -L$(B)/lib -lmpirma '-Wl,-rpath,$$ORIGIN/../../../lib'
endif

TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(B)/bin/%)
ST_BINS := $(ST_SRCS:selftests/%.c=$(STDIR)/%)
ST_LIB_OBJS := $(ST_LIB_SRCS:%.c=$(OBJ)/%.o)
UT_BINS := $(UT_SRCS:tests/%.c=$(B)/tests/%)
UT_ASAN_BINS := $(UT_SRCS:tests/%.c=$(B)/tests/%-asan)
# The unit tests that run threads, also under ThreadSanitizer.
UT_TSAN_BINS := $(patsubst tests/%.c,$(B)/tests/%-tsan,$(wildcard tests/test_handle.c tests/test_hy_lockword.c tests/test_ulock.c \
		 tests/test_win_counters.c))
# Unit tests link against archives, so they pull in only what they use.
UT_ARCHIVE := $(OBJ)/libunit.a
UT_ASAN_ARCHIVE := $(OBJ)/asan/libunit.a
# The plain archive takes the library's own vectorized builds of the
# reduction engine (machine code, LIB_VECT_CFLAGS): the unit test checks
# the very objects the library runs, and 20 s of compiling are saved.  The
# ASan archive builds them instrumented (common/*_vec.c: no such file, the
# %_vec.o rules build it from common/%.c).
UT_ARCHIVE_SRCS := $(KUSER_SRCS) $(ST_LIB_SRCS)
UT_ARCHIVE_OBJS := $(UT_ARCHIVE_SRCS:%.c=$(OBJ)/%.o) $(call REDUCE_VEC_OBJS,$(OBJ)/pic)
UT_ASAN_ARCHIVE_OBJS := $(UT_ARCHIVE_SRCS:%.c=$(OBJ)/asan/%.o) \
			$(call REDUCE_VEC_OBJS,$(OBJ)/asan)
MAN_PAGES := $(foreach m,$(MAN_SRCS),$(B)/share/man/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
HEADERS := $(patsubst include/%,$(B)/include/%,$(wildcard include/*.h))
STAGED_SCRIPTS := $(B)/bin/mpirma-vm $(B)/bin/mpirma-kernels $(VMDIR)/init $(VMDIR)/run-job

# The launcher under its other names, and the compiler wrapper.  Examples and
# MPI-level tests are built with the staged mpicc, exactly as a user builds
# an MPI program, once the library and mpi.h exist.
LAUNCHER_LINKS := $(if $(wildcard tools/mpiexec.c),$(B)/bin/mpirun $(B)/bin/mpirma-run)
MPICC := $(if $(wildcard tools/mpicc),$(B)/bin/mpicc)
EX_SRCS := $(wildcard examples/*.c)
MT_SRCS := $(wildcard mpitests/*.c)
# suite.c is the hybrid lists' driver of several tests (hybrid/hybrid.mk)
MT_LIB_SRCS := $(filter-out mpitests/lib/suite.c,$(wildcard mpitests/lib/*.c))
ifneq ($(LIB_TARGETS),)
ifneq ($(wildcard include/mpi.h),)
EX_BINS := $(EX_SRCS:examples/%.c=$(EXDIR)/%)
MT_BINS := $(MT_SRCS:mpitests/%.c=$(MTDIR)/%) $(MTDIR)/suite
# threads under ThreadSanitizer, with its own build of the library
LIB_TSAN_OBJS := $(LIB_SRCS:%.c=$(OBJ)/tsan/%.o) $(KUSER_SRCS:%.c=$(OBJ)/tsan/%.o) \
		 $(call REDUCE_VEC_OBJS,$(OBJ)/tsan)
LIB_TSAN := $(B)/lib/tsan/libmpirma.so.$(SOVERSION)
MT_TSAN := $(if $(wildcard mpitests/threads.c),$(MTDIR)/threads-tsan)
endif
endif
# The runner only with tests to run (vm-check skips a suite without one).
MT_STAGED := $(if $(and $(MT_BINS),$(wildcard mpitests/run)),$(MTDIR)/run $(MTDIR)/list)
CHECK_SCRIPT := $(if $(wildcard tools/vm-check),$(B)/libexec/mpirma/check)
FAULTS_SCRIPT := $(B)/libexec/mpirma/faults
# Flags for programs built with mpicc: the project's warnings, no -Iinclude
# (mpicc must find mpi.h by itself).  mpicc's rpath names the staged lib/;
# $$ORIGIN first lets an installed copy find the installed library.
MPICC_FLAGS = $(CFLAGS) $(WARNFLAGS) -std=gnu11
MT_LIB_OBJS := $(MT_LIB_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/selftests/lib/reference.o \
	       $(OBJ)/selftests/lib/ref_values.o \
	       $(OBJ)/selftests/lib/vmpin.o
MT_ARCHIVE := $(OBJ)/libmpitests.a
MT_HDRS := $(wildcard mpitests/lib/*.h) selftests/lib/reference.h \
	   selftests/lib/ref_types.h \
	   selftests/lib/vmpin.h

# ------------------------------------------------------------------ install

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# A package (DESTDIR) ships its udev rule in /lib/udev; a local install is
# the administrator's, /etc/udev.
ifneq ($(DESTDIR),)
UDEVRULESDIR ?= /lib/udev/rules.d
else
UDEVRULESDIR ?= /etc/udev/rules.d
endif
MODULESLOADDIR ?= /etc/modules-load.d
DKMS_SRC := /usr/src/mpirma-$(VERSION)
# DKMS builds and installs the module for each kernel; skipped for package
# builds (DESTDIR) and with NO_DKMS=1, which install the built .ko instead.
NO_DKMS ?= 0
# DKMS_ROOT (with DESTDIR the same directory): DKMS's trees there instead of
# the system's, for make check-dkms; it never signs into /var/lib/dkms.
DKMS_ROOT ?=
USE_DKMS := $(if $(filter 0,$(NO_DKMS)),$(if $(DESTDIR),$(if $(DKMS_ROOT),1,0),1),0)
DKMS_FLAGS := $(if $(DKMS_ROOT),--sourcetree $(DKMS_ROOT)/usr/src \
	--dkmstree $(DKMS_ROOT)/var/lib/dkms --installtree $(DKMS_ROOT)/lib/modules --no-depmod)

# ------------------------------------------------------------------ VM

VM := tools/mpirma-vm
# The selftest suite: 2 vCPUs (the machine has 2 cores), 2 NUMA nodes.
# The timeout only catches a hung guest: the whole suite in one boot took
# 1040 to 1140 s here at load 8 to 13, with 1200 s too close; since the
# hybrid lists grew to 60 cases it takes 470 s idle, and its longest case
# runs 3 to 6 times slower beside two busy processes (hybrid/run).
VM_CHECK_ARGS ?= --cpus 2 --numa 2 --timeout 3600
# Then the selftests that depend on the topology again at 4 nodes, two of
# them without CPUs (their memory is served by another node's workers).
VM_NUMA4_ARGS ?= --cpus 2 --numa 4 --timeout 600
VM_NUMA4_TESTS ?= workers window window_map window_numa window_group death contention
# make check boots its second kernel at 4 nodes instead: it runs those
# selftests among the others, and a boot of their own cost 31 s.
VM_SECOND_ARGS ?= --cpus 2 --numa 4 --timeout 3600
# The library's kernel path for MPI_Win_create windows (the module's
# map_user=0): the MPI tests of RMA, in one more short boot of
# make check-KERNEL.
VM_NOMAP_ARGS ?= --cpus 2 --numa 2 --timeout 600 --param map_user=0
VM_NOMAP_MPITESTS ?= win,sync,concurrency,rmaerr
DEMO_ARGS ?= -n 4

# ================================================================== targets

.PHONY: all module userspace lib tools selftests unit-build man help \
	deps check run lint checkpatch sparse shellcheck unit vmtest \
	install uninstall clean distclean module-clean ksrc

all: module userspace

userspace: lib tools selftests unit-plain man $(HEADERS) $(STAGED_SCRIPTS) \
	   mpi-tools examples mpitests

help:
	@echo "make [all]        module (kmod/mpirma.ko) + user space, staged in build/"
	@echo "make deps         install missing Debian packages (apt-get)"
	@echo "make check        deps, all, lint, unit, the VM suite on $(KREL) and"
	@echo "                  the kernel-facing part of it on $(CHECK_SECOND), a locking smoke on $(CHECK_RT)"
	@echo "make check-6.1 | check-6.12 | check-rt   the whole VM suite on that kernel"
	@echo "make module KVER=6.12   the module for another installed kernel, in build/kmod/"
	@echo "make module-all   the module (and fault build) for every installed kernel"
	@echo "make run          deps, all, an MPI example with 4 ranks in the VM"
	@echo "make examples     the MPI examples, in $(EXDIR)"
	@echo "make mpitests     the MPI-level tests, in $(MTDIR)"
	@echo "make lint         checkpatch + sparse on every kernel (+ shellcheck if installed)"
	@echo "make unit         host unit tests, plain and ASan/UBSan"
	@echo "make vmtest       selftests + MPI tests in one VM ($(VM) $(VM_CHECK_ARGS))"
	@echo "make bench-strategies  the atomicity strategies side by side, in $(BENCH_DIR)/"
	@echo "make fuzz         the ioctl fuzzer, FUZZ_CALLS=$(FUZZ_CALLS) [FUZZ_SEED= FUZZ_PROCS=]"
	@echo "make stress       the stress test, STRESS_SECONDS=$(STRESS_SECONDS) [STRESS_PROCS= STRESS_THREADS=]"
	@echo "make fault-module the module with test-only fault injection, in $(FAULT_KO)"
	@echo "make faults       fault injection, random kill -9, reload tests in the VM"
	@echo "make faults-long  the same, 100 reloads and 25 kill rounds per variant"
	@echo "make bench        mpirma vs Open MPI vs MPICH in one VM, in $(BENCH_DIR)/"
	@echo "make bench-msg    messages and collectives, each MPI alone and with the layer"
	@echo "make bench-osu    the OSU one-sided benchmarks' shapes, each MPI alone and with the layer"
	@echo "make bench-omb    OSU's own one-sided tests (OMB_SRC=an unpacked OMB 7.x), the same columns"
	@echo "make bench-strided strided calls (a reused vector, a subarray per call), each MPI alone and with the layer"
	@echo "make bench-costs  what a call, branch, fence, copy and sleep cost: host CPU against the VM"
	@echo "make bench-2node  each host MPI alone and with the layer across two VMs"
	@echo "make mpich-suite MPICH_SRC=DIR  MPICH's test/mpi suite built and run in the VM"
	@echo "make check-apps   NWChem DFT and CCSD under both hosts with the layer, in the VM"
	@echo "make bench-apps   NWChem time to solution, each host alone and with the layer"
	@echo "make debug-kernel the KASAN/lockdep/UBSAN/KFENCE kernel (cached, long build)"
	@echo "                  DEBUG_KSRC=6.1|6.12 (source version) DEBUG_RT=1 (PREEMPT_RT, 6.12)"
	@echo "make check-debug  the VM suite on the debug kernel (CHECK_ARGS=selftests...)"
	@echo "make install      PREFIX=$(PREFIX) DESTDIR= NO_DKMS=0"
	@echo "make check-dkms   make install through DKMS in a scratch root, a smoke run per kernel"
	@echo "make uninstall | clean | distclean"
	@echo "KDIR=$(KDIR)"
	@echo "kernels: $$(tools/mpirma-kernels --builds | tr '\n' ' ')"

deps:
	@tools/mpirma-deps

# check and run start with deps; the rest runs in a new make so that KDIR
# and the wildcards see what deps installed.  Their builds use every CPU
# (BUILD_JOBS; make -jN of your own wins): on 2 cores that halves them.
BUILD_JOBS ?= $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
#
# The VM's first boot, the full suite, leaves a fifth of 2 host CPUs idle
# (sampled every 5 s: 60-94% busy by the minute, 80% over the boot): the
# other kernels' modules and check-host (lint, the unit tests) are built
# and run there at nice 19, each into its log, printed when it is done.
# The short boots wait for those modules; the check waits for check-host
# and fails with either.  At nice 10 beside the first boot, a hybrid test
# of threads once hung past its limit; make sparse builds in a copy of its
# own, not where the VM loads the modules from.
CHECK_HOST_LOG = $(B)/check-host.log
CHECK_OTHERS_LOG = $(B)/check-others.log
CHECK_BG_SCHED := nice -n 19
check: deps
	$(MAKE) $(BUILD_JOBS) all fault-module
	@echo "check: the other kernels' modules, lint and unit tests at nice 19 beside the VM (logs: $(CHECK_OTHERS_LOG), $(CHECK_HOST_LOG))"
	@$(CHECK_BG_SCHED) $(MAKE) $(BUILD_JOBS) module-others MODULE_NOFAULT="$(CHECK_RT)" \
		>$(CHECK_OTHERS_LOG) 2>&1 & others=$$!; \
	$(CHECK_BG_SCHED) $(MAKE) $(BUILD_JOBS) check-host >$(CHECK_HOST_LOG) 2>&1 & host=$$!; \
	trap 'kill $$others $$host 2>/dev/null' INT TERM HUP; \
	vm=0; $(MAKE) vmtest-first || vm=$$?; \
	mods=0; wait $$others || mods=$$?; \
	cat $(CHECK_OTHERS_LOG); \
	if [ $$mods != 0 ]; then echo "check: the other kernels' modules failed to build (above)" >&2; \
	elif [ $$vm = 0 ]; then $(MAKE) vmtest-second || vm=$$?; fi; \
	ok=0; wait $$host || ok=$$?; \
	cat $(CHECK_HOST_LOG); \
	if [ $$ok != 0 ]; then echo "check: lint or unit tests failed (above)" >&2; fi; \
	if [ $$vm != 0 ]; then tools/check-tally --failures $(VMTEST_TALLY); \
		tools/check-tally --summary $(VMTEST_TALLY); fi; \
	[ $$vm = 0 ] && [ $$mods = 0 ] && [ $$ok = 0 ]

.PHONY: check-host module-others
check-host: lint unit

# The example of seed 004 (MPI standard Example 11.3) through mpiexec, once
# the library builds; before that, the ioctl-level demo.
RUN_EXAMPLE ?= accumulate_map
RUN_ARGS ?= -n 4

run: deps
	$(MAKE) $(BUILD_JOBS) all
	@if [ -x $(EXDIR)/$(RUN_EXAMPLE) ] && [ -x $(B)/bin/mpiexec ]; then \
		echo "$(VM) -- $(B)/bin/mpiexec $(RUN_ARGS) $(EXDIR)/$(RUN_EXAMPLE)"; \
		$(VM) -- $(B)/bin/mpiexec $(RUN_ARGS) $(EXDIR)/$(RUN_EXAMPLE); \
	elif [ -x $(B)/bin/mpirma-demo ]; then \
		echo "run: no MPI library yet, running the ioctl-level demo"; \
		echo "$(VM) -- $(B)/bin/mpirma-demo $(DEMO_ARGS)"; \
		$(VM) -- $(B)/bin/mpirma-demo $(DEMO_ARGS); \
	else \
		echo "run: neither $(EXDIR)/$(RUN_EXAMPLE) nor $(B)/bin/mpirma-demo is built" >&2; \
		exit 1; \
	fi

# ------------------------------------------------------------------ module

$(B):
	@mkdir -p $@

define need_kdir
	@if [ -z "$(KDIR)" ] || [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "No kernel build tree (KDIR='$(KDIR)'): run make deps, or pass KDIR=" >&2; \
		exit 1; \
	fi
endef

# Copy the module's sources to $(1) (cp -p: kbuild still rebuilds only what
# changed) and run kbuild there against $(2) with the arguments $(3),
# logging to $(4).  kbuild puts an external module's objects beside its
# sources: every build but the default one in kmod/ works on such a copy.
define kbuild_copy
	@mkdir -p $(1)/kmod $(1)/common $(1)/include $(dir $(4))
	@cp -p Kbuild $(1)/
	@cp -p kmod/Kbuild $(filter kmod/%,$(KSOURCES)) $(1)/kmod/
	@cp -p $(filter common/%,$(KSOURCES)) $(1)/common/
	@cp -p include/mpirma_uapi.h $(1)/include/
	+$(MAKE) -C $(2) M=$(CURDIR)/$(1) $(3) modules 2>&1 | tee $(4)
endef

# A build log with a compiler or modpost warning fails the build.
define no_warnings
	@if grep -E 'warning:|WARNING:' $(1) >/dev/null; then \
		echo "$(1): the module build printed warnings (see above)" >&2; exit 1; fi
endef

KLOG := $(if $(filter .,$(KOBJ)),$(B)/module.log,$(KOBJ).log)
KWERROR_ARG = $(if $(filter 1,$(KWERROR)),KCFLAGS=-Werror)

# kbuild decides what to rebuild.  Compiler warnings are errors
# (KWERROR); modpost warnings are caught in the log.
module:
	$(need_kdir)
	@echo "  KDIR    $(KDIR)"
ifeq ($(KOBJ),.)
	@mkdir -p $(KSTAGE)
	$(MAKE) $(KBUILD_ARGS) modules 2>&1 | tee $(KLOG)
else
	$(call kbuild_copy,$(KOBJ),$(KDIR),$(KWERROR_ARG),$(KLOG))
endif
	$(call no_warnings,$(KLOG))
	@install -D -m 644 $(KOBJ)/kmod/mpirma.ko $(KSTAGE)/mpirma.ko

module-clean:
	$(need_kdir)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KOBJ) clean

# The module and its fault-injecting build for every installed kernel
# (tools/mpirma-kernels --builds): KDIR's in kmod/ and build/fault/ as
# always, every other one in its copy under build/kmod/, staged in
# build/modules/<release>/.
.PHONY: module-all
module-all: module fault-module module-others

# The module and its fault build for every other installed kernel; none
# of the fault build for the kernels in MODULE_NOFAULT (make check: its RT
# boot runs no fault test).
MODULE_NOFAULT ?=
module-others:
	@nofault=; for s in $(MODULE_NOFAULT); do \
		nofault="$$nofault $$(tools/mpirma-kernels --resolve $$s)"; done; \
	for r in $$(tools/mpirma-kernels --builds); do \
		[ "$$r" != "$(KREL)" ] || continue; \
		f=fault-module; \
		case " $$nofault " in *" $$r "*) f= ;; esac; \
		echo "  MODULE  $$r"; \
		$(MAKE) module $$f KVER=$$r || exit 1; \
	done

# ------------------------------------------------------------------ fault module

# The same module built with test-only fault injection (kmod/fault.h), for
# the fault selftests, in a copy of the sources (kbuild_copy).  Staged as
# $(FAULT_KO), never installed.
FAULT_DIR := $(if $(filter .,$(KOBJ)),$(B)/fault,$(KOBJ)-fault)
FAULT_KO := $(KSTAGE)/fault/mpirma.ko

.PHONY: fault-module
fault-module:
	$(need_kdir)
	$(call kbuild_copy,$(FAULT_DIR),$(KDIR),$(KWERROR_ARG) CONFIG_MPIRMA_FAULT_INJECT=y,$(FAULT_DIR).log)
	$(call no_warnings,$(FAULT_DIR).log)
	@install -D -m 644 $(FAULT_DIR)/kmod/mpirma.ko $(FAULT_KO)

# ------------------------------------------------------------------ ksrc

# Headers and scripts from Debian's linux-source-6.1, extracted once
# (reading the 138 MB tarball takes ~15 s) into build/, never into git.
ksrc: $(KSRC_STAMP)

$(KSRC_STAMP):
	@test -f $(KSRC_TAR) || { echo "$(KSRC_TAR) missing: run make deps" >&2; exit 1; }
	@echo "  EXTRACT $(KSRC_TAR)"
	@rm -rf $(B)/ksrc && mkdir -p $(B)/ksrc
	tar xJf $(KSRC_TAR) -C $(B)/ksrc $(addprefix linux-source-6.1/,$(KSRC_MEMBERS))
	@touch $@

# ------------------------------------------------------------------ user space

# Object files: $(OBJ)/<src>.o (plain), $(OBJ)/pic/ (library),
# $(OBJ)/asan/ (sanitizers).
# -fno-semantic-interposition: the library's calls to its own functions
# bind (and inline) at build time, not through the PLT; the small-operation
# path is a chain of such calls.
# -falign-loops=128: a loop of up to 128 bytes then never crosses a 4 KiB
# page.  Under QEMU's TCG one that does cannot chain its translation blocks
# and ran the stepped accumulate 2-3x slower, so benchmark figures swung
# with unrelated changes that moved the code by 32 bytes; on hardware it
# costs only padding.
LIB_LOOP_CFLAGS := -falign-loops=128
# Link-time optimization: a message or an RMA call passes through a chain
# of small functions in several files (the entry, its checks, the
# transport or the direct path); inlined across them, an 8-byte ping-pong
# took 1.03-1.09 us in the VM against 1.35-1.39 (QEMU's TCG pays for every
# return).  The objects carry only the compiler's intermediate code (fat
# ones, with machine code besides, took twice as long to compile): the
# links optimize it (LIB_SO, LIB_PRELINK).
LIB_LTO_CFLAGS := -flto=auto
LIB_PIC_CFLAGS = $(LIB_LOOP_CFLAGS) $(LIB_LTO_CFLAGS)
# Hidden but for what include/mpi.h and include/mpirma.h mark MPIRMA_API:
# the link-time optimization makes a relocatable object (LIB_PRELINK),
# which no version script reaches, and would read every other global
# through the GOT, an instruction more every time.
$(OBJ)/pic/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LIB_INC) $(KUSER_CFLAGS) -fPIC -fvisibility=hidden \
		-fno-semantic-interposition $(LIB_PIC_CFLAGS) -c -o $@ $<

# The library runs the reduction engine's loops over whole runs of elements
# (bulk accumulates): two more builds of it (_vec: SSE2, _avx2: -mavx2) let
# the compiler vectorize them, with an epilogue for the odd elements, which
# gcc's -O2 cost model never allows.  Element-wise arithmetic, so the
# results stay bit for bit the kernel's; the library measures which build
# is fastest per type (lib/base/reduce_pick.c): on hardware a vectorized
# one, 3-20x; under QEMU's TCG, which runs SSE through helpers, often the
# scalar one.  Unrolled: the AVX2 sum of 256 ints took 274 instructions
# with its loop counters, 191 unrolled (Open MPI's op: 217).  Compiled to
# machine code, outside the link-time optimization: the library reaches them
# only through the table reduce_pick.c fills, so nothing is inlined across,
# and re-optimizing their unrolled loops in each of the two links took 22 of
# a link's 32 s.
LIB_VECT_CFLAGS := -ftree-loop-vectorize -fvect-cost-model=dynamic -funroll-loops
REDUCE_BUILD_vec := -DMPIRMA_REDUCE_VEC
REDUCE_BUILD_avx2 := -DMPIRMA_REDUCE_AVX2 -mavx2

# reduce_vec_rules DIR, FLAGS: the rules of both vectorized builds of the
# engine into DIR/common, with the flags of DIR's other objects.
define reduce_vec_rules
$(foreach v,vec avx2,
$(1)/common/%_$(v).o: common/%.c
	@mkdir -p $$(@D)
	$$(CC) $(2) $$(REDUCE_BUILD_$(v)) $$(LIB_VECT_CFLAGS) -c -o $$@ $$<
)
endef
$(eval $(call reduce_vec_rules,$(OBJ)/pic,$$(ALL_CFLAGS) $$(KUSER_CFLAGS) -fPIC -fvisibility=hidden $$(LIB_LOOP_CFLAGS)))
$(eval $(call reduce_vec_rules,$(OBJ)/asan,$$(ALL_CFLAGS) $$(ASAN_FLAGS) $$(KUSER_CFLAGS)))
$(eval $(call reduce_vec_rules,$(OBJ)/tsan,$$(ALL_CFLAGS) $$(TSAN_FLAGS) $$(KUSER_CFLAGS) -fPIC -fvisibility=hidden))
$(OBJ)/pic/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(KUSER_CFLAGS) -fPIC -fvisibility=hidden \
		$(LIB_PIC_CFLAGS) -c -o $@ $<

$(OBJ)/selftests/%.o: selftests/%.c $(KSRC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ST_CFLAGS) -c -o $@ $<

$(OBJ)/asan/selftests/%.o: selftests/%.c $(KSRC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) $(ST_CFLAGS) -c -o $@ $<

$(OBJ)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(KUSER_CFLAGS) -c -o $@ $<

$(OBJ)/asan/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) $(KUSER_CFLAGS) -c -o $@ $<

$(OBJ)/tests/%.o: tests/%.c $(KSRC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ST_CFLAGS) $(LIB_INC) $(KUSER_CFLAGS) -c -o $@ $<

$(OBJ)/asan/tests/%.o: tests/%.c $(KSRC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) $(ST_CFLAGS) $(LIB_INC) $(KUSER_CFLAGS) -c -o $@ $<

$(OBJ)/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# mpiexec --version
$(OBJ)/tools/mpiexec.o: EXTRA_CFLAGS += -DMPIRMA_VERSION='"$(VERSION)"'
$(OBJ)/tools/mpirma-stat.o $(OBJ)/tools/mpirma-stat/print.o: EXTRA_CFLAGS += -DMPIRMA_VERSION='"$(VERSION)"'
$(OBJ)/tools/mpiexec.o: VERSION

# Library
lib: $(LIB_TARGETS)

# The library's code, optimized across its files in one relocatable object
# (-flinker-output=nolto-rel: machine code), for libmpirma.a and the hybrid
# engine (hybrid.mk).  libmpirma.so is optimized in a link of its own: its
# version script lets the optimizer make every other function local (inline
# one called once, drop its body, change its arguments), and an 8-byte put
# took 0.46 us through the relocatable object against 0.36.
LIB_PRELINK := $(OBJ)/pic/libmpirma.o
$(LIB_PRELINK): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LIB_LTO_CFLAGS) -flinker-output=nolto-rel -r \
		-nostdlib -o $@.tmp $(LIB_OBJS)
	mv -f $@.tmp $@

$(LIB_A): $(LIB_PRELINK)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# Linked aside and renamed: programs running in a VM over the same tree
# (the host's files are shared) never load a half-written library.
$(LIB_SO): $(LIB_OBJS) $(LIB_MAP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LIB_LTO_CFLAGS) -shared -o $@.tmp $(LIB_OBJS) \
		-Wl,-soname,libmpirma.so.$(SOVERSION) \
		-Wl,-z,defs $(if $(LIB_MAP),-Wl$(comma)--version-script=$(LIB_MAP)) \
		$(ALL_LDFLAGS) -lnuma -lpthread
	mv -f $@.tmp $@

$(B)/lib/libmpirma.so.$(SOVERSION) $(B)/lib/libmpirma.so: $(LIB_SO)
	ln -sf $(notdir $<) $@

# Tools: one binary per tools/*.c
tools: $(TOOL_BINS)

# Programs are linked aside and renamed (as the library): a test running
# in a VM over this tree never executes a half-written file.
$(B)/bin/%: $(OBJ)/tools/%.o $(LIB_TARGETS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@.tmp $(filter %.o,$^) $(ALL_LDFLAGS) $(LINK_LIB_BIN) -lpthread -lnuma
	mv -f $@.tmp $@

# A tool too large for one file keeps its other parts in tools/NAME/,
# which its link takes.
TOOL_PART_DIRS := $(patsubst tools/%/,%,$(sort $(dir $(wildcard tools/*/*.c))))
$(foreach t,$(TOOL_PART_DIRS),$(eval $(B)/bin/$(t): \
	$(patsubst tools/%.c,$(OBJ)/tools/%.o,$(wildcard tools/$(t)/*.c))))

# Selftests: one binary per selftests/*.c, each with selftests/lib/*.c
selftests: $(ST_BINS) $(if $(wildcard selftests/run),$(STDIR)/run)

$(STDIR)/%: $(OBJ)/selftests/%.o $(ST_LIB_OBJS) $(LIB_TARGETS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@.tmp $(filter %.o,$^) $(ALL_LDFLAGS) $(LINK_LIB_ST) $(ST_LDLIBS)
	mv -f $@.tmp $@

# A test program too large for one file keeps its other parts in
# selftests/NAME/ (selftests/lib/ is every program's), which its link takes.
ST_PART_DIRS := $(filter-out lib,$(patsubst selftests/%/,%,$(sort $(dir $(wildcard selftests/*/*.c)))))
$(foreach t,$(ST_PART_DIRS),$(eval $(STDIR)/$(t): \
	$(patsubst selftests/%.c,$(OBJ)/selftests/%.o,$(wildcard selftests/$(t)/*.c))))

$(STDIR)/run: selftests/run
	@mkdir -p $(@D)
	install -m 755 $< $@

# The launcher's other names, the compiler wrapper (its version filled in;
# its directories stay relative to itself in the staged tree).
.PHONY: mpi-tools examples mpitests
mpi-tools: $(LAUNCHER_LINKS) $(MPICC)

$(LAUNCHER_LINKS): | $(B)/bin/mpiexec
	ln -sf mpiexec $@

$(B)/bin/mpicc: tools/mpicc VERSION
	@mkdir -p $(@D)
	sed 's|^version=$$|version=$(VERSION)|' $< >$@.tmp
	chmod 755 $@.tmp && mv $@.tmp $@

# Examples and MPI-level tests: built by the staged mpicc, so every build
# also checks that mpicc works.  MPICC_CC keeps the project's compiler.
examples: $(EX_BINS)

$(EXDIR)/%: examples/%.c $(MPICC) $(HEADERS) $(LIB_TARGETS)
	@mkdir -p $(@D)
	MPICC_CC="$(CC)" $(MPICC) $(MPICC_FLAGS) -o $@.tmp $< \
		'-Wl,-rpath,$$ORIGIN/../lib' $(ALL_LDFLAGS) -lm -lpthread
	mv -f $@.tmp $@

mpitests: $(MT_BINS) $(MT_STAGED) $(CHECK_SCRIPT) $(FAULTS_SCRIPT) $(MT_TSAN)

# MPI_THREAD_MULTIPLE under ThreadSanitizer: the library and the threads
# test built with -fsanitize=thread, in the list as threads-tsan (a race
# report makes it exit 66).  Not installed.

$(OBJ)/tsan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TSAN_FLAGS) $(LIB_INC) $(KUSER_CFLAGS) -fPIC -c -o $@ $<

$(OBJ)/tsan/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TSAN_FLAGS) $(KUSER_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(LIB_TSAN): $(LIB_TSAN_OBJS) $(LIB_MAP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -shared -o $@.tmp $(LIB_TSAN_OBJS) \
		-Wl,-soname,libmpirma.so.$(SOVERSION) \
		$(if $(LIB_MAP),-Wl$(comma)--version-script=$(LIB_MAP)) \
		$(ALL_LDFLAGS) -lnuma -lpthread
	mv -f $@.tmp $@

$(MT_TSAN): mpitests/threads.c $(MT_ARCHIVE) $(MT_HDRS) $(LIB_TSAN) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TSAN_FLAGS) -Impitests/lib -Iselftests/lib -o $@.tmp $< \
		$(MT_ARCHIVE) $(LIB_TSAN) '-Wl,-rpath,$$ORIGIN/../../../lib/tsan' \
		$(ALL_LDFLAGS) -lm -lpthread
	mv -f $@.tmp $@

# The tests' helpers, and the selftests' independent reference of the
# reduction ops (the op x type tests compare with it).
$(OBJ)/mpitests/lib/%.o: mpitests/lib/%.c $(MPICC) $(HEADERS)
	@mkdir -p $(@D)
	MPICC_CC="$(CC)" $(MPICC) $(MPICC_FLAGS) -MMD -MP -Iselftests/lib -c -o $@ $<

$(MT_ARCHIVE): $(MT_LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

# A test's parts beyond mpitests/NAME.c, if any, are in mpitests/NAME/.
$(MTDIR)/nbc: $(wildcard mpitests/nbc/*.[ch])
$(MTDIR)/env: $(wildcard mpitests/env/*.[ch])
$(MTDIR)/span: $(wildcard mpitests/span/*.[ch])
$(MTDIR)/msgq: $(wildcard mpitests/msgq/*.[ch])

# An MPI test's compile, and what its link ends with.
MT_CC = MPICC_CC="$(CC)" $(MPICC) $(MPICC_FLAGS) -Impitests/lib -Iselftests/lib
MT_LIBS = $(MT_ARCHIVE) '-Wl,-rpath,$$ORIGIN/../../../lib' $(ALL_LDFLAGS) -lm

$(MTDIR)/%: mpitests/%.c $(MT_ARCHIVE) $(MT_HDRS) $(MPICC) $(HEADERS) $(LIB_TARGETS)
	@mkdir -p $(@D)
	$(MT_CC) $(if $(wildcard mpitests/$*/*.c),-Impitests/$* $(wildcard mpitests/$*/*.c)) \
		-o $@.tmp $< $(MT_LIBS)
	mv -f $@.tmp $@

# The same tests in one program, for list entries NAME+NAME+... (every
# launch of a job costs 0.3-0.5 s in the VM): mpitests/lib/suite.c calls
# each member's main, renamed mtest_main_NAME.  Members are tests that
# take no arguments; a member's parts (mpitests/NAME/*.c, no main, their
# symbols named after the test) are linked in beside it.
MT_SUITE := comm topo_graph persist grequest mprobe isendrecv intercomm \
	attr datatype p2p msgq coll win sync errors ops concurrency span \
	wincomm largecount threads
MT_SUITE_OBJ := $(OBJ)/mpitests-suite
MT_PART_SRCS := $(foreach t,$(MT_SUITE),$(wildcard mpitests/$(t)/*.c))
MT_PART_HDRS := $(foreach t,$(MT_SUITE),$(wildcard mpitests/$(t)/*.h))
MT_SUITE_OBJS := $(MT_SUITE:%=$(MT_SUITE_OBJ)/%.o) \
		 $(MT_PART_SRCS:mpitests/%.c=$(MT_SUITE_OBJ)/parts/%.o)

$(MT_SUITE_OBJ)/%.o: mpitests/%.c $(MT_HDRS) $(MT_PART_HDRS) $(MPICC) $(HEADERS)
	@mkdir -p $(@D)
	$(MT_CC) -Dmain=mtest_main_$* -c -o $@ $<

$(MT_SUITE_OBJ)/parts/%.o: mpitests/%.c $(MT_HDRS) $(MT_PART_HDRS) $(MPICC) $(HEADERS)
	@mkdir -p $(@D)
	$(MT_CC) -c -o $@ $<

$(MTDIR)/suite: mpitests/lib/suite.c $(MT_SUITE_OBJS) $(MT_ARCHIVE) \
		$(MT_HDRS) $(MPICC) $(HEADERS) $(LIB_TARGETS) Makefile
	@mkdir -p $(@D)
	$(MT_CC) '-DMTEST_SUITE_TESTS=$(foreach t,$(MT_SUITE),X($(t)))' -o $@.tmp \
		$< $(MT_SUITE_OBJS) $(MT_LIBS) -lpthread
	mv -f $@.tmp $@

$(MTDIR)/run: mpitests/run
	@mkdir -p $(@D)
	install -m 755 $< $@

$(MTDIR)/list: mpitests/list
	@mkdir -p $(@D)
	install -m 644 $< $@

$(B)/libexec/mpirma/check: tools/vm-check
	@mkdir -p $(@D)
	install -m 755 $< $@

$(FAULTS_SCRIPT): tools/vm-faults
	@mkdir -p $(@D)
	install -m 755 $< $@

# Unit tests (host, no VM): plain and with ASan/UBSan and TSan.  make all
# builds the plain ones; the sanitizer builds (a third of a fresh make all
# on 2 cores) wait for make unit, which make check runs beside the short
# boots.
.PHONY: unit-plain
unit-plain: $(UT_BINS)
unit-build: $(UT_BINS) $(UT_ASAN_BINS) $(UT_TSAN_BINS)

$(UT_ARCHIVE): $(UT_ARCHIVE_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(UT_ASAN_ARCHIVE): $(UT_ASAN_ARCHIVE_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/tests/%-asan: $(OBJ)/asan/tests/%.o $(UT_ASAN_ARCHIVE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(ALL_LDFLAGS) $(ST_LDLIBS) -lm

$(OBJ)/tsan/tests/%.o: tests/%.c $(KSRC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TSAN_FLAGS) $(ST_CFLAGS) $(LIB_INC) $(KUSER_CFLAGS) -c -o $@ $<

$(B)/tests/%-tsan: $(OBJ)/tsan/tests/%.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -o $@ $^ $(ALL_LDFLAGS) -lpthread

$(B)/tests/%: $(OBJ)/tests/%.o $(UT_ARCHIVE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(ST_LDLIBS) -lm

# Headers, man pages, the VM runner
$(B)/include/%.h: include/%.h
	@mkdir -p $(@D)
	install -m 644 $< $@

man: $(MAN_PAGES)

define man_rule
$(B)/share/man/man$(subst .,,$(suffix $(1)))/$(notdir $(1)): $(1)
	@mkdir -p $$(@D)
	install -m 644 $$< $$@
endef
$(foreach m,$(MAN_SRCS),$(eval $(call man_rule,$(m))))

$(B)/bin/mpirma-vm $(B)/bin/mpirma-kernels: $(B)/bin/%: tools/%
	@mkdir -p $(@D)
	install -m 755 $< $@

$(VMDIR)/%: tools/vm/%
	@mkdir -p $(@D)
	install -m 755 $< $@

# ------------------------------------------------------------------ hybrid

# (absent from the module-only tree DKMS builds in, /usr/src/mpirma-VERSION)
include $(wildcard hybrid/hybrid.mk)

# ------------------------------------------------------------------ tests

# Every unit test, plain then sanitized; a summary line at the end.  Each
# takes at most 3 s on a shared 2-core machine; a hang (a lost wake-up in
# a protocol under test) fails after UNIT_TIMEOUT seconds.
UNIT_TIMEOUT ?= 120
unit: unit-build
	@pass=0; fail=0; failed=; \
	for t in $(UT_BINS) $(UT_ASAN_BINS) $(UT_TSAN_BINS); do \
		echo "== $$t"; \
		if timeout -k 10 $(UNIT_TIMEOUT) ./$$t; then pass=$$((pass + 1)); \
		else echo "FAILED: $$t (exit $$?)"; fail=$$((fail + 1)); failed="$$failed $$t"; fi; \
	done; \
	[ -z "$$failed" ] || echo "failed:$$failed"; \
	echo "unit: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]

# The VM suite (libexec/mpirma/check: selftests, MPI tests, hybrid, faults,
# benchmark smoke) on the default kernel in one boot; then the
# kernel-facing suites (CHECK_SECOND_SUITES: every selftest, fault
# injection and reloads) on CHECK_SECOND, in one more boot at 4 NUMA nodes
# (without CHECK_SECOND, VM_NUMA4_TESTS on the default kernel at 4 nodes).
# make check-KERNEL runs VM_NUMA4_TESTS at 4 nodes and the RMA MPI tests
# with map_user=0 in short boots of its own (MPIRMA_DIRECT=0 runs the same
# kernel path in the first).  The rest of the suite on that kernel is
# make check-6.12; the whole suite on the RT kernel is make check-rt
# (README.md, "Kernels").
# tools/check-tally adds up each boot's "check: N passed, M failed" and
# ends with one line per kernel and the total over all.
CHECK_SECOND ?= 6.12
CHECK_SECOND_SUITES ?= selftests,faults
# ... but ops (the arithmetic and its FPU sections), which the RT boot runs
# on the same kernel version.  The stress selftest runs 20 s on its own;
# make check gives it 8 s, and 4 s on the second kernel (make check's
# budget is 15 minutes; make check-6.12 and check-rt run it whole).
CHECK_SECOND_SKIP ?= ops
CHECK_STRESS ?= -e MPIRMA_STRESS_SECONDS=8
CHECK_SECOND_STRESS ?= -e MPIRMA_STRESS_SECONDS=4
# And a short boot of the RT kernel with the selftests of the paths RT
# changes: the strategies' raw locks around the FPU, contention on them,
# and the synchronization calls' sleeping locks (make check-rt: all of it).
CHECK_RT ?= rt
CHECK_RT_TESTS ?= ops contention sync
# One tally per target and kernel: runs of check-rt and check in one tree
# at once must not add up each other's boots.
CHECK_TALLY = $(B)/check-tally.$@$(if $(KVER),-$(KVER))
TALLY = tools/check-tally $(CHECK_TALLY)
# The release of a kernel spec (6.12 -> 6.12.117+deb12-amd64), for the
# tally of a boot that died before the guest said.
kernel_release = $(shell tools/mpirma-kernels --resolve $(1) 2>/dev/null || echo $(1))

define need_check_script
	@test -x $(CHECK_SCRIPT) || { \
		echo "$@: $(CHECK_SCRIPT) missing (tools/vm-check is staged by make all)" >&2; \
		exit 1; }
endef

# vmtest is vmtest-first (the full boot of the default kernel) and then
# vmtest-second (the short boots of the other kernels), adding to one
# tally.
.PHONY: vmtest vmtest-first vmtest-second vmtest-kernel check-kernel
.PHONY: check-6.1 check-6.12 check-rt
VMTEST_TALLY := $(B)/check-tally.vmtest
vmtest: all fault-module module-all
	$(MAKE) vmtest-first
	$(MAKE) vmtest-second

vmtest-first: CHECK_TALLY = $(VMTEST_TALLY)
vmtest-first:
	$(need_check_script)
	@rm -f $(CHECK_TALLY) $(CHECK_TALLY).failures
	$(TALLY) $(KREL) -- $(VM) $(VM_CHECK_ARGS) $(CHECK_STRESS) -- $(CHECK_SCRIPT)

vmtest-second: CHECK_TALLY = $(VMTEST_TALLY)
vmtest-second:
	$(if $(CHECK_SECOND),,$(TALLY) $(KREL) -- $(VM) $(VM_NUMA4_ARGS) -- \
		$(CHECK_SCRIPT) $(VM_NUMA4_TESTS))
	$(if $(CHECK_SECOND),$(TALLY) $(call kernel_release,$(CHECK_SECOND)) -- \
		$(VM) --kernel $(CHECK_SECOND) $(VM_SECOND_ARGS) $(CHECK_SECOND_STRESS) -- \
		$(CHECK_SCRIPT) -s $(CHECK_SECOND_SUITES) \
		$(if $(CHECK_SECOND_SKIP),-x $(CHECK_SECOND_SKIP)))
	$(if $(CHECK_RT),$(TALLY) $(call kernel_release,$(CHECK_RT)) -- \
		$(VM) --kernel $(CHECK_RT) $(VM_CHECK_ARGS) -- $(CHECK_SCRIPT) $(CHECK_RT_TESTS))
	@tools/check-tally --summary $(CHECK_TALLY)

# The whole VM suite (both boots of vmtest) on KVER (6.1, 6.12, 6.12-rt,
# rt, a release), with the module and its fault build for it; one summary
# line for the kernel, then the total.  check-6.1, check-6.12 and check-rt
# name the kernels of README.md's table.
check-kernel: deps
	@test -n "$(KVER)" || { echo "check-kernel: name the kernel: KVER=6.12" >&2; exit 1; }
	$(MAKE) all fault-module KVER=$(KVER)
	$(MAKE) vmtest-kernel KVER=$(KVER)

vmtest-kernel:
	$(need_check_script)
	@rm -f $(CHECK_TALLY) $(CHECK_TALLY).failures
	$(TALLY) $(KREL) -- $(VM) --kernel $(KREL) $(VM_CHECK_ARGS) -- $(CHECK_SCRIPT)
	$(TALLY) $(KREL) -- $(VM) --kernel $(KREL) $(VM_NUMA4_ARGS) -- \
		$(CHECK_SCRIPT) $(VM_NUMA4_TESTS)
	$(TALLY) $(KREL) -- $(VM) --kernel $(KREL) $(VM_NOMAP_ARGS) -- \
		$(CHECK_SCRIPT) -s mpitests -m $(VM_NOMAP_MPITESTS)
	@tools/check-tally --summary $(CHECK_TALLY)

check-6.1 check-6.12:
	$(MAKE) check-kernel KVER=$(@:check-%=%)

check-rt:
	$(MAKE) check-kernel KVER=rt

# ------------------------------------------------------------------ faults

# Fault injection, kill -9 at random points, unload/reload (tools/vm-faults
# and the selftests faultinject, killpoints, unload).  make check runs the
# quick version inside vmtest; faults-long runs 100 reloads and 25 random
# kills per situation and strategy (MPIRMA_KILL_SEED=N repeats a run).
FAULTS_VM_ARGS ?= --cpus 2 --numa 2 --timeout 3600
FAULTS_LONG_RELOADS ?= 100
FAULTS_LONG_KILL_ROUNDS ?= 25

.PHONY: faults faults-long
faults: all fault-module
	$(VM) $(FAULTS_VM_ARGS) -- $(FAULTS_SCRIPT)
	$(VM) $(FAULTS_VM_ARGS) -- $(STDIR)/run killpoints unload

faults-long: all fault-module
	$(VM) $(FAULTS_VM_ARGS) -- $(FAULTS_SCRIPT) -r $(FAULTS_LONG_RELOADS)
	$(VM) $(FAULTS_VM_ARGS) -e MPIRMA_KILL_ROUNDS=$(FAULTS_LONG_KILL_ROUNDS) \
		$(if $(MPIRMA_KILL_SEED),-e MPIRMA_KILL_SEED=$(MPIRMA_KILL_SEED)) \
		-- $(STDIR)/run killpoints

# ------------------------------------------------------------------ bench

# The atomicity strategies side by side (tools/mpirma-bench.c): one VM run of
# about two minutes on 2 emulated CPUs and 2 nodes (2 s per cell: TCG is
# noisy), with the table on the terminal and in $(BENCH_DIR)/strategies.txt,
# the CSV and the PNG beside it.  Not part of check: it measures, it does
# not test.
BENCH_DIR := $(B)/bench
BENCH_VM_ARGS ?= --cpus 2 --numa 2 --timeout 1200
BENCH_ARGS ?= --time 2

.PHONY: bench-strategies
bench-strategies: module $(B)/bin/mpirma-bench
	@mkdir -p $(BENCH_DIR)
	$(VM) $(BENCH_VM_ARGS) -- $(B)/bin/mpirma-bench $(BENCH_ARGS) \
		--csv $(BENCH_DIR)/strategies.csv --plot $(BENCH_DIR)/strategies.png \
		| tee $(BENCH_DIR)/strategies.txt

# What the machine charges for the pieces of a fast path (bench/unit_costs.c):
# a call and return, a branch, a load, a fence, a copy, a short sleep, on
# the host's CPU and in the VM's emulated one, side by side with the ratio
# ($(BENCH_DIR)/costs.txt; a few seconds each).  Every other figure of make
# bench comes from the VM: this says how far its ratios carry to hardware.
# make check runs it once, briefly.
UNIT_COSTS := $(BENCH_DIR)/unit_costs
userspace: $(UNIT_COSTS)

$(UNIT_COSTS): bench/unit_costs.c lib/base/copy.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lpthread

.PHONY: bench-costs
bench-costs: module $(UNIT_COSTS)
	$(UNIT_COSTS) >$(BENCH_DIR)/costs-host.txt
	$(VM) --cpus 2 --timeout 600 -- $(UNIT_COSTS) \
		--against $(BENCH_DIR)/costs-host.txt | tee $(BENCH_DIR)/costs.txt

# ------------------------------------------------------------------ long runs

# The ioctl fuzzer and the stress test at length; make check runs both
# briefly (30000 calls, 20 s).  Both go through selftests/run, so the kernel
# log is scanned and the module's counters checked afterwards.  For a debug
# kernel add e.g. FUZZ_VM_ARGS+='--kernel IMAGE' (and build with its KDIR).
FUZZ_CALLS ?= 1000000
FUZZ_PROCS ?= 2
FUZZ_SEED ?=
FUZZ_VM_ARGS ?= --cpus 2 --numa 2 --timeout 14400
STRESS_SECONDS ?= 600
STRESS_PROCS ?=
STRESS_THREADS ?=
STRESS_VM_ARGS ?= --cpus 2 --numa 2 --timeout $$(($(STRESS_SECONDS) + 900))

.PHONY: fuzz stress
fuzz: all
	$(VM) $(FUZZ_VM_ARGS) -e MPIRMA_FUZZ_CALLS=$(FUZZ_CALLS) \
		-e MPIRMA_FUZZ_PROCS=$(FUZZ_PROCS) \
		$(if $(FUZZ_SEED),-e MPIRMA_FUZZ_SEED=$(FUZZ_SEED)) -- $(STDIR)/run -t 86400 fuzz

stress: all
	$(VM) $(STRESS_VM_ARGS) -e MPIRMA_STRESS_SECONDS=$(STRESS_SECONDS) \
		$(if $(STRESS_PROCS),-e MPIRMA_STRESS_PROCS=$(STRESS_PROCS)) \
		$(if $(STRESS_THREADS),-e MPIRMA_STRESS_THREADS=$(STRESS_THREADS)) \
		-- $(STDIR)/run -t 86400 stress
# ------------------------------------------------------------------ bench vs MPIs

# mpirma against Debian's Open MPI and MPICH through the standard MPI API
# (bench/rma_bench.c, one source, three builds), all in one VM boot
# (bench/run), then one table, $(BENCH_DIR)/results.csv and results.png
# (bench/summary).  The VM has 4 vCPUs for the 4 ranks on a 2-core host:
# the output says that scaling beyond 2 cannot be measured here.  The
# mpirma build is part of all: make check runs it as a smoke test.
RMA_BENCH := $(if $(and $(MPICC),$(LIB_TARGETS)),$(BENCH_DIR)/rma_bench-mpirma)
RMA_BENCH_PEERS := $(BENCH_DIR)/rma_bench-openmpi $(BENCH_DIR)/rma_bench-mpich
BENCH_MPI_VM_ARGS ?= --cpus 4 --numa 2 --timeout 1800
BENCH_RANKS ?= 4
BENCH_MPI_ARGS ?=
SCRIPTS += bench/run bench/summary bench/hybrid-summary

userspace: $(RMA_BENCH)

# rma_bench and msg_bench (bench/%_bench.c): each with mpirma's mpicc and
# with the peers' own wrappers, with the same flags and the same compiler.
BENCH_SRC_DEPS := tools/cli.h bench/bench_mpi.h
# A benchmark too large for one file keeps its other parts in
# bench/NAME_bench/, which every build of it takes.
BENCH_PARTS = $(wildcard bench/$*_bench/*.c)
BENCH_PART_DIRS := $(patsubst bench/%_bench/,%,$(sort $(dir $(wildcard bench/*_bench/*.c))))
$(foreach b,$(BENCH_PART_DIRS),$(foreach i,mpirma openmpi mpich,$(eval \
	$(BENCH_DIR)/$(b)_bench-$(i): $(wildcard bench/$(b)_bench/*.[ch]))))

$(BENCH_DIR)/%_bench-mpirma: bench/%_bench.c $(BENCH_SRC_DEPS) $(MPICC) $(HEADERS) $(LIB_TARGETS)
	@mkdir -p $(@D)
	MPICC_CC="$(CC)" $(MPICC) $(MPICC_FLAGS) -o $@.tmp $< $(BENCH_PARTS) \
		'-Wl,-rpath,$$ORIGIN/../lib' $(ALL_LDFLAGS) -lm -lpthread
	mv -f $@.tmp $@

$(BENCH_DIR)/%_bench-openmpi: bench/%_bench.c $(BENCH_SRC_DEPS)
	@mkdir -p $(@D)
	OMPI_CC="$(CC)" mpicc.openmpi $(MPICC_FLAGS) -o $@.tmp $< $(BENCH_PARTS) $(ALL_LDFLAGS) -lm -lpthread
	mv -f $@.tmp $@

$(BENCH_DIR)/%_bench-mpich: bench/%_bench.c $(BENCH_SRC_DEPS)
	@mkdir -p $(@D)
	MPICH_CC="$(CC)" mpicc.mpich $(MPICC_FLAGS) -o $@.tmp $< $(BENCH_PARTS) $(ALL_LDFLAGS) -lm -lpthread
	mv -f $@.tmp $@

# A benchmark with a boot of its own, bench/NAME_bench.c (the rules above):
# VAR_BENCH, its mpirma build (part of all), VAR_BENCH_PEERS, the hosts'
# builds, and bench-NAME, which builds everything, then runs bench-NAME-run
# (each defined below its call).
define bench_suite
$(1)_BENCH := $$(if $$(and $$(MPICC),$$(LIB_TARGETS)),$$(BENCH_DIR)/$(2)_bench-mpirma)
$(1)_BENCH_PEERS := $$(BENCH_DIR)/$(2)_bench-openmpi $$(BENCH_DIR)/$(2)_bench-mpich
userspace: $$($(1)_BENCH)
.PHONY: bench-$(2) bench-$(2)-run
bench-$(2): bench-deps
	$$(MAKE) all
	$$(MAKE) bench-$(2)-run
endef

# Strided calls (bench/strided_bench.c): a vector named call after call,
# and ARMCI-MPI's subarray made for every call, the same three builds, on
# 2 ranks, mpirma beside both hosts alone and under the layer, in one boot
# of its own (bench/strided-run prints the table), about 4 minutes.
$(eval $(call bench_suite,STRIDED,strided))
BENCH_STRIDED_VM_ARGS ?= --cpus 2 --timeout 2400
BENCH_STRIDED_REPEAT ?=
SCRIPTS += bench/strided-run bench/launch-2ranks.sh

bench-strided-run: module $(STRIDED_BENCH) $(STRIDED_BENCH_PEERS) $(HY_LIBS)
	$(VM) $(BENCH_STRIDED_VM_ARGS) \
		$(if $(BENCH_STRIDED_REPEAT),-e BENCH_STRIDED_REPEAT=$(BENCH_STRIDED_REPEAT)) \
		-- bench/strided-run -o $(BENCH_DIR) | tee $(BENCH_DIR)/strided-results.txt

# Messages, barriers and small collectives (bench/msg_bench.c), the same
# three builds (the rules above), at 2 and 4 ranks, with both hosts alone and under the layer,
# in one boot of its own (bench/msg-run; table and plot: bench/msg-summary).
# Two vCPUs, as many as the host's cores: with four, the guest took 4
# ranks for ranks that fit while the host ran them on 2 cores, and every
# 4-rank row measured the host's scheduler (barriers 1.5-9 ms).
$(eval $(call bench_suite,MSG,msg))
BENCH_MSG_VM_ARGS ?= --cpus 2 --numa 2 --timeout 3600
BENCH_MSG_ARGS ?=
SCRIPTS += bench/msg-run bench/msg-summary

bench-msg-run: module $(MSG_BENCH) $(MSG_BENCH_PEERS) $(HY_LIBS)
	@rm -f $(BENCH_DIR)/msg.csv
	$(VM) $(BENCH_MSG_VM_ARGS) -- bench/msg-run -o $(BENCH_DIR) \
		$(BENCH_MSG_ARGS) | tee $(BENCH_DIR)/msg-run.log
	bench/msg-summary $(BENCH_DIR) | tee $(BENCH_DIR)/msg-results.txt

# The OSU Micro-Benchmarks' one-sided call sequences (bench/osu_bench.c:
# put, get, accumulates, fetch_and_op, compare_and_swap, bandwidth, each
# synchronization, datatype and window flavor, a put while the target
# computes), the same three builds, on 2 ranks and 2 vCPUs, mpirma beside
# both hosts alone and under the layer at 1 and 2 logical nodes, three
# launches of each (one runs every shape) in one boot of its own, about
# 19 minutes with the calls-alone pass (bench/osu-run; table and plot:
# bench/osu-summary).
# BENCH_OSU_ARGS go to osu_bench (e.g. -o acc,fop -w allocate);
# BENCH_OSU_IMPLS chooses the columns, BENCH_OSU_REPEAT the launches of
# each, BENCH_OSU_WARMUP=0 skips the unrecorded first launch of each,
# BENCH_OSU_CALLS=0 the pass that times the calls alone for the layer's
# cost per call.
$(eval $(call bench_suite,OSU,osu))
BENCH_OSU_VM_ARGS ?= --cpus 2 --timeout 3600
BENCH_OSU_ARGS ?=
BENCH_OSU_IMPLS ?=
BENCH_OSU_REPEAT ?=
BENCH_OSU_WARMUP ?=
BENCH_OSU_CALLS ?=
SCRIPTS += bench/osu-run bench/osu-summary bench/test-osu-summary

bench-osu-run: module $(OSU_BENCH) $(OSU_BENCH_PEERS) $(HY_LIBS)
	@rm -f $(BENCH_DIR)/osu.csv
	$(VM) $(BENCH_OSU_VM_ARGS) \
		$(if $(BENCH_OSU_IMPLS),-e 'BENCH_OSU_IMPLS=$(BENCH_OSU_IMPLS)') \
		$(if $(BENCH_OSU_REPEAT),-e BENCH_OSU_REPEAT=$(BENCH_OSU_REPEAT)) \
		$(if $(BENCH_OSU_WARMUP),-e BENCH_OSU_WARMUP=$(BENCH_OSU_WARMUP)) \
		$(if $(BENCH_OSU_CALLS),-e BENCH_OSU_CALLS=$(BENCH_OSU_CALLS)) \
		-- bench/osu-run -o $(BENCH_DIR) $(BENCH_OSU_ARGS) | tee $(BENCH_DIR)/osu-run.log
	bench/osu-summary $(BENCH_DIR) | tee $(BENCH_DIR)/osu-results.txt

# The OSU Micro-Benchmarks' own one-sided tests, with their defaults: OMB
# is not in Debian, so make bench-omb OMB_SRC=DIR builds them from an
# unpacked OMB 7.x release (bench/omb-build) with each MPI's mpicc, runs
# them in one boot for mpirma, both hosts alone and under the layer, each
# launched with its defaults (bench/omb-run; BENCH_OMB_ARGS go to every
# test, e.g. -m 16384, BENCH_OMB_TESTS, BENCH_OMB_IMPLS and
# BENCH_OMB_REPEAT choose), and prints bench/osu-summary's table of them.
BENCH_OMB_DIR := $(BENCH_DIR)/omb
BENCH_OMB_VM_ARGS ?= --cpus 2 --timeout 7200
BENCH_OMB_ARGS ?=
BENCH_OMB_TESTS ?=
BENCH_OMB_IMPLS ?=
BENCH_OMB_REPEAT ?=
SCRIPTS += bench/omb-build bench/omb-run
.PHONY: bench-omb
bench-omb:
	@[ -n "$(OMB_SRC)" ] || { echo "make bench-omb: name an unpacked OMB 7.x source: OMB_SRC=DIR" >&2; exit 2; }
	$(MAKE) bench-deps
	$(MAKE) all
	bench/omb-build $(OMB_SRC) $(BENCH_OMB_DIR)
	$(VM) $(BENCH_OMB_VM_ARGS) \
		$(if $(BENCH_OMB_TESTS),-e 'BENCH_OMB_TESTS=$(BENCH_OMB_TESTS)') \
		$(if $(BENCH_OMB_IMPLS),-e 'BENCH_OMB_IMPLS=$(BENCH_OMB_IMPLS)') \
		$(if $(BENCH_OMB_REPEAT),-e BENCH_OMB_REPEAT=$(BENCH_OMB_REPEAT)) \
		-- bench/omb-run -o $(BENCH_OMB_DIR) $(BENCH_OMB_ARGS) | tee $(BENCH_OMB_DIR)/run.log
	bench/osu-summary $(BENCH_OMB_DIR) | tee $(BENCH_OMB_DIR)/results.txt

.PHONY: bench bench-deps bench-run
bench: bench-deps
	$(MAKE) all
	$(MAKE) bench-costs
	$(MAKE) bench-run
	$(MAKE) bench-msg-run
	$(MAKE) bench-osu-run

bench-deps:
	@tools/mpirma-deps --bench

bench-run: module $(RMA_BENCH) $(RMA_BENCH_PEERS) $(B)/bin/mpirma-bench $(HY_LIBS)
	@rm -f $(BENCH_DIR)/raw.csv $(BENCH_DIR)/floors.csv
	$(VM) $(BENCH_MPI_VM_ARGS) -- bench/run -n $(BENCH_RANKS) -o $(BENCH_DIR) \
		$(BENCH_MPI_ARGS) | tee $(BENCH_DIR)/run.log
	bench/summary $(BENCH_DIR) | tee $(BENCH_DIR)/results.txt
	bench/hybrid-summary $(BENCH_DIR)

# ------------------------------------------------------------------ applications

# NWChem from Debian under both hosts with the layer (apps/run), each in one
# VM boot: check-apps the longer set (water DFT and CCSD, 2 and 4 ranks, 1
# and 2 logical nodes, energies against apps/nwchem/reference), bench-apps
# the time to solution of DFT and CCSD on each host alone and with the
# layer, APPS_REPS times each, GA ops/s (apps/ga_bench), and the coarray
# and Python statements' op/s (apps/caf_bench, apps/py_bench;
# apps/bench-summary's tables in build/apps/bench.txt).  make check runs
# only the small SCF case and the coarray and Python tests (README.md,
# "Running Global Arrays and NWChem on mpirma", "Fortran coarrays and
# Python on mpirma").
APPS_DIR := $(B)/apps
APPS_VM_ARGS ?= --cpus 2 --numa 2 --timeout 7200
# apps/run's settings (APPS_WHAT=caf, APPS_REPS=5 ...) reach it in the VM.
APPS_ENV = $(foreach v,APPS_WHAT APPS_HOSTS APPS_REPS APPS_TIMEOUT APPS_PYTHON,$(if \
	$($(v)),-e '$(v)=$($(v))'))
SCRIPTS += apps/bench-summary

.PHONY: check-apps bench-apps
check-apps: deps
	$(MAKE) all
	$(VM) $(APPS_VM_ARGS) $(APPS_ENV) -- $(APPS_STAGE)/run --long

bench-apps: deps
	$(MAKE) all
	@mkdir -p $(APPS_DIR)
	@rm -f $(APPS_DIR)/bench.csv
	$(VM) $(APPS_VM_ARGS) $(APPS_ENV) -- $(APPS_STAGE)/run --bench $(APPS_DIR)/bench.csv | \
		tee $(APPS_DIR)/bench.log
	apps/bench-summary $(APPS_DIR)/bench.csv | tee $(APPS_DIR)/bench.txt

# ------------------------------------------------------------------ two VMs

# One Open MPI job across two VMs on a private link (tools/vm-2node): its
# mpirun starts the other VM's daemon through Debian's dropbear, then the
# job runs, then a rank kills itself with SIGKILL; each VM must end with
# its counters at 0 and rmmod working.  Not part of check: two boots side
# by side on the 2-core machine (README.md, "Two VMs").
TWONODE_DIR := $(B)/2node
TWONODE_PROGS := $(TWONODE_DIR)/xnode-openmpi $(TWONODE_DIR)/xnode-mpich
TWONODE_ARGS ?=
SCRIPTS += tools/vm-2node

# The job's program, built with each host MPI's own wrapper.
$(TWONODE_DIR)/xnode-openmpi: mpitests/xnode.c
	@mkdir -p $(@D)
	OMPI_CC="$(CC)" mpicc.openmpi $(MPICC_FLAGS) -o $@.tmp $< $(ALL_LDFLAGS)
	mv -f $@.tmp $@

$(TWONODE_DIR)/xnode-mpich: mpitests/xnode.c
	@mkdir -p $(@D)
	MPICH_CC="$(CC)" mpicc.mpich $(MPICC_FLAGS) -o $@.tmp $< $(ALL_LDFLAGS)
	mv -f $@.tmp $@

# With TWONODE_ARGS set, that one vm-2node run.  Without, under each host
# MPI with its layer (no other setting): xnode's job and kill cases (the
# agents on their own transport, TCP between the VMs), its job with them
# on the host's messages (MPIRMA_AGENT_TRANSPORT=host), then
# the tests of mpirma's stricter semantics (hybrid/list.2's, members of
# the layer's suite program built with the host's wrapper, some of them
# from several files) as jobs over the two VMs, each case a run of its own.
TWONODE_MPIS ?= openmpi mpich
TWONODE_TESTS ?= ops sync rmaerr wincomm span@span=1

# The suite program (hybrid/hybrid.mk) per host MPI: TWONODE_TESTS are
# its members, NAME or NAME@ARGS.
TWONODE_STAGED = $(foreach m,$(TWONODE_MPIS),$(HY_STAGE)/$(m)/suite)

.PHONY: check-2node
check-2node: deps
	@tools/mpirma-deps --two-vms
	$(MAKE) all $(TWONODE_PROGS) $(TWONODE_STAGED)
ifneq ($(TWONODE_ARGS),)
	tools/vm-2node $(TWONODE_ARGS)
else
	@set -e; for m in $(TWONODE_MPIS); do \
		pre="--mpi $$m --preload $(B)/lib/libmpirma-$$m.so"; \
		echo "== check-2node: $$m + mpirma: xnode"; \
		tools/vm-2node $$pre; \
		echo "== check-2node: $$m + mpirma: xnode, host transport"; \
		tools/vm-2node $$pre --case job -x MPIRMA_AGENT_TRANSPORT=host; \
		for t in $(TWONODE_TESTS); do \
			echo "== check-2node: $$m + mpirma: $$t"; \
			tools/vm-2node $$pre --case job -- \
				$(HY_STAGE)/$$m/suite $$t; \
		done; \
	done; echo "== check-2node: passed"
endif

# MPICH's own test suite (test/mpi of pmodels/mpich: attr coll comm datatype
# errhan group info init pt2pt topo rma), built against this tree and run in
# the VM by MPICH's pass rule (tests/mpich-suite, docs/testing.md).  Not part
# of make check.  MPICH_SUITE_DIRS narrows it; MPICH_SUITE_ARGS goes to run
# (--lock FILE, --redo, --dtp, -t S); results in $(MPICH_SUITE_OUT)/results.
MPICH_SUITE_OUT ?= $(B)/mpich-suite
MPICH_SUITE_DIRS ?=
MPICH_SUITE_ARGS ?=
SCRIPTS += tests/mpich-suite/build

.PHONY: mpich-suite
mpich-suite: all
	@test -n "$(MPICH_SRC)" || \
		{ echo "usage: make mpich-suite MPICH_SRC=<pmodels/mpich checkout>"; exit 2; }
	tests/mpich-suite/build $(MPICH_SRC) $(MPICH_SUITE_OUT)
	tests/mpich-suite/run $(MPICH_SUITE_ARGS) $(MPICH_SUITE_OUT) $(MPICH_SUITE_DIRS)
	@cat $(MPICH_SUITE_OUT)/results/summary.md

# The benchmark across the two VMs (bench/run-2node): each host MPI alone
# and with its layer, one rank per VM, so that the remote targets of the
# layer's issue are really remote; the table is bench/hybrid-summary's.
BENCH_2NODE_DIR := $(B)/bench-2node
BENCH_2NODE_ARGS ?=
BENCH_2NODE_NOTE := two VMs, one rank each: rank 1 on node2, its target rank 0 on node1, \
	over TCP between the VMs (2 nodes: the two VMs)
SCRIPTS += bench/run-2node

.PHONY: bench-2node
bench-2node: deps
	@tools/mpirma-deps --two-vms
	$(MAKE) all $(RMA_BENCH_PEERS)
	bench/run-2node -o $(BENCH_2NODE_DIR) $(BENCH_2NODE_ARGS)
	bench/hybrid-summary $(BENCH_2NODE_DIR) "$(BENCH_2NODE_NOTE)"

# ------------------------------------------------------------------ debug kernel

# A kernel with KASAN, lockdep, UBSAN and KFENCE (tools/debug-kernel.config),
# built once by tools/mpirma-debug-kernel into a cache outside the tree
# ($$MPIRMA_CACHE, default ~/.cache/mpirma/debug-kernel), and mpirma.ko built
# against it in $(DEBUG_DIR): 6.1 builds an external module in its source
# directory, so the module's sources are copied there first and the normal
# build in kmod/ stays untouched.  check-debug runs the VM part of make check
# on that kernel with longer timeouts (KASAN and lockdep under TCG are
# several times slower); CHECK_ARGS="NAME..." runs only those selftests, at
# 2 nodes.  Not part of check (see README.md, "Debug kernel").
# DEBUG_KSRC=6.12 builds it from linux-source-6.12 instead of 6.1, and
# DEBUG_RT=1 (6.12 on) as PREEMPT_RT; each is cached beside the others.
DEBUG_KSRC ?= 6.1
DEBUG_RT ?= 0
DEBUG_KERNEL_ARGS := --source $(DEBUG_KSRC) $(if $(filter 1,$(DEBUG_RT)),--rt)
DEBUG_FLAVOR := $(DEBUG_KSRC)$(if $(filter 1,$(DEBUG_RT)),-rt)
DEBUG_DIR := $(B)/debug$(if $(filter 6.1,$(DEBUG_FLAVOR)),,-$(DEBUG_FLAVOR))
DEBUG_KDIR = $(shell tools/mpirma-debug-kernel $(DEBUG_KERNEL_ARGS) --print-dir)
DEBUG_KO := $(DEBUG_DIR)/modules/mpirma.ko
DEBUG_KBUILD_SRCS := $(sort Kbuild kmod/Kbuild $(KSOURCES) $(wildcard include/*.h))
# Every report, not only the first KASAN one.  pci=noacpi: the firmware's
# PCI interrupt routing method (_PRT), run by the KASAN-instrumented ACPI
# interpreter under TCG, hits ACPI's 30 s loop timeout once per virtio
# device (90 s of boot, then no legacy IRQ); the routing table is enough.
# The checkers' kernel boots several times slower than Debian's (about 5 s):
# it gets 15 minutes to start the job before mpirma-vm stops it as hung.
DEBUG_VM_ENV := MPIRMA_VM_APPEND="kasan_multi_shot pci=noacpi" MPIRMA_VM_BOOT_LIMIT=900
VM_DEBUG_ARGS = --kernel $(DEBUG_KDIR)/arch/x86/boot/bzImage --kmod $(DEBUG_KO)
VM_DEBUG_CHECK_ARGS ?= --cpus 2 --numa 2 --timeout 7200
VM_DEBUG_NUMA4_ARGS ?= --cpus 2 --numa 4 --timeout 3600
CHECK_ARGS ?=

.PHONY: debug-kernel debug-module check-debug
debug-kernel:
	@tools/mpirma-deps --debug-kernel
	tools/mpirma-debug-kernel $(DEBUG_KERNEL_ARGS)

# Compiler warnings are shown, not fatal: KASAN's stack instrumentation
# grows frames beyond what the normal build allows.
debug-module: debug-kernel
	@mkdir -p $(DEBUG_DIR)/src/kmod $(DEBUG_DIR)/src/common $(DEBUG_DIR)/src/include \
		$(DEBUG_DIR)/modules
	@for f in $(DEBUG_KBUILD_SRCS); do cp -p $$f $(DEBUG_DIR)/src/$$f; done
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR)/$(DEBUG_DIR)/src modules 2>&1 | \
		tee $(DEBUG_DIR)/module.log
	@install -m 644 $(DEBUG_DIR)/src/kmod/mpirma.ko $(DEBUG_KO)

check-debug:
	@tools/mpirma-deps --debug-kernel
	$(MAKE) debug-module userspace
	@test -x $(STDIR)/run || { echo "check-debug: $(STDIR)/run missing" >&2; exit 1; }
	$(DEBUG_VM_ENV) $(VM) $(VM_DEBUG_ARGS) $(VM_DEBUG_CHECK_ARGS) \
		--log $(DEBUG_DIR)/numa2.dmesg -- $(CHECK_SCRIPT) $(CHECK_ARGS)
	$(if $(CHECK_ARGS),,$(DEBUG_VM_ENV) $(VM) $(VM_DEBUG_ARGS) $(VM_DEBUG_NUMA4_ARGS) \
		--log $(DEBUG_DIR)/numa4.dmesg -- $(CHECK_SCRIPT) $(VM_NUMA4_TESTS))

# ------------------------------------------------------------------ fortran

# Fortran bindings (fortran/, docs/lib.md "Fortran"): fortran/gen makes
# the C wrappers, mpif.h and the `mpi` module from fortran/bindings.tab,
# after checking that the table agrees with include/mpi.h.  The wrappers and
# libmpirmaf (the module has no code: only constants, interfaces and the
# sentinels' common blocks, which the wrappers define); mpifort (mpif90, mpif77) is mpicc
# under another name.  Tests: fortran/tests/*.f90, staged beside the C MPI
# tests as f_NAME and run by mpitests/run from mpitests/list.
FC := $(shell command -v gfortran 2>/dev/null)
# The generator: the script and the modules beside it that it imports.
FGEN := fortran/gen $(wildcard fortran/*.py)
FOBJ := $(OBJ)/fortran
FORTRAN_HDRS := $(B)/include/mpif.h $(B)/include/mpi.mod $(B)/include/mpi_f08.mod
FLIB_A := $(B)/lib/libmpirmaf.a
FLIB_SO := $(B)/lib/libmpirmaf.so.$(VERSION)
FLIB_TARGETS := $(FLIB_A) $(FLIB_SO) $(B)/lib/libmpirmaf.so.$(SOVERSION) $(B)/lib/libmpirmaf.so
MPIFORT_LINKS := $(B)/bin/mpifort $(B)/bin/mpif90 $(B)/bin/mpif77
# Free form (.f90), and fixed-form FORTRAN 77 with mpif.h (.f).
FT_SRCS := $(wildcard fortran/tests/*.f90)
FT_F77_SRCS := $(wildcard fortran/tests/*.f)
FT_BINS := $(FT_SRCS:fortran/tests/%.f90=$(MTDIR)/f_%) $(FT_F77_SRCS:fortran/tests/%.f=$(MTDIR)/f_%)
# The standard's examples, verbatim, are INCLUDEd by their test programs.
FT_SEEDS := $(wildcard fortran/tests/seeds/*.f90 fortran/tests/lib/*)
FFLAGS ?= -O2 -g
# The standard's examples leave p unused: no warning for that.
FT_FFLAGS = $(FFLAGS) -Wall -Werror -Wno-unused-dummy-argument -ffp-contract=off \
	-Ifortran/tests/seeds -Ifortran/tests/lib

.PHONY: fortran fortran-check install-fortran uninstall-fortran
ifneq ($(and $(FC),$(LIB_TARGETS)),)
userspace: fortran
mpitests: fortran
install: install-fortran
uninstall: uninstall-fortran
endif

fortran: $(FORTRAN_HDRS) $(FLIB_TARGETS) $(MPIFORT_LINKS) $(FT_BINS)

# The table and mpi.h must agree before anything is generated.
$(FOBJ)/check.stamp: $(FGEN) fortran/bindings.tab include/mpi.h
	@mkdir -p $(@D)
	python3 fortran/gen --check --mpi-h include/mpi.h
	@touch $@

fortran-check: $(FOBJ)/check.stamp

$(FOBJ)/fwrap.c: $(FOBJ)/check.stamp
	python3 fortran/gen --c-wrappers >$@.tmp && mv $@.tmp $@

$(FOBJ)/mpi.f90: $(FOBJ)/check.stamp
	python3 fortran/gen --module --mpi-h include/mpi.h >$@.tmp && mv $@.tmp $@

$(FOBJ)/mpi_f08.f90: $(FOBJ)/check.stamp
	python3 fortran/gen --f08-module --mpi-h include/mpi.h >$@.tmp && mv $@.tmp $@

$(B)/include/mpif.h: $(FOBJ)/check.stamp
	@mkdir -p $(@D)
	python3 fortran/gen --mpif-h --mpi-h include/mpi.h >$@.tmp && mv $@.tmp $@

$(FOBJ)/fwrap.o: $(FOBJ)/fwrap.c fortran/fsupport.h $(HEADERS)
	$(CC) $(CFLAGS) $(WARNFLAGS) -std=gnu11 -I$(B)/include -Ifortran -fPIC -c -o $@ $<

# The wrappers' support code: callback trampolines, the w collectives.
$(FOBJ)/fsupport.o: fortran/fsupport.c fortran/fsupport.h lib/fortran_hooks.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNFLAGS) -std=gnu11 -I$(B)/include -Ilib -fPIC -c -o $@ $<

# gfortran writes mpi.mod beside the object (-J), and leaves it alone when
# its contents stay the same: touched, so that make sees it as new.
$(FOBJ)/mpi.mod: $(FOBJ)/mpi.f90
	$(FC) $(FFLAGS) -Wall -Werror -fPIC -J$(FOBJ) -c -o $(FOBJ)/mpi.o $<
	touch $@

$(B)/include/mpi.mod: $(FOBJ)/mpi.mod
	@mkdir -p $(@D)
	install -m 644 $< $@

# mpi_f08 has code (the handles' == and /=): its object joins libmpirmaf.
# -Wno-c-binding-type: the handle types hold a default INTEGER, as the
# standard writes them (fortran/ff08.py, f08_module()).
$(FOBJ)/mpi_f08.mod: $(FOBJ)/mpi_f08.f90
	$(FC) $(FFLAGS) -Wall -Werror -Wno-c-binding-type -fPIC -J$(FOBJ) -c \
		-o $(FOBJ)/mpi_f08.o $<
	touch $@

$(FOBJ)/mpi_f08.o: $(FOBJ)/mpi_f08.mod
	@:

$(B)/include/mpi_f08.mod: $(FOBJ)/mpi_f08.mod
	@mkdir -p $(@D)
	install -m 644 $< $@

FLIB_OBJS := $(FOBJ)/fwrap.o $(FOBJ)/fsupport.o $(FOBJ)/mpi_f08.o
$(FLIB_A): $(FLIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(FLIB_SO): $(FLIB_OBJS) $(LIB_TARGETS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -o $@.tmp $(FLIB_OBJS) \
		-Wl,-soname,libmpirmaf.so.$(SOVERSION) -Wl,-z,defs $(ALL_LDFLAGS) \
		-L$(B)/lib -lmpirma '-Wl,-rpath,$$ORIGIN'
	mv -f $@.tmp $@

$(B)/lib/libmpirmaf.so.$(SOVERSION) $(B)/lib/libmpirmaf.so: $(FLIB_SO)
	ln -sf $(notdir $<) $@

$(MPIFORT_LINKS): $(B)/bin/mpicc
	ln -sf mpicc $@

define ft_rule
$(MTDIR)/f_%: fortran/tests/%.$(1) $(FT_SEEDS) $(MPIFORT_LINKS) $(FORTRAN_HDRS) $(FLIB_TARGETS)
	@mkdir -p $$(@D)
	MPIFORT_FC="$(FC)" $(B)/bin/mpifort $(FT_FFLAGS) -o $$@.tmp $$< \
		'-Wl,-rpath,$$$$ORIGIN/../../../lib'
	mv -f $$@.tmp $$@
endef
$(eval $(call ft_rule,f90))
$(eval $(call ft_rule,f))

# pkg-config mpirma-fortran; mpifort and mpi.mod, mpif.h beside mpi.h.
$(B)/mpirma-fortran.pc: packaging/mpirma-fortran.pc.in VERSION
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< >$@

.PHONY: $(B)/mpirma-fortran.pc

install-fortran: fortran $(B)/mpirma-fortran.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(FORTRAN_HDRS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(FLIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(FLIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(FLIB_SO)) $(DESTDIR)$(LIBDIR)/libmpirmaf.so.$(SOVERSION)
	ln -sf $(notdir $(FLIB_SO)) $(DESTDIR)$(LIBDIR)/libmpirmaf.so
	$(foreach l,$(notdir $(MPIFORT_LINKS)),ln -sf mpicc $(DESTDIR)$(BINDIR)/$(l);)
	install -m 644 $(B)/mpirma-fortran.pc $(DESTDIR)$(PKGCONFIGDIR)/mpirma-fortran.pc

uninstall-fortran:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(FORTRAN_HDRS)))
	rm -f $(DESTDIR)$(LIBDIR)/libmpirmaf.a $(DESTDIR)$(LIBDIR)/libmpirmaf.so*
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(MPIFORT_LINKS)))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/mpirma-fortran.pc

# The generator's host style on the RMA subset (what hybrid/ uses) must
# compile against Open MPI's and MPICH's mpi.h; make unit runs this with
# each peer MPI whose mpicc is installed (tools/mpirma-deps --bench).
FORTRAN_HOST_CCS := $(foreach c,mpicc.openmpi mpicc.mpich,$(if $(shell command -v $(c) 2>/dev/null),$(c)))
.PHONY: fortran-host-check
unit: fortran-host-check check-layers check-api check-bench-summary
fortran-host-check: $(FOBJ)/check.stamp
	python3 fortran/gen --c-wrappers --style host --only-list fortran/rma.list >$(FOBJ)/host-rma.c
	$(if $(FORTRAN_HOST_CCS),,@echo "fortran-host-check: no mpicc.openmpi or mpicc.mpich, skipped")
	$(foreach c,$(FORTRAN_HOST_CCS),$(c) $(WARNFLAGS) -std=gnu11 -c -o $(FOBJ)/host-rma-$(c).o \
		$(FOBJ)/host-rma.c && echo "fortran-host-check: $(c): the RMA subset compiles" &&) true

# Every C function the peers' headers declare, but I/O and process
# creation, is in libmpirma.so (issue 42's measure of a complete MPI).
API_HEADERS := /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h \
	       /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h
.PHONY: check-api
check-api: $(B)/lib/libmpirma.so
	lib/check-api $(B)/lib/libmpirma.so include/mpi.h $(API_HEADERS)

# The OSU table's floor and targets on a CSV of known rows.
.PHONY: check-bench-summary
check-bench-summary:
	bench/test-osu-summary

# libmpirma's folders point one way: base <- runtime <- rma.
.PHONY: check-layers
check-layers: $(LIB_OBJS)
	lib/check-layers $(filter $(OBJ)/pic/lib/%,$(LIB_OBJS))

# ------------------------------------------------------------------ lint

# checkpatch.pl false positives for an out-of-tree module, ignored:
#   LINUX_VERSION_CODE: "code should be for the version to which it is
#     merged" - an out-of-tree module is built against several kernels, and
#     kmod/compat.h is where it tests their versions.
CHECKPATCH_IGNORE := LINUX_VERSION_CODE
CHECKPATCH_FLAGS := --no-tree --show-types -q \
	$(if $(CHECKPATCH_IGNORE),--ignore $(subst $(space),$(comma),$(strip $(CHECKPATCH_IGNORE))))

# sparse against every installed kernel: each has its own headers.
lint: checkpatch sparse-all shellcheck

checkpatch: $(KSRC_STAMP)
	perl $(CHECKPATCH) $(CHECKPATCH_FLAGS) -f $(KSOURCES)

# Rebuild with sparse on every file (C=2); warnings from kmod/ or include/
# fail, warnings from the kernel's own headers are not ours.  KVER=: against
# that kernel; sparse-all: against every installed kernel.  In a copy of
# the sources of its own (kbuild_copy), never where the modules are: make
# check runs lint while a VM loads them.
SPARSE_DIR := $(B)/sparse/$(KREL)
SPARSE_LOG := $(SPARSE_DIR).log
SPARSE_SRC := $(CURDIR)/$(SPARSE_DIR)
sparse: | $(B)
	$(need_kdir)
	@command -v sparse >/dev/null || { echo "sparse missing: run make deps" >&2; exit 1; }
	$(call kbuild_copy,$(SPARSE_DIR),$(KDIR),$(KWERROR_ARG) C=2,$(SPARSE_LOG))
	@if grep -E '^($(SPARSE_SRC)/)?(kmod/\.\./)?(kmod|common|include)/[^:]+:[0-9]+:[0-9]+: (warning|error):' \
		$(SPARSE_LOG) >/dev/null; then \
		echo "sparse found problems in kmod/, common/ or include/ (see above)" >&2; exit 1; fi

.PHONY: sparse-all
sparse-all:
	@for r in $$(tools/mpirma-kernels --builds); do \
		echo "  SPARSE  $$r"; \
		$(MAKE) sparse KVER=$$r || exit 1; \
	done

shellcheck:
	@if command -v shellcheck >/dev/null; then \
		echo "  SHELLCHECK $(SCRIPTS) tools/vm/init"; \
		shellcheck $(SCRIPTS) && shellcheck -s sh tools/vm/init; \
	else echo "  SHELLCHECK skipped (not installed)"; fi

# ------------------------------------------------------------------ install

# pkg-config file for PREFIX/LIBDIR/INCLUDEDIR
$(B)/mpirma.pc: packaging/mpirma.pc.in VERSION
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< >$@

.PHONY: $(B)/mpirma.pc

# The module's sources go to /usr/src/mpirma-VERSION (what kbuild needs, for
# DKMS); then DKMS builds and installs the module for every kernel with a
# build tree (INSTALL_KERNELS), and for each one installed later
# (AUTOINSTALL), or, without DKMS, the built modules are installed: KDIR's,
# and those make module-all (or KVER=) built for the other kernels.
INSTALL_KERNELS ?= $(shell tools/mpirma-kernels --builds 2>/dev/null)
install: all $(B)/mpirma.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(LIBEXECDIR)/mpirma/selftests $(DESTDIR)$(LIBEXECDIR)/mpirma/vm \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(TOOL_BINS) $(B)/bin/mpirma-vm $(B)/bin/mpirma-kernels $(DESTDIR)$(BINDIR)/
	$(foreach l,$(notdir $(LAUNCHER_LINKS)),ln -sf mpiexec $(DESTDIR)$(BINDIR)/$(l);)
	$(if $(MPICC),sed -e 's|^includedir=$$|includedir=$(INCLUDEDIR)|' \
		-e 's|^libdir=$$|libdir=$(LIBDIR)|' $(MPICC) >$(DESTDIR)$(BINDIR)/mpicc.tmp && \
		chmod 755 $(DESTDIR)$(BINDIR)/mpicc.tmp && \
		mv $(DESTDIR)$(BINDIR)/mpicc.tmp $(DESTDIR)$(BINDIR)/mpicc)
	install -m 755 $(VMDIR)/init $(VMDIR)/run-job $(DESTDIR)$(LIBEXECDIR)/mpirma/vm/
	$(if $(ST_BINS)$(wildcard $(STDIR)/run),install -m 755 $(ST_BINS) $(wildcard $(STDIR)/run) \
		$(DESTDIR)$(LIBEXECDIR)/mpirma/selftests/)
	$(if $(MT_BINS)$(MT_STAGED),install -d $(DESTDIR)$(LIBEXECDIR)/mpirma/mpitests)
	$(if $(MT_BINS)$(MT_STAGED),install -m 755 $(MT_BINS) $(filter %/run,$(MT_STAGED)) \
		$(DESTDIR)$(LIBEXECDIR)/mpirma/mpitests/)
	$(if $(filter %/list,$(MT_STAGED)),install -m 644 $(filter %/list,$(MT_STAGED)) \
		$(DESTDIR)$(LIBEXECDIR)/mpirma/mpitests/)
	$(if $(CHECK_SCRIPT),install -m 755 $(CHECK_SCRIPT) $(DESTDIR)$(LIBEXECDIR)/mpirma/)
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	$(if $(LIB_TARGETS),install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/)
	$(if $(LIB_TARGETS),install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/)
	$(if $(LIB_TARGETS),ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/libmpirma.so.$(SOVERSION))
	$(if $(LIB_TARGETS),ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/libmpirma.so)
	install -m 644 $(B)/mpirma.pc $(DESTDIR)$(PKGCONFIGDIR)/mpirma.pc
	$(foreach m,$(MAN_PAGES),install -D -m 644 $(m) \
		$(DESTDIR)$(MANDIR)/$(patsubst $(B)/share/man/%,%,$(m));)
	install -D -m 644 packaging/99-mpirma.rules $(DESTDIR)$(UDEVRULESDIR)/99-mpirma.rules
	install -D -m 644 packaging/mpirma.conf $(DESTDIR)$(MODULESLOADDIR)/mpirma.conf
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)/kmod $(DESTDIR)$(DKMS_SRC)/common \
		$(DESTDIR)$(DKMS_SRC)/include
	install -m 644 Makefile Kbuild VERSION $(DESTDIR)$(DKMS_SRC)/
	install -D -m 755 tools/mpirma-kernels $(DESTDIR)$(DKMS_SRC)/tools/mpirma-kernels
	sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' dkms.conf \
		>$(DESTDIR)$(DKMS_SRC)/dkms.conf
	install -m 644 kmod/Kbuild $(filter kmod/%,$(KSOURCES)) $(DESTDIR)$(DKMS_SRC)/kmod/
	install -m 644 $(filter common/%,$(KSOURCES)) $(DESTDIR)$(DKMS_SRC)/common/
	install -m 644 include/mpirma_uapi.h $(DESTDIR)$(DKMS_SRC)/include/
ifeq ($(USE_DKMS),1)
	dkms remove -m mpirma -v $(VERSION) --all $(DKMS_FLAGS) >/dev/null 2>&1 || true
	dkms add -m mpirma -v $(VERSION) $(DKMS_FLAGS)
	@for r in $(INSTALL_KERNELS); do \
		echo "dkms: mpirma $(VERSION) for $$r"; \
		dkms build -m mpirma -v $(VERSION) -k $$r $(DKMS_FLAGS) && \
		dkms install -m mpirma -v $(VERSION) -k $$r --force $(DKMS_FLAGS) && \
		$(if $(DKMS_ROOT),true,depmod -a $$r) || exit 1; \
	done
	$(if $(DKMS_ROOT),,udevadm control --reload-rules 2>/dev/null || true)
else
	install -D -m 644 kmod/mpirma.ko $(DESTDIR)/lib/modules/$(KREL)/extra/mpirma.ko
	$(if $(DESTDIR),,depmod -a $(KREL))
	@for r in $(filter-out $(KREL),$(INSTALL_KERNELS)); do \
		[ -f $(B)/modules/$$r/mpirma.ko ] || continue; \
		echo "install $(B)/modules/$$r/mpirma.ko"; \
		install -D -m 644 $(B)/modules/$$r/mpirma.ko \
			$(DESTDIR)/lib/modules/$$r/extra/mpirma.ko; \
		$(if $(DESTDIR),true,depmod -a $$r); \
	done
endif

# make install through DKMS for every installed kernel, into a scratch root
# (build/dkms-root: DKMS's source, build and install trees, the module
# signed with a key made there; Debian's DKMS installs into updates/dkms/,
# compressed like the kernel's own modules), then one VM boot per kernel
# loading the module DKMS installed for it and running the smoke selftests.
DKMS_CHECK_ROOT := $(CURDIR)/$(B)/dkms-root
DKMS_SMOKE ?= abi window ops
.PHONY: check-dkms
check-dkms: deps all
	$(need_check_script)
	rm -rf $(DKMS_CHECK_ROOT)
	mkdir -p $(DKMS_CHECK_ROOT)/var/lib/dkms
	@for r in $(INSTALL_KERNELS); do mkdir -p $(DKMS_CHECK_ROOT)/lib/modules/$$r; done
	mok_signing_key=$(DKMS_CHECK_ROOT)/mok.key mok_certificate=$(DKMS_CHECK_ROOT)/mok.pub \
		$(MAKE) install DESTDIR=$(DKMS_CHECK_ROOT) DKMS_ROOT=$(DKMS_CHECK_ROOT)
	@rm -f $(CHECK_TALLY) $(CHECK_TALLY).failures
	@for r in $(INSTALL_KERNELS); do \
		ko=$$(find $(DKMS_CHECK_ROOT)/lib/modules/$$r -name 'mpirma.ko*' | head -n 1); \
		[ -n "$$ko" ] || { echo "check-dkms: DKMS installed nothing for $$r" >&2; exit 1; }; \
		echo "check-dkms: $$ko"; \
		$(TALLY) $$r -- $(VM) --kernel $$r --kmod $$ko $(VM_CHECK_ARGS) -- \
			$(CHECK_SCRIPT) $(DKMS_SMOKE) || exit 1; \
	done
	@tools/check-tally --summary $(CHECK_TALLY)

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOL_BINS)) mpirma-vm mpirma-kernels \
		$(notdir $(LAUNCHER_LINKS) $(MPICC)))
	rm -rf $(DESTDIR)$(LIBEXECDIR)/mpirma
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(HEADERS)))
	rm -f $(DESTDIR)$(LIBDIR)/libmpirma.a $(DESTDIR)$(LIBDIR)/libmpirma.so*
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/mpirma.pc
	rm -f $(foreach m,$(MAN_PAGES),$(DESTDIR)$(MANDIR)/$(patsubst $(B)/share/man/%,%,$(m)))
	rm -f $(DESTDIR)$(UDEVRULESDIR)/99-mpirma.rules $(DESTDIR)$(MODULESLOADDIR)/mpirma.conf
ifeq ($(USE_DKMS),1)
	dkms remove -m mpirma -v $(VERSION) --all || true
	for r in $(INSTALL_KERNELS); do depmod -a $$r; done
else
	for r in $(KREL) $(filter-out $(KREL),$(INSTALL_KERNELS)); do \
		rm -f $(DESTDIR)/lib/modules/$$r/extra/mpirma.ko; \
		$(if $(DESTDIR),true,depmod -a $$r); \
	done
endif
	rm -rf $(DESTDIR)$(DKMS_SRC)

# ------------------------------------------------------------------ clean

# clean keeps build/ksrc (slow to extract); distclean removes it too.
clean:
	-$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	find $(B) -mindepth 1 -maxdepth 1 ! -name ksrc -exec rm -rf {} + 2>/dev/null || true

distclean: clean
	rm -rf $(B)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
