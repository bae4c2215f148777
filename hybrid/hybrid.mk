# SPDX-License-Identifier: GPL-2.0
#
# The hybrid layer (hybrid/, docs/hybrid.md), included by
# the top Makefile: one library per host MPI found on the machine,
# build/lib/libmpirma-<host>.so, each made of
#  - hybrid/*.c compiled with that host's compiler wrapper (its mpi.h), and
#  - libmpirma's own objects linked in whole as the node-local engine, their
#    public names renamed MPI_ -> MPII_ (objcopy), declared for the layer by
#    build/hybrid/mpii.h (include/mpi.h and mpirma.h, renamed by sed).

HY_DIR := $(B)/hybrid
HY_MPII := $(HY_DIR)/mpii.h
HY_INNER := $(HY_DIR)/engine.o
HY_SRCS := $(wildcard hybrid/*.c)
HY_HDRS := $(wildcard hybrid/*.h) $(HY_MPII) include/mpirma_uapi.h lib/rma/rma_args.h

# Host MPIs: name and compiler wrapper (Debian's alternatives-free names).
HY_CC_openmpi := mpicc.openmpi
HY_CC_mpich := mpicc.mpich
HY_NAME_openmpi := Open MPI
HY_NAME_mpich := MPICH
# The Fortran entry points, generated from the binding table of fortran/
# (once it exists) for the calls in hybrid/fortran.list.
HY_FORTRAN := $(if $(wildcard fortran/gen),$(HY_DIR)/fortran.c)
HY_HOSTS := $(foreach h,openmpi mpich,$(if $(shell command -v $(HY_CC_$(h)) 2>/dev/null),$(h)))
HY_LIBS := $(HY_HOSTS:%=$(B)/lib/libmpirma-%.so)

.PHONY: hybrid
hybrid: $(HY_LIBS)
userspace: hybrid

$(HY_MPII): include/mpi.h include/mpirma.h hybrid/mpii.sed
	@mkdir -p $(@D)
	{ echo '/* Generated from include/mpi.h and include/mpirma.h by hybrid/mpii.sed. */'; \
	  sed -E -f hybrid/mpii.sed include/mpi.h include/mpirma.h; } >$@.tmp
	mv -f $@.tmp $@

# fortran/gen and its modules (the Makefile's FGEN, not yet set here)
$(HY_DIR)/fortran.c: fortran/gen $(wildcard fortran/*.py) fortran/bindings.tab hybrid/fortran.list
	@mkdir -p $(@D)
	fortran/gen --c-wrappers --style host --only-list hybrid/fortran.list >$@.tmp
	mv -f $@.tmp $@

# The engine: the library's code in one relocatable object (the
# Makefile's LIB_PRELINK, optimized across files as libmpirma.so is), its
# public symbols renamed (relocations follow the symbols).
$(HY_INNER): $(LIB_PRELINK) hybrid/hybrid.mk
	@mkdir -p $(@D)
	nm -g --defined-only $< | awk '$$3 ~ /^P?MPIX?_/ { print $$3 }' | \
		sed -E 's/^(P?)MPI(X?)_(.*)$$/& \1MPII\2_\3/' >$(HY_DIR)/rename.txt
	objcopy --redefine-syms=$(HY_DIR)/rename.txt $< $@.tmp
	mv -f $@.tmp $@

# -iquote: "mpii.h", "mpirma_uapi.h" and the engine's "rma_args.h" (which uses
# no MPI types) come from us, <mpi.h> from the host.
HY_CFLAGS = $(CFLAGS) $(WARNFLAGS) -std=gnu11 -fPIC \
	    -fno-semantic-interposition -MMD -MP \
	    -iquote $(HY_DIR) -iquote include -iquote lib/rma

define hybrid_host
HY_OBJS_$(1) := $(HY_SRCS:hybrid/%.c=$(OBJ)/hybrid/$(1)/%.o) \
		$(if $(HY_FORTRAN),$(OBJ)/hybrid/$(1)/gen/fortran.o)

$(OBJ)/hybrid/$(1)/%.o: hybrid/%.c $(HY_HDRS)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_CFLAGS) \
		-DHY_HOST_NAME='"$(HY_NAME_$(1))"' -c -o $$@ $$<

$(OBJ)/hybrid/$(1)/gen/fortran.o: $(HY_FORTRAN)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_CFLAGS) -c -o $$@ $$<

$(B)/lib/libmpirma-$(1).so: $$(HY_OBJS_$(1)) $(HY_INNER) hybrid/hybrid.map
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $(CFLAGS) -shared -o $$@.tmp \
		$$(HY_OBJS_$(1)) $(HY_INNER) \
		-Wl,-z,defs -Wl,--version-script=hybrid/hybrid.map \
		$(ALL_LDFLAGS) -lnuma -lpthread
	mv -f $$@.tmp $$@
endef
$(foreach h,$(HY_HOSTS),$(eval $(call hybrid_host,$(h))))

# The tests (hybrid/run, in the VM): mpitests/ sources and examples built
# with each host's compiler wrapper, staged with the runner, the launcher
# shim and the list in libexec/mpirma/hybrid/.
HY_STAGE := $(B)/libexec/mpirma/hybrid
HY_TESTS := killpoint
HY_EXAMPLES := mapvals_gather
HY_TEST_SUPPORT := mpitests/lib/mtest.c selftests/lib/reference.c \
		   selftests/lib/ref_values.c
HY_TEST_CFLAGS = $(CFLAGS) $(WARNFLAGS) -std=gnu11 -Impitests/lib -Iselftests/lib \
		 -iquote include
HY_STAGED := $(HY_STAGE)/run $(HY_STAGE)/launch $(HY_STAGE)/stacks $(HY_STAGE)/list $(HY_STAGE)/list.2

define hybrid_tests
$(HY_STAGE)/$(1)/%: mpitests/%.c $(HY_TEST_SUPPORT) $(wildcard mpitests/lib/*.h)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) -o $$@.tmp \
		$$< $(HY_TEST_SUPPORT) -lm -lpthread
	mv -f $$@.tmp $$@

$(HY_STAGE)/$(1)/%: examples/%.c
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) -o $$@.tmp $$< -lm
	mv -f $$@.tmp $$@

hybrid: $(addprefix $(HY_STAGE)/$(1)/,$(HY_TESTS) $(HY_EXAMPLES))
endef
$(foreach h,$(HY_HOSTS),$(eval $(call hybrid_tests,$(h))))

# The same tests in one program, for lists that run several per launch
# (NAME+NAME in hybrid/list: each launch costs seconds in the VM):
# mpitests/lib/suite.c calls each test's main, renamed mtest_main_NAME,
# with the arguments the list gives it (NAME@A,B).  A member has no
# program of its own (mpitests/run runs NAME alone in the suite); its parts
# (mpitests/NAME/*.c) are linked in beside it.  The suites depend on this
# file, which lists them: a member added to a built tree is linked in.
HY_SUITE := win sync ops datatype errors concurrency threads wincomm rmaerr largecount clock \
	p2p epochs coll nodes span
HY_SUITE_OBJ := $(B)/obj/hybrid-suite
HY_PART_SRCS := $(foreach t,$(HY_SUITE),$(wildcard mpitests/$(t)/*.c))
HY_PART_HDRS := $(foreach t,$(HY_SUITE),$(wildcard mpitests/$(t)/*.h))
HY_SUITE_OBJS = $(addprefix $(HY_SUITE_OBJ)/$(1)/,$(addsuffix .o,$(HY_SUITE)) \
		$(HY_PART_SRCS:mpitests/%.c=parts/%.o))

define hybrid_suite
$(HY_SUITE_OBJ)/$(1)/%.o: mpitests/%.c $(wildcard mpitests/lib/*.h) $(HY_PART_HDRS)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) \
		-Dmain=mtest_main_$$* -c -o $$@ $$<

$(HY_SUITE_OBJ)/$(1)/parts/%.o: mpitests/%.c $(wildcard mpitests/lib/*.h) $(HY_PART_HDRS)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) -c -o $$@ $$<

$(HY_STAGE)/$(1)/suite: mpitests/lib/suite.c $(HY_TEST_SUPPORT) \
		$(call HY_SUITE_OBJS,$(1)) \
		$(wildcard mpitests/lib/*.h) hybrid/hybrid.mk
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) \
		'-DMTEST_SUITE_TESTS=$(foreach t,$(HY_SUITE),X($(t)))' -o $$@.tmp \
		$$(filter %.c %.o,$$^) -lm -lpthread
	mv -f $$@.tmp $$@

hybrid: $(HY_STAGE)/$(1)/suite
endef
$(foreach h,$(HY_HOSTS),$(eval $(call hybrid_suite,$(h))))

# Global Arrays and ARMCI-MPI (apps/ga.c) linked with Debian's libraries
# for each host (libga-HOST.a over libarmci-HOST.a, which need ScaLAPACK,
# LAPACK, BLAS and gfortran's runtime), where make deps installed them.
HY_GA_LIBS = -lga-$(1) -larmci-$(1) -lscalapack-$(1) -llapack -lblas -lgfortran -lm
HY_MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null)
HY_GA_HOSTS := $(if $(wildcard /usr/include/ga.h),$(foreach h,$(HY_HOSTS),$(if \
	$(wildcard /usr/lib/$(HY_MULTIARCH)/libga-$(h).a),$(h))))

define hybrid_apps
$(HY_STAGE)/$(1)/ga: apps/ga.c apps/permutation.h mpitests/lib/mtest.c $(wildcard mpitests/lib/*.h)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) -o $$@.tmp \
		$$(filter %.c,$$^) $(call HY_GA_LIBS,$(1))
	mv -f $$@.tmp $$@

# its throughput (make bench-apps), checked in make check by a short run
$(HY_STAGE)/$(1)/ga_bench: apps/ga_bench.c apps/permutation.h mpitests/lib/mtest.c $(wildcard mpitests/lib/*.h)
	@mkdir -p $$(@D)
	OMPI_CC="$(CC)" MPICH_CC="$(CC)" $(HY_CC_$(1)) $$(HY_TEST_CFLAGS) -o $$@.tmp \
		$$(filter %.c,$$^) $(call HY_GA_LIBS,$(1))
	mv -f $$@.tmp $$@

hybrid: $(HY_STAGE)/$(1)/ga $(HY_STAGE)/$(1)/ga_bench
endef
$(foreach h,$(HY_GA_HOSTS),$(eval $(call hybrid_apps,$(h))))

# The same from Fortran (apps/ga_f.F90): Debian's GA takes 8-byte default
# integers, as NWChem does.
define hybrid_apps_f
$(HY_STAGE)/$(1)/ga_f: apps/ga_f.F90
	@mkdir -p $$(@D)
	OMPI_FC="$$(FC)" MPICH_FC="$$(FC)" $(HY_FC_$(1)) $$(FFLAGS) -Wall -Werror \
		-Wno-unused-dummy-argument -fdefault-integer-8 -cpp -I/usr/include \
		-o $$@.tmp $$< $(filter-out -lgfortran,$(call HY_GA_LIBS,$(1)))
	mv -f $$@.tmp $$@

hybrid: $(HY_STAGE)/$(1)/ga_f
endef

# Fortran coarrays through OpenCoarrays, built with Debian's caf.HOST
# (libcoarrays-HOST-dev): apps/caf_test in make check, apps/caf_bench in
# make bench-apps (both through apps/run).
HY_CAF_HOSTS := $(foreach h,$(HY_HOSTS),$(if $(wildcard /usr/bin/caf.$(h)),$(h)))

define hybrid_caf
$(HY_STAGE)/$(1)/caf_%: apps/caf_%.f90
	@mkdir -p $$(@D)
	caf.$(1) -O2 -Wall -Werror -o $$@.tmp $$<
	mv -f $$@.tmp $$@

hybrid: $(HY_STAGE)/$(1)/caf_test $(HY_STAGE)/$(1)/caf_bench
endef
$(foreach h,$(HY_CAF_HOSTS),$(eval $(call hybrid_caf,$(h))))

# NWChem under the layer (apps/run; make check runs its small case in the
# VM, check-apps and bench-apps the rest), staged with its inputs, and the
# Python programs (mpi4py) it runs.
APPS_STAGE := $(B)/libexec/mpirma/apps
APPS_STAGED := $(APPS_STAGE)/run $(addprefix $(APPS_STAGE)/nwchem/,reference \
	$(notdir $(wildcard apps/nwchem/*.nw))) \
	$(patsubst apps/%,$(APPS_STAGE)/%,$(wildcard apps/*.py))
SCRIPTS += apps/run

$(APPS_STAGE)/run: apps/run
	@mkdir -p $(@D)
	install -m 755 $< $@

$(APPS_STAGE)/nwchem/%: apps/nwchem/%
	@mkdir -p $(@D)
	install -m 644 $< $@

$(APPS_STAGE)/%.py: apps/%.py
	@mkdir -p $(@D)
	install -m 755 $< $@

hybrid: $(APPS_STAGED)

# Fortran: the MPI standard's SUM and MAPVALS examples (fortran/tests/,
# the same programs as mpirma's own suite) built with each host's mpifort.
# Open MPI's `use mpi` rejects the printed text over two argument-kind
# slips, so its build INCLUDEs copies with those corrected
# (hybrid/fortran_openmpi.sed; exactly two lines must change) ahead of the
# printed ones; MPICH's takes the text as printed.  MPICH's module has no
# interfaces for routines with choice buffers, so gfortran compares the
# calls of one file with each other and warns about the printed text's
# mixed kinds: no -Werror there.
HY_FC_openmpi := mpifort.openmpi
HY_FC_mpich := mpifort.mpich
HY_FSEEDS := $(HY_DIR)/fortran_openmpi/sum.f90 $(HY_DIR)/fortran_openmpi/mapvals.f90
HY_FFLAGS_openmpi := -Werror -I$(HY_DIR)/fortran_openmpi
HY_FFLAGS_mpich :=
HY_FDEPS_openmpi := $(HY_FSEEDS)
# The same through each host's `use mpi_f08`: Open MPI's calls ompi_x_f,
# MPICH's its own mpi_x_f08_ and mpi_x_f08ts_ entry points, which the
# layer defines too (fortran/gen); MPICH's has the large-count forms.
HY_FTESTS_F08 := f_f08_seed_sum f_f08_rma
HY_FTESTS_openmpi := f_seed_sum f_seed_mapvals $(HY_FTESTS_F08)
HY_FTESTS_mpich := f_seed_sum f_seed_mapvals $(HY_FTESTS_F08) f_f08_largecount
HY_FHOSTS := $(foreach h,$(HY_HOSTS),$(if $(shell command -v $(HY_FC_$(h)) 2>/dev/null),$(h)))
HY_FT_DEPS := $(wildcard fortran/tests/lib/* fortran/tests/seeds/*)

$(HY_FSEEDS): $(HY_DIR)/fortran_openmpi/%.f90: fortran/tests/seeds/%.f90 hybrid/fortran_openmpi.sed
	@mkdir -p $(@D)
	sed -f hybrid/fortran_openmpi.sed $< >$@.tmp
	test "$$(diff $< $@.tmp | grep -c '^>')" = 2 || \
		{ echo "$@: the seed text changed, fortran_openmpi.sed no longer applies" >&2; exit 1; }
	mv -f $@.tmp $@

define hybrid_ftests
$(addprefix $(HY_STAGE)/$(1)/,$(HY_FTESTS_$(1))): $(HY_STAGE)/$(1)/f_%: fortran/tests/%.f90 $(HY_FT_DEPS) $(HY_FDEPS_$(1))
	@mkdir -p $$(@D)
	OMPI_FC="$$(FC)" MPICH_FC="$$(FC)" $(HY_FC_$(1)) $$(FFLAGS) -Wall \
		-Wno-unused-dummy-argument $(HY_FFLAGS_$(1)) \
		-Ifortran/tests/seeds -Ifortran/tests/lib -o $$@.tmp $$<
	mv -f $$@.tmp $$@

hybrid: $(addprefix $(HY_STAGE)/$(1)/,$(HY_FTESTS_$(1)))
endef
$(foreach h,$(HY_FHOSTS),$(eval $(call hybrid_ftests,$(h))))
$(foreach h,$(filter $(HY_GA_HOSTS),$(HY_FHOSTS)),$(eval $(call hybrid_apps_f,$(h))))

hybrid: $(HY_STAGED)
SCRIPTS += hybrid/run hybrid/launch hybrid/stacks

$(HY_STAGE)/run $(HY_STAGE)/launch $(HY_STAGE)/stacks: $(HY_STAGE)/%: hybrid/%
	@mkdir -p $(@D)
	install -m 755 $< $@

$(HY_STAGE)/list $(HY_STAGE)/list.2: $(HY_STAGE)/%: hybrid/%
	@mkdir -p $(@D)
	install -m 644 $< $@

# make install: the layers beside libmpirma (make uninstall removes them).
.PHONY: install-hybrid uninstall-hybrid
install: install-hybrid
uninstall: uninstall-hybrid
install-hybrid: $(HY_LIBS)
	$(foreach l,$(HY_LIBS),install -D -m 755 $(l) $(DESTDIR)$(LIBDIR)/$(notdir $(l));)

uninstall-hybrid:
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(notdir $(HY_LIBS)))
