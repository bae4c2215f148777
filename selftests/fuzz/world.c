// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a worker's world.  Its random numbers (splitmix64, one stream per
 * worker), the errno contract every answer is held to, the memory it hands
 * the kernel (good, read-only, guarded, gone), the mutation of argument
 * structs, and the picking of fds and windows.
 */
#include "fuzz.h"

/* ---- random numbers: splitmix64, one stream per worker ---- */

__thread uint64_t rng;
/* What this thread is calling, for a crash report. */
__thread const char *crash_what;

uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/* Values that find boundary bugs: limits, signs, pages, powers of two. */
static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 32, 63, 64, 127, 128, 255, 256,
	1023, 1024, 1025, 4095, 4096, 4097, 8192, 0x7fff, 0x8000, 0xffff,
	0x10000, 0x10001, 65536 + 1, 1U << 20, (1U << 20) + 1,
	0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ULL,
	0x100000001ULL, 1ULL << 40, 1ULL << 47, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, 0xfffffffffffff000ULL, 0xfffffffffffffffeULL,
	0xffffffffffffffffULL, 0xffff888000000000ULL, 0xffffffff81000000ULL,
};

uint64_t pick_interesting(void)
{
	uint64_t v = interesting[below(MT_ARRAY_SIZE(interesting))];

	/* sometimes a neighbour, or a random value of the same magnitude */
	switch (below(6)) {
	case 0:
		return v - 1;
	case 1:
		return v + 1;
	case 2:
		return v ? rnd() % v : rnd();
	default:
		return v;
	}
}



void report(struct worker *w, const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct worker_stats *st = w->st;
	va_list ap;

	pthread_mutex_lock(&lock);
	if (st->nreports < MAX_REPORTS) {
		va_start(ap, fmt);
		vsnprintf(st->reports[st->nreports].text, sizeof(st->reports[0].text),
			  fmt, ap);
		va_end(ap);
		st->nreports++;
	}
	pthread_mutex_unlock(&lock);
}

/* ---- the errno contract ---- */

/* What any mpirma ioctl may return (mpirma_uapi.h), plus the fd's own. */
bool errno_documented(int e)
{
	switch (e) {
	case ENOTTY: case E2BIG: case EINVAL: case EOPNOTSUPP: case ENOENT:
	case ENXIO: case ERANGE: case EOVERFLOW: case EFAULT: case ENOMEM:
	case EOWNERDEAD: case EBUSY: case EDEADLK: case ENOLCK: case EAGAIN:
	case EINTR:
	/* a closed fd or fd number; out of fds for a new job or member */
	case EBADF: case EMFILE: case ENFILE:
		return true;
	default:
		return false;
	}
}

void account(struct worker *w, int ret, int err)
{
	BUMP(w->st->calls);
	if (ret == 0) {
		BUMP(w->st->by_errno[0]);
		return;
	}
	if (ret < 0 && err > 0 && err < NR_ERRNO)
		BUMP(w->st->by_errno[err]);
	if (ret > 0 || !errno_documented(err)) {
		BUMP(w->st->unexpected);
		report(w, "%s: returned %d, errno %d (%s)", w->what, ret, err,
		       strerror(err));
	}
}

/* One ioctl, accounted; -errno or 0. */
int fz_ioctl(struct worker *w, int fd, unsigned long cmd, void *arg)
{
	int ret, err;

	crash_what = w->what;
	ret = ioctl(fd, cmd, arg);
	err = ret < 0 ? errno : 0;

	account(w, ret, err);
	return ret < 0 ? -err : ret;
}

/* ---- memory ---- */

int arena_init(struct arena *a)
{
	size_t i;

	void *res;

	a->page = sysconf(_SC_PAGESIZE);
	res = mmap(area(-SCRATCH_HALF), 2 * SCRATCH_HALF, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (res != area(-SCRATCH_HALF))
		return -ENOMEM;
	a->rw = area(AREA_RW);
	a->guard = a->rw + ARENA_LEN;
	a->ro = area(AREA_RO);
	a->gone = area(AREA_GONE);
	a->ops = area(AREA_OPS);
	if (scratch_map(a->rw, ARENA_LEN, PROT_READ | PROT_WRITE) ||
	    scratch_map(a->ro, a->page, PROT_READ) ||
	    scratch_map(a->ops, OPS_LEN, PROT_READ | PROT_WRITE))
		return -ENOMEM;
	for (i = 0; i < ARENA_LEN; i += 8) {
		uint64_t v = rnd();

		memcpy(a->rw + i, &v, 8);
	}
	return 0;
}

/* @len bytes of good memory somewhere in the arena (len <= ARENA_LEN / 2). */
uint8_t *arena_good(struct arena *a, size_t len)
{
	if (len > ARENA_LEN / 2)
		len = ARENA_LEN / 2;
	return a->rw + below(ARENA_LEN - len + 1);
}

/* A user address for @len bytes: good mostly, else every kind of bad. */
uint64_t pick_ptr(struct arena *a, size_t len, unsigned int bad_pct)
{
	if (!chance(bad_pct))
		return (uintptr_t)arena_good(a, len);
	switch (below(9)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)a->ro;
	case 2:
		return (uintptr_t)a->gone;
	case 3:		/* the end runs into the PROT_NONE page */
		return (uintptr_t)(a->guard - (len > 1 ? len / 2 : 0));
	case 4:
		return 0xffff888000000000ULL;	/* kernel direct map */
	case 5:
		return 0x0000800000000000ULL;	/* non-canonical */
	case 6:
		return (uintptr_t)a->rw + 1;	/* misaligned, still good */
	case 7:
		return 0xfffffffffffff000ULL;
	default:
		return pick_interesting();
	}
}

/* ---- mutation of an argument struct ---- */

/*
 * Mutate @buf, a struct of @len bytes inside a buffer of at least
 * len + 64 zeroed bytes: one to three changes, each an interesting value
 * in a field-aligned slot, a flipped bit, a new size or a non-zero tail.
 */
void mutate(uint8_t *buf, size_t len)
{
	unsigned int k, n = 1 + below(3);
	uint32_t size;

	for (k = 0; k < n; k++) {
		size_t off = below(len / 4) * 4;
		uint64_t v = pick_interesting();

		switch (below(6)) {
		case 0:
		case 1:
			memcpy(buf + off, &v, 4);
			break;
		case 2:
			off &= ~(size_t)7;
			if (off + 8 <= len)
				memcpy(buf + off, &v, 8);
			break;
		case 3:
			buf[below(len)] ^= 1U << below(8);
			break;
		case 4:		/* the size field */
			switch (below(6)) {
			case 0: size = below(len); break;
			case 1: size = len + 8 * (1 + below(7)); break;
			case 2: size = 4096; break;
			case 3: size = 4097 + below(1 << 20); break;
			case 4: size = 0; break;
			default: size = (uint32_t)pick_interesting(); break;
			}
			memcpy(buf, &size, 4);
			break;
		default:	/* a tail the kernel does not know */
			buf[len + below(64)] = 1 + below(255);
			size = len + 64;
			memcpy(buf, &size, 4);
			break;
		}
	}
}

/* ---- picking fds and windows ---- */

int pick_member(struct worker *w, int *jobp, int *rankp)
{
	unsigned int tries;

	for (tries = 0; tries < 16; tries++) {
		int j = below(MAX_JOBS), r = below(MAX_RANKS);

		if (w->jobs[j].mfd[r] >= 0) {
			*jobp = j;
			*rankp = r;
			return w->jobs[j].mfd[r];
		}
	}
	return -1;
}

/* An fd for a command meant for @want: the right kind mostly. */
int pick_fd(struct worker *w, int want)
{
	int j = below(MAX_JOBS), r;

	if (want >= 0 && !chance(12))
		return want;
	switch (below(6)) {
	case 0:
		return w->dev;
	case 1:
		return w->jobs[j].jfd;
	case 2:
		return pick_member(w, &j, &r);
	case 3:
		return w->devnull;
	case 4:
		return 1000;		/* never open */
	default:
		return want;
	}
}

struct fz_win *pick_win(struct worker *w)
{
	unsigned int tries;

	for (tries = 0; tries < 8; tries++) {
		struct fz_win *fw = &w->wins[below(MAX_WINS)];

		if (fw->used)
			return fw;
	}
	return NULL;
}

/* A window id: a known window's (live or freed) or a random one. */
uint32_t pick_win_id(struct fz_win *fw)
{
	if (fw && !chance(10))
		return fw->id;
	return chance(50) ? below(40) : (uint32_t)pick_interesting();
}

/* The member fd a window was made on, or another one sometimes. */
int win_fd(struct worker *w, struct fz_win *fw)
{
	int j, r;

	if (fw && !chance(10) && w->jobs[fw->job].mfd[fw->rank] >= 0)
		return w->jobs[fw->job].mfd[fw->rank];
	return pick_member(w, &j, &r);
}
