# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/launch-2ranks.sh, sourced by the benchmarks that run on 2 ranks
# (bench/osu-run, bench/strided-run), which set $bin (build/bin) and $lib
# (its lib directory) first.
#
# launch IMPL: IMPL's own launcher, 2 ranks bound to cores.  Open MPI
# alone: osc sm for MPI_Win_allocate, pt2pt for the other flavors (its
# default osc rdma crashes in MPI_Compare_and_swap, Open MPI 4.1.4); with
# the layer osc sm and rdma, as bench/run (the layer asks for
# MPI_THREAD_MULTIPLE where its agent runs, which pt2pt refuses).
# HOST+mpirma is the host with the layer preloaded at one logical node,
# HOST+mpirma2 at two (MPIRMA_LOGICAL_NODES=2: the layer's agents run).
# shellcheck disable=SC2154 # $bin and $lib are the sourcing script's
launch() {
	case $1 in
	mpirma) echo "$bin/mpiexec --bind-to core -n 2" ;;
	openmpi)
		echo "mpirun.openmpi --allow-run-as-root --bind-to core" \
			"--mca btl self,vader --mca osc sm,pt2pt -n 2" ;;
	openmpi+mpirma*)
		echo "mpirun.openmpi --allow-run-as-root --bind-to core" \
			"--mca btl self,vader --mca osc sm,rdma -n 2" \
			"-x LD_PRELOAD=$lib/libmpirma-openmpi.so -x MPIRMA_REQUIRE=1" \
			"-x MPIRMA_SPANNING=1"
		[ "$1" != openmpi+mpirma2 ] || echo "-x MPIRMA_LOGICAL_NODES=2" ;;
	mpich*)
		echo "mpiexec.mpich -launcher fork -bind-to core -n 2"
		[ "$1" = mpich ] ||
			echo "-genv LD_PRELOAD $lib/libmpirma-mpich.so -genv MPIRMA_REQUIRE 1"
		[ "$1" != mpich+mpirma2 ] || echo "-genv MPIRMA_LOGICAL_NODES 2" ;;
	esac
}
