// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: RMA batches (layouts with huge counts, overlapping or wrapping,
 * every op and type) and a rank forked into a child that is killed in the
 * middle of a collective.
 */
#include "fuzz.h"

/* ---- RMA ---- */

static const unsigned int cas_types[] = {
	MPIRMA_TYPE_BYTE, MPIRMA_TYPE_INT8, MPIRMA_TYPE_UINT16, MPIRMA_TYPE_INT32,
	MPIRMA_TYPE_UINT32, MPIRMA_TYPE_INT64, MPIRMA_TYPE_UINT64, MPIRMA_TYPE_BOOL,
};

/*
 * A layout of @nelem elements of @esize bytes: contiguous, or blocks that
 * may overlap, go backwards and repeat with any extent.  Block lists live in
 * @blk (room for 16).
 */
void build_layout(struct worker *w, struct mpirma_layout *l, uint64_t nelem,
		  size_t esize, bool target, struct mpirma_block *blk)
{
	uint32_t i, nb;
	uint64_t left = nelem;

	memset(l, 0, sizeof(*l));
	if (!target)
		l->addr = (uintptr_t)arena_good(&w->a, nelem * esize * 4 + 1024) + 512;
	if (chance(60) || !nelem) {
		l->count = nelem;
		return;
	}
	/* nelem = count * sum(block elements) */
	l->count = 1 + below(3);
	while (nelem % l->count)
		l->count--;
	left = nelem / l->count;
	nb = 1 + below(left < 8 ? left : 8);
	for (i = 0; i < nb; i++) {
		uint64_t k = i == nb - 1 ? left : 1 + below(left - (nb - 1 - i));

		blk[i].len = k * esize;
		left -= k;
		blk[i].disp = (int64_t)(chance(80) ? i * 64 * esize : below(512)) -
			      (chance(10) ? 256 : 0);
		if (!k)
			break;
	}
	l->nblocks = i < nb ? i + 1 : nb;
	l->blocks = (uintptr_t)blk;
	l->extent = chance(80) ? (int64_t)(nb * 64 * esize) : (int64_t)below(256) - 128;
}

void build_op(struct worker *w, struct mpirma_op *op, struct fz_win *fw,
	      struct mpirma_block *blk)
{
	unsigned int type, kind = below(MPIRMA_NR_KINDS);
	uint64_t n = chance(90) ? 1 + below(32) : below(2048);
	size_t esize;

	memset(op, 0, sizeof(*op));
	if (kind == MPIRMA_KIND_CAS)
		type = cas_types[below(MT_ARRAY_SIZE(cas_types))];
	else
		type = below(MPIRMA_NR_TYPES);
	esize = ref_type_size(type);
	op->kind = kind;
	op->type = type;
	if (kind == MPIRMA_KIND_ACC || kind == MPIRMA_KIND_GET_ACC) {
		unsigned int o, tries;

		for (tries = 0, o = below(MPIRMA_NR_OPS); tries < 20; tries++) {
			if (ref_op_allowed(o, type) &&
			    (kind == MPIRMA_KIND_GET_ACC || o != MPIRMA_OP_NO_OP))
				break;
			o = below(MPIRMA_NR_OPS);
		}
		op->op = o;
	}
	if (kind == MPIRMA_KIND_CAS)
		n = 1;
	op->target_rank = chance(95) ? 0 : below(3);
	if (fw && fw->len && fw->flavor != MPIRMA_FLAVOR_DYNAMIC)
		op->target_disp = below(fw->len / (fw->disp_unit ? fw->disp_unit : 1) + 2);
	else if (fw && fw->flavor == MPIRMA_FLAVOR_DYNAMIC)
		op->target_disp = (uintptr_t)w->a.rw + below(8 * w->a.page);
	else
		op->target_disp = below(64);
	if (chance(5))
		op->target_disp = pick_interesting();
	build_layout(w, &op->target, n, esize, true, blk);
	if (kind != MPIRMA_KIND_GET &&
	    !(kind == MPIRMA_KIND_GET_ACC && op->op == MPIRMA_OP_NO_OP))
		build_layout(w, &op->origin, n, esize, false, blk + 16);
	if (kind == MPIRMA_KIND_GET || kind == MPIRMA_KIND_GET_ACC || kind == MPIRMA_KIND_CAS)
		build_layout(w, &op->result, n, esize, false, blk + 32);
	if (kind == MPIRMA_KIND_CAS)
		op->compare = (uintptr_t)arena_good(&w->a, 8);
	/* huge counts: the same shape, repeated beyond any window */
	if (chance(3))
		op->target.count = pick_interesting();
	if (chance(3) && op->origin.count)
		op->origin.count = pick_interesting();
	if (chance(4)) {
		op->origin.addr = pick_ptr(&w->a, n * esize, 100);
		op->result.addr = op->result.count ? pick_ptr(&w->a, n * esize, 50) : 0;
	}
}

void do_rma(struct worker *w, uint8_t *buf)
{
	struct mpirma_rma *rma = (void *)buf;
	/* ops and blocks live in the arena's last pages, next to the guard */
	size_t op_size = sizeof(struct mpirma_op);
	uint32_t i, nops = chance(80) ? 1 + below(4) : below(64), nfailed = 0;
	uint8_t *ops = w->a.ops;
	struct mpirma_block *blk = (void *)(w->a.ops + 64 * 1024);
	struct fz_win *fw = pick_win(w);
	bool mut = chance(15), mut_ops = chance(30);
	int ret;

	w->what = "RMA";
	if (chance(10))
		op_size += 8 * below(8);	/* a longer op, tail zero or not */
	if (nops * op_size > 64 * 1024)
		nops = 64 * 1024 / op_size;
	memset(ops, 0, nops * op_size);
	for (i = 0; i < nops; i++) {
		struct mpirma_op *op = (void *)(ops + i * op_size);

		build_op(w, op, fw, blk + (i % 4) * 48);
		if (mut_ops && chance(50))
			mutate((uint8_t *)op, sizeof(*op) - 8);	/* no size field: fix it */
		if (op_size > sizeof(*op) && chance(30))
			ops[i * op_size + sizeof(*op) + below(op_size - sizeof(*op))] = 0x5a;
		op->status = 0x5a5a5a5a;
	}
	if (chance(10))
		for (i = 0; i < 8; i++)
			mutate((uint8_t *)&blk[below(4 * 48)], sizeof(*blk) - 4);
	rma->size = sizeof(*rma);
	rma->win_id = pick_win_id(fw);
	rma->nops = nops;
	rma->op_size = op_size;
	rma->ops = (uintptr_t)ops;
	if (chance(3))
		rma->ops = pick_ptr(&w->a, nops * op_size, 100);
	if (chance(3))
		rma->nops = pick_interesting();
	ret = issue(w, win_fd(w, fw), MPIRMA_IOC_RMA, buf, sizeof(*rma), mut);
	if (ret || mut || rma->ops != (uintptr_t)ops || rma->nops != nops)
		return;
	/* every status written, each 0 or a documented errno; nfailed agrees */
	for (i = 0; i < nops; i++) {
		struct mpirma_op *op = (void *)(ops + i * op_size);

		if (op->status == 0x5a5a5a5a) {
			BUMP(w->st->unexpected);
			report(w, "RMA: status of op %u of %u not written", i, nops);
		} else if (op->status > 0 || (op->status && !errno_documented(-op->status))) {
			BUMP(w->st->unexpected);
			report(w, "RMA: op %u (kind %u type %u op %u) status %d", i,
			       op->kind, op->type, op->op, op->status);
		}
		if (op->status)
			nfailed++;
		if (op->status <= 0 && -op->status < NR_ERRNO)
			BUMP(w->st->op_by_errno[-op->status]);
	}
	if (nfailed != rma->nfailed) {
		BUMP(w->st->unexpected);
		report(w, "RMA: nfailed %u, statuses say %u", rma->nfailed, nfailed);
	}
}

/* ---- a rank in a child, killed mid-call sometimes ---- */

/* @cmd on @fd until it ends other than by the timer (a bounded number of times). */
int pair_call(struct worker *w, int fd, unsigned long cmd, void *arg, const char *what)
{
	int i, ret = -EINTR;

	w->what = what;
	for (i = 0; i < 200 && ret == -EINTR; i++)
		ret = fz_ioctl(w, fd, cmd, arg);
	return ret;
}

/*
 * Hand rank b of a job to a child: the child and the caller (rank a)
 * create a window over {a, b}, fence and free it; the child is killed at a
 * random moment a third of the time, which makes the caller's collective
 * end in EOWNERDEAD.  The caller gives up its copy of b's fd, so b is gone
 * when the child is.
 */
void do_fork_rank(struct worker *w, uint8_t *buf)
{
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	uint32_t ranks[2], a = MAX_RANKS, b = MAX_RANKS, r;
	struct mpirma_win_create *wc = (void *)buf;
	struct mpirma_win_sync *s = (void *)(buf + 512);
	uint64_t ctx = w->next_context++;
	int status;
	pid_t pid;

	for (r = 0; r < MAX_RANKS; r++) {
		if (job->mfd[r] < 0)
			continue;
		if (a == MAX_RANKS)
			a = r;
		else if (b == MAX_RANKS)
			b = r;
	}
	if (b == MAX_RANKS)
		return;
	ranks[0] = a;
	ranks[1] = b;
	memset(wc, 0, sizeof(*wc));
	wc->size = sizeof(*wc);
	wc->flavor = chance(50) ? MPIRMA_FLAVOR_ALLOC : MPIRMA_FLAVOR_DYNAMIC;
	wc->strategy = below(MPIRMA_NR_STRATEGIES);
	wc->disp_unit = 1;
	wc->length = wc->flavor == MPIRMA_FLAVOR_ALLOC ? below(10000) : 0;
	wc->ranks = (uintptr_t)ranks;
	wc->nranks = 2;
	wc->context = ctx | (1ULL << 63);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		struct mpirma_win_sync cs = { .size = sizeof(cs) };
		int mfd = job->mfd[b];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ioctl(mfd, MPIRMA_IOC_WIN_CREATE, wc))
			_exit(0);
		cs.win_id = wc->win_id;
		ioctl(mfd, MPIRMA_IOC_WIN_FENCE, &cs);
		ioctl(mfd, MPIRMA_IOC_WIN_FREE, &cs);
		_exit(0);
	}
	close(job->mfd[b]);
	job->mfd[b] = -1;
	job->gone[b] = true;
	if (chance(33)) {
		usleep(below(5000));
		kill(pid, SIGKILL);
	}
	if (!pair_call(w, job->mfd[a], MPIRMA_IOC_WIN_CREATE, wc, "WIN_CREATE (pair)")) {
		memset(s, 0, sizeof(*s));
		s->size = sizeof(*s);
		s->win_id = wc->win_id;
		pair_call(w, job->mfd[a], MPIRMA_IOC_WIN_FENCE, s, "WIN_FENCE (pair)");
		pair_call(w, job->mfd[a], MPIRMA_IOC_WIN_FREE, s, "WIN_FREE (pair)");
	}
	/* a child still waiting (the caller gave up) is not needed any more */
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}
