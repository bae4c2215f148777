// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_info.c - a window's info keys: the hints read at creation and by
 * MPI_Win_set_info (the standard's and mpirma's own: atomicity strategy,
 * NUMA node, ordering...), and what MPI_Win_get_info reports, the kernel's
 * choices included.
 */
#include <errno.h>
#include <limits.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime.h"
#include "mpirma.h"
#include "tool.h"
#include "win.h"

static const char default_ordering[] = "rar,raw,war,waw";

/* Names of the kernel's atomicity strategies for the mpirma_atomicity key. */
const char *const mpirma_strategy_names[MPIRMA_NR_STRATEGY_NAMES] = {
	[MPIRMA_ATOM_DEFAULT] = "default",
	[MPIRMA_ATOM_LOCK] = "lock",
	[MPIRMA_ATOM_STRIPED] = "striped",
	[MPIRMA_ATOM_NATIVE] = "native",
	[MPIRMA_ATOM_DELEGATE] = "delegate",
	[MPIRMA_ATOM_BULK] = "bulk",
};

/* ------------------------------------------------------------ info keys */

/* "true"/"false" in any case; false when it is neither. */
static bool parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true")) {
		*out = true;
		return true;
	}
	if (!strcasecmp(v, "false")) {
		*out = false;
		return true;
	}
	return false;
}

/* accumulate_ordering: "none" or a comma list of rar, raw, war, waw. */
static bool valid_ordering(const char *v)
{
	const char *p = v;

	if (!strcmp(v, "none"))
		return true;
	if (strlen(v) >= MPIRMA_ORDERING_LEN || !*v)
		return false;
	for (;;) {
		if (strncmp(p, "rar", 3) && strncmp(p, "raw", 3) &&
		    strncmp(p, "war", 3) && strncmp(p, "waw", 3))
			return false;
		p += 3;
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

/*
 * mpirma_numa_node: a node this process may allocate on.  An unusable value
 * is ignored rather than failed: creation is collective, and a rank that
 * failed alone before reaching the kernel would leave the others waiting.
 */
static int parse_node(const char *v)
{
	char *end;
	long n;

	if (!strcasecmp(v, "any"))
		return -1;
	if (!strcasecmp(v, "interleave"))
		return MPIRMA_NODE_INTERLEAVE;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > INT_MAX)
		return -1;
	if (numa_available() < 0 || n > numa_max_node() ||
	    !numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned int)n))
		return -1;
	return (int)n;
}

/* mpirma_atomicity: a strategy name or number the kernel knows. */
static bool parse_strategy(const char *v, uint32_t *out)
{
	/* before MPI_Init the module's are not known yet: ours */
	uint32_t i, nr = mpirma_proc.query.nr_strategies ?
			 mpirma_proc.query.nr_strategies :
			 MPIRMA_NR_STRATEGY_NAMES;
	char *end;
	unsigned long n;

	for (i = 0; i < MPIRMA_NR_STRATEGY_NAMES; i++) {
		if (mpirma_strategy_names[i] &&
		    !strcasecmp(v, mpirma_strategy_names[i]) && i < nr) {
			*out = i;
			return true;
		}
	}
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n >= nr)
		return false;
	*out = (uint32_t)n;
	return true;
}

/*
 * MPIRMA_ATOMICITY=lock|striped|native|delegate: the strategy of every window
 * this process creates without an mpirma_atomicity info key.  mpiexec hands
 * the environment to every rank, so all agree; a bad value is reported once
 * and ignored (the module default applies).
 */
uint32_t mpirma_win_env_strategy(void)
{
	static bool warned;
	const char *v = getenv("MPIRMA_ATOMICITY");
	uint32_t id = MPIRMA_ATOM_DEFAULT;

	if (v && *v && !parse_strategy(v, &id)) {
		if (!warned)
			fprintf(stderr, "mpirma: MPIRMA_ATOMICITY=%s is not a strategy of this "
				"module (lock, striped, native, delegate); using the default\n", v);
		warned = true;
		id = MPIRMA_ATOM_DEFAULT;
	}
	return id;
}

/* win.h */
void mpirma_win_hints_default(struct mpirma_win_hints *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->ordering, default_ordering);
	h->numa_node = -1;
	h->strategy = mpirma_win_env_strategy();
}

/*
 * Reads the keys of @info into @h.  @creating: the keys that only mean
 * something at creation (memory placement, strategy, layout) are taken too.
 * Unknown keys and invalid values are ignored, as the standard does with
 * hints.
 */
/* win.h */
void mpirma_win_hints_parse(struct mpirma_win_hints *h, MPI_Info info,
			    bool creating)
{
	const char *v;
	bool b;

	if (info == MPI_INFO_NULL)
		return;
	v = mpirma_info_lookup(info, "accumulate_ordering");
	if (v && valid_ordering(v))
		snprintf(h->ordering, sizeof(h->ordering), "%s", v);
	v = mpirma_info_lookup(info, "accumulate_ops");
	if (v && !strcmp(v, "same_op"))
		h->ops_same_op = true;
	else if (v && !strcmp(v, "same_op_no_op"))
		h->ops_same_op = false;
	v = mpirma_info_lookup(info, "no_locks");
	if (v && parse_bool(v, &b))
		h->no_locks = b;
	if (!creating)
		return;
	v = mpirma_info_lookup(info, "same_size");
	if (v && parse_bool(v, &b))
		h->same_size = b;
	v = mpirma_info_lookup(info, "same_disp_unit");
	if (v && parse_bool(v, &b))
		h->same_disp_unit = b;
	v = mpirma_info_lookup(info, "alloc_shared_noncontig");
	if (v && parse_bool(v, &b))
		h->noncontig = b;
	v = mpirma_info_lookup(info, MPIRMA_INFO_NUMA_NODE);
	if (v)
		h->numa_node = parse_node(v);
	v = mpirma_info_lookup(info, MPIRMA_INFO_ATOMICITY);
	if (v)
		parse_strategy(v, &h->strategy);
}

/* ------------------------------------------------------------ info */

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	struct mpirma_window *w;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	/*
	 * Only the hints that may change during a window's life are taken;
	 * placement, strategy and layout were fixed at creation.
	 */
	mpirma_win_hints_parse(&w->hints, info, false);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_set_info)

static int info_set_all(MPI_Info info, const struct mpirma_window *w)
{
	const struct mpirma_win_hints *h = &w->hints;
	struct mpirma_win_query q;
	char node[16];
	const char *strat = NULL;
	char num[16];
	int ret;

	/* What the kernel actually did, where it can tell. */
	snprintf(node, sizeof(node), "%d", h->numa_node);
	strat = h->strategy < MPIRMA_ARRAY_SIZE(mpirma_strategy_names) ?
		mpirma_strategy_names[h->strategy] : NULL;
	if (h->numa_node == MPIRMA_NODE_INTERLEAVE)
		snprintf(node, sizeof(node), "interleave");
	if (!mpirma_win_query(w, w->rank, &q)) {
		if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && h->numa_node != MPIRMA_NODE_INTERLEAVE)
			snprintf(node, sizeof(node), "%d", q.numa_node);
		strat = q.strategy < MPIRMA_ARRAY_SIZE(mpirma_strategy_names) ?
			mpirma_strategy_names[q.strategy] : NULL;
		if (!strat) {
			snprintf(num, sizeof(num), "%u", q.strategy);
			strat = num;
		}
	}
	ret = PMPI_Info_set(info, "accumulate_ordering", h->ordering);
	if (!ret)
		ret = PMPI_Info_set(info, "accumulate_ops", h->ops_same_op ?
				    "same_op" : "same_op_no_op");
	if (!ret)
		ret = PMPI_Info_set(info, "no_locks",
				    h->no_locks ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, "same_size",
				    h->same_size ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, "same_disp_unit",
				    h->same_disp_unit ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, "alloc_shared_noncontig",
				    h->noncontig ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, MPIRMA_INFO_NUMA_NODE, node);
	if (!ret && strat)
		ret = PMPI_Info_set(info, MPIRMA_INFO_ATOMICITY, strat);
	return ret;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
	struct mpirma_window *w;
	MPI_Info info;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	if (!info_used)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"info_used is NULL");
	ret = PMPI_Info_create(&info);
	if (ret)
		return mpirma_raise_win(win, ret, MPIRMA_FUNC,
					"cannot create an info object");
	ret = info_set_all(info, w);
	if (ret) {
		PMPI_Info_free(&info);
		return mpirma_raise_win(win, ret, MPIRMA_FUNC,
					"cannot fill the info object");
	}
	*info_used = info;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_get_info)
