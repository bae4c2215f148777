// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: the commands, each an ioctl (or mmap) with arguments that are
 * valid, or valid with some fields mutated, on fds and windows picked from
 * the worker's world.
 */
#include "fuzz.h"

/* ---- the commands ---- */

/* Issue @cmd with @buf (a struct of @len), maybe mutated, maybe misplaced. */
int issue(struct worker *w, int fd, unsigned long cmd, uint8_t *buf, size_t len,
	  bool mutated)
{
	struct arena *a = &w->a;
	void *arg = buf;
	int ret;

	if (mutated)
		mutate(buf, len);
	if (chance(5)) {
		switch (below(4)) {
		case 0:		/* read-only: the copy back must fail cleanly */
			if (!mprotect(a->ro, a->page, PROT_READ | PROT_WRITE)) {
				memcpy(a->ro, buf, len < a->page ? len : a->page);
				mprotect(a->ro, a->page, PROT_READ);
			}
			arg = a->ro;
			break;
		case 1:		/* straddles the unmapped page */
			memcpy(a->guard - len / 2, buf, len / 2);
			arg = a->guard - len / 2;
			break;
		default:
			arg = (void *)(uintptr_t)pick_ptr(a, len, 100);
			break;
		}
	}
	ret = fz_ioctl(w, fd, cmd, arg);
	/* a misplaced struct that worked (misaligned): its answer is there */
	if (!ret && arg != buf && (uint8_t *)arg >= a->rw && (uint8_t *)arg + len <= a->guard)
		memmove(buf, arg, len);
	return ret;
}


void do_query(struct worker *w, uint8_t *buf)
{
	struct mpirma_query *q = (void *)buf;

	w->what = "QUERY";
	q->size = sizeof(*q);
	issue(w, pick_fd(w, w->dev), MPIRMA_IOC_QUERY, buf, sizeof(*q), chance(40));
}

void do_null(struct worker *w, uint8_t *buf)
{
	w->what = "NULL";
	fz_ioctl(w, pick_fd(w, w->dev), MPIRMA_IOC_NULL, chance(50) ? buf : NULL);
}

void do_job_create(struct worker *w, uint8_t *buf)
{
	struct mpirma_job_create *jc = (void *)buf;
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	bool mut = chance(30);
	int ret, r;

	w->what = "JOB_CREATE";
	jc->size = sizeof(*jc);
	jc->nranks = 1 + below(MAX_RANKS);
	ret = issue(w, pick_fd(w, w->dev), MPIRMA_IOC_JOB_CREATE, buf, sizeof(*jc), mut);
	if (ret || jc->job_fd < 0)
		return;
	if (mut || job->jfd >= 0 || jc->nranks > MAX_RANKS || !jc->nranks) {
		/* not one we keep: a job whose ranks never join */
		close(jc->job_fd);
		return;
	}
	/* the slot is free (no job fd): forget the old members too */
	for (r = 0; r < MAX_RANKS; r++) {
		if (job->mfd[r] >= 0)
			close(job->mfd[r]);
		job->mfd[r] = -1;
		job->gone[r] = false;
	}
	for (r = 0; r < MAX_WINS; r++)
		if (w->wins[r].used && &w->jobs[w->wins[r].job] == job)
			w->wins[r].used = false;
	job->jfd = jc->job_fd;
	job->nranks = jc->nranks;
}

void do_job_join(struct worker *w, uint8_t *buf)
{
	struct mpirma_job_join *jj = (void *)buf;
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	bool mut = chance(30);
	int ret;

	w->what = "JOB_JOIN";
	jj->size = sizeof(*jj);
	jj->rank = below(job->nranks + 1);
	ret = issue(w, pick_fd(w, job->jfd), MPIRMA_IOC_JOB_JOIN, buf, sizeof(*jj), mut);
	if (ret || jj->member_fd < 0)
		return;
	if (job->jfd < 0 || jj->rank >= MAX_RANKS || job->mfd[jj->rank] >= 0 ||
	    jj->nranks != job->nranks) {
		close(jj->member_fd);	/* a member of a job we do not track */
		return;
	}
	job->mfd[jj->rank] = jj->member_fd;
}

/* Close a job fd or a member fd: the rank is gone for good. */
void do_close(struct worker *w)
{
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	int r = below(MAX_RANKS);

	if (chance(50) && job->jfd >= 0) {
		close(job->jfd);
		job->jfd = -1;
	} else if (job->mfd[r] >= 0) {
		close(job->mfd[r]);
		job->mfd[r] = -1;
		job->gone[r] = true;
	}
}

/* USER window memory of slot @i (MAX_WINS: a spare for untracked windows). */
uint8_t *win_mem(unsigned int i)
{
	return area(AREA_WINMEM + i * WINMEM_SLOT);
}

void win_mem_release(uint8_t *base, size_t len)
{
	if (base)
		scratch_map(base, len, PROT_NONE);	/* back into the reservation */
}

struct fz_win *free_win_slot(struct worker *w)
{
	struct fz_win *fw = &w->wins[below(MAX_WINS)];

	if (fw->used && !fw->freed)
		return NULL;	/* keep live windows; their slot is busy */
	if (fw->map)
		munmap(fw->map, fw->map_len);
	win_mem_release(fw->base, fw->base_len);
	memset(fw, 0, sizeof(*fw));
	return fw;
}

void do_win_create(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_create *wc = (void *)buf;
	uint32_t *ranks = (uint32_t *)(buf + ARGBUF_LEN - 64);
	struct fz_win *fw = free_win_slot(w);
	int j, r, fd = pick_member(w, &j, &r), ret;
	bool mut = chance(35);
	uint8_t *base = NULL;
	uint64_t len;

	w->what = "WIN_CREATE";
	len = chance(80) ? below(3 * w->a.page) : pick_interesting();
	wc->size = sizeof(*wc);
	wc->flavor = below(MPIRMA_NR_FLAVORS);
	wc->strategy = below(MPIRMA_NR_STRATEGIES);
	wc->disp_unit = 1U << below(4);
	wc->nranks = 1;
	ranks[0] = fd >= 0 ? (uint32_t)r : 0;
	if (chance(10) && fd >= 0) {
		/* a group with another rank: waits, then the timer interrupts */
		wc->nranks = 2;
		ranks[1] = (r + 1) % MAX_RANKS;
	}
	wc->ranks = chance(95) ? (uintptr_t)ranks : pick_ptr(&w->a, 8, 100);
	wc->context = chance(80) ? w->next_context++ : pick_interesting();
	if (wc->flavor == MPIRMA_FLAVOR_ALLOC) {
		wc->length = len;
		wc->flags = below(8) & (chance(70) ? MPIRMA_WIN_CONTIG : 7);
		wc->numa_node = below(2);
	} else if (wc->flavor == MPIRMA_FLAVOR_USER) {
		wc->length = len;
		if (len <= 4 * w->a.page && chance(90)) {
			base = win_mem(fw ? (unsigned int)(fw - w->wins) : MAX_WINS);
			if (scratch_map(base, len ? len : 1, PROT_READ | PROT_WRITE))
				base = NULL;
			wc->base = (uintptr_t)base + (chance(20) ? below(64) : 0);
		} else {
			wc->base = pick_ptr(&w->a, len, 60);
		}
	}
	ret = issue(w, pick_fd(w, fd), MPIRMA_IOC_WIN_CREATE, buf, sizeof(*wc), mut);
	if (ret || !fw || fd < 0 || mut) {
		win_mem_release(base, len ? len : 1);
		return;
	}
	fw->used = true;
	fw->job = j;
	fw->rank = r;
	fw->id = wc->win_id;
	fw->flavor = wc->flavor;
	fw->disp_unit = wc->disp_unit;
	fw->len = wc->length;
	fw->base = base;
	fw->base_len = len ? len : 1;
}

void do_win_sync(struct worker *w, uint8_t *buf, unsigned long cmd, const char *name)
{
	struct mpirma_win_sync *s = (void *)buf;
	struct fz_win *fw = pick_win(w);
	bool mut = chance(25);
	int ret;

	w->what = name;
	s->size = sizeof(*s);
	s->win_id = pick_win_id(fw);
	if (cmd == MPIRMA_IOC_WIN_LOCK) {
		s->flags = chance(50) ? MPIRMA_SYNC_SHARED : MPIRMA_SYNC_EXCLUSIVE;
		if (chance(50))
			s->flags |= MPIRMA_SYNC_NOWAIT;
	}
	if (cmd == MPIRMA_IOC_WIN_WAIT && chance(70))
		s->flags = MPIRMA_SYNC_TEST;
	if (cmd == MPIRMA_IOC_WIN_LOCK || cmd == MPIRMA_IOC_WIN_UNLOCK)
		s->rank = chance(20) ? MPIRMA_RANK_ALL : below(2);
	ret = issue(w, win_fd(w, fw), cmd, buf, sizeof(*s), mut);
	if (cmd == MPIRMA_IOC_WIN_FREE && fw && (ret == 0 || ret == -EOWNERDEAD) && !mut &&
	    s->win_id == fw->id)
		fw->freed = true;
}

void do_win_query(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_query *q = (void *)buf;
	struct fz_win *fw = pick_win(w);

	w->what = "WIN_QUERY";
	q->size = chance(10) ? offsetof(struct mpirma_win_query, worker) : sizeof(*q);
	q->win_id = pick_win_id(fw);
	q->rank = below(3);
	issue(w, win_fd(w, fw), MPIRMA_IOC_WIN_QUERY, buf, sizeof(*q), chance(30));
}

void do_win_stats(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_stats *s = (void *)buf;
	struct fz_win *fw = pick_win(w);

	w->what = "WIN_STATS";
	s->size = sizeof(*s);
	s->win_id = pick_win_id(fw);
	issue(w, win_fd(w, fw), MPIRMA_IOC_WIN_STATS, buf, sizeof(*s), chance(30));
}

void do_win_placement(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_placement *p = (void *)buf;
	struct fz_win *fw = pick_win(w);

	w->what = "WIN_PLACEMENT";
	p->size = sizeof(*p);
	p->win_id = pick_win_id(fw);
	p->rank = below(2);
	p->nr_nodes = chance(80) ? below(8) : (uint32_t)pick_interesting();
	p->counts = pick_ptr(&w->a, 8 * 8, 10);
	issue(w, win_fd(w, fw), MPIRMA_IOC_WIN_PLACEMENT, buf, sizeof(*p), chance(30));
}

void do_win_attach(struct worker *w, uint8_t *buf, bool detach)
{
	struct mpirma_win_attach *at = (void *)buf;
	struct fz_win *fw = pick_win(w);
	size_t len = 1 + below(3 * w->a.page);

	w->what = detach ? "WIN_DETACH" : "WIN_ATTACH";
	at->size = sizeof(*at);
	at->win_id = pick_win_id(fw);
	/* attached regions come from the arena: overlaps are likely */
	at->base = (uintptr_t)w->a.rw + below(8) * w->a.page + (chance(30) ? below(100) : 0);
	if (chance(15))
		at->base = pick_ptr(&w->a, len, 100);
	at->length = detach ? 0 : (chance(90) ? len : pick_interesting());
	issue(w, win_fd(w, fw), detach ? MPIRMA_IOC_WIN_DETACH : MPIRMA_IOC_WIN_ATTACH,
	      buf, sizeof(*at), chance(25));
}

void do_win_group(struct worker *w, uint8_t *buf, bool post)
{
	struct mpirma_win_group *g = (void *)buf;
	uint32_t *ranks = (uint32_t *)(buf + ARGBUF_LEN - 64);
	struct fz_win *fw = pick_win(w);
	uint32_t i;

	w->what = post ? "WIN_POST" : "WIN_START";
	g->size = sizeof(*g);
	g->win_id = pick_win_id(fw);
	g->nranks = below(3);
	for (i = 0; i < 4; i++)
		ranks[i] = below(2);
	g->ranks = chance(90) ? (uintptr_t)ranks : pick_ptr(&w->a, 16, 100);
	issue(w, win_fd(w, fw), post ? MPIRMA_IOC_WIN_POST : MPIRMA_IOC_WIN_START,
	      buf, sizeof(*g), chance(25));
}

void do_msg(struct worker *w, uint8_t *buf, bool send)
{
	struct mpirma_msg *m = (void *)buf;
	int j, r, fd = pick_member(w, &j, &r);
	uint64_t len = chance(90) ? below(2 * w->a.page) : pick_interesting();
	bool mut = chance(30);

	w->what = send ? "MSG_SEND" : "MSG_RECV";
	m->size = sizeof(*m);
	m->peer = fd >= 0 && chance(80) ? (uint32_t)below(w->jobs[j].nranks) : MPIRMA_ANY_SOURCE;
	m->tag = send ? (int32_t)below(4) : (chance(50) ? MPIRMA_ANY_TAG : (int32_t)below(4));
	m->context = below(3);
	m->len = len;
	m->buf = pick_ptr(&w->a, len, 10);
	if (!send)
		m->flags = MPIRMA_MSG_NOWAIT | (chance(20) ? MPIRMA_MSG_PEEK : 0);
	if (!send && chance(5))
		m->flags = 0;	/* waits; the timer ends it */
	if (mut)
		mutate(buf, sizeof(*m));
	/*
	 * A message is buffered in the kernel whatever its size (charged to
	 * the memory cgroup, not RLIMIT_MEMLOCK): keep sizes between the cap
	 * and "more than the machine has" out, or the VM runs out of memory.
	 */
	if (send && m->len > MSG_LEN_CAP && m->len < (1ULL << 40))
		m->len = MSG_LEN_CAP;
	issue(w, pick_fd(w, fd), send ? MPIRMA_IOC_MSG_SEND : MPIRMA_IOC_MSG_RECV,
	      buf, sizeof(*m), false);
}

void do_barrier(struct worker *w)
{
	int j, r;

	w->what = "JOB_BARRIER";
	fz_ioctl(w, pick_fd(w, pick_member(w, &j, &r)), MPIRMA_IOC_JOB_BARRIER, NULL);
}

/* An unknown command, or a known one with random bytes and a random size. */
void do_random_cmd(struct worker *w, uint8_t *buf)
{
	unsigned long cmd;
	size_t i;

	w->what = "random command";
	for (i = 0; i < 256; i += 8) {
		uint64_t v = chance(50) ? rnd() : pick_interesting();

		memcpy(buf + i, &v, 8);
	}
	if (chance(50)) {
		uint32_t size = below(256);

		memcpy(buf, &size, 4);
	}
	switch (below(4)) {
	case 0:		/* right magic, any number, any direction and size */
		cmd = _IOC(below(4), MPIRMA_IOC_MAGIC, below(0x60), below(300));
		break;
	case 1:		/* wrong magic */
		cmd = _IOC(below(4), below(256), below(256), below(300));
		break;
	case 2:
		cmd = (uint32_t)rnd();
		break;
	default:	/* a real number with another direction or size */
		cmd = _IOC(below(4), MPIRMA_IOC_MAGIC, _IOC_NR(MPIRMA_IOC_RMA) & ~below(0x40),
			   below(200));
		break;
	}
	fz_ioctl(w, pick_fd(w, -1), cmd, chance(90) ? buf : (void *)(uintptr_t)pick_ptr(&w->a, 64, 100));
}

/* mmap a member fd at a random offset, length and protection. */
void do_mmap(struct worker *w)
{
	struct fz_win *fw = pick_win(w);
	int fd = win_fd(w, fw);
	size_t len = (1 + below(4)) * w->a.page;
	off_t off;
	void *p;

	w->what = "mmap";
	off = (off_t)(((uint64_t)pick_win_id(fw) << 32) & INT64_MAX);
	if (chance(15))
		off = (off_t)(pick_interesting() & ~(uint64_t)(w->a.page - 1) & INT64_MAX);
	p = mmap(NULL, len, PROT_READ | (chance(80) ? PROT_WRITE : 0),
		 chance(90) ? MAP_SHARED : MAP_PRIVATE, fd, off);
	if (p == MAP_FAILED) {
		int e = errno;

		BUMP(w->st->calls);
		if (e < NR_ERRNO)
			BUMP(w->st->by_errno[e]);
		if (e != EINVAL && e != ENOENT && e != ENODEV && e != EBADF &&
		    e != ENOMEM && e != EACCES && e != EOVERFLOW) {
			BUMP(w->st->unexpected);
			report(w, "mmap(len %zu, off %#llx): errno %d (%s)", len,
			       (unsigned long long)off, e, strerror(e));
		}
		return;
	}
	BUMP(w->st->calls);
	BUMP(w->st->by_errno[0]);
	/* the pages are there and zero or written: touching must not fault */
	*(volatile uint8_t *)p;
	if (fw && !fw->map && !fw->freed && chance(50)) {
		fw->map = p;
		fw->map_len = len;
	} else {
		munmap(p, len);
	}
}
