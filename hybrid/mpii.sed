# mpii.h: libmpirma's public names as the hybrid layer sees them, beside the
# host MPI's own (MPI_ -> MPII_, PMPI_ -> PMPII_, MPIX_ -> MPIIX_).  The
# library's objects are renamed the same way (hybrid/hybrid.mk).
s/\b(P?)MPI(X?)_/\1MPII\2_/g
/^#include <mpi\.h>/d
