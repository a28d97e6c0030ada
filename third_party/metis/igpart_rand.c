/* igpart: a per-thread rand() / srand() for the METIS sources compiled into igpart's C++ module.
 *
 * GKlib (random.c, gk_macros.h) draws METIS's random numbers from the C library's rand(), one
 * state per process: two METIS calls on two threads would draw from each other's stream and
 * their partitions would depend on the timing. igpart compiles the METIS sources with
 * -Drand=igp_metis_rand -Dsrand=igp_metis_srand (setup.py), so every draw comes from here
 * instead: the same generator as glibc's rand() (its TYPE_3 additive feedback generator,
 * x[i] = x[i-3] + x[i-31], seeded as glibc's srandom seeds it), with one state per thread.
 * A METIS call seeds it on entry (InitRandom), so a call gives the blocks that the same call
 * gives through glibc's rand() in one thread (pymetis's build of the same sources:
 * tests/test_metis_native.py compares them), whatever runs on the other threads. */
#include <stdint.h>

#define IGP_DEG 31 /* glibc's TYPE_3: degree 31, separation 3 */
#define IGP_SEP 3

static __thread int32_t igp_state[IGP_DEG];
static __thread int igp_f = IGP_SEP, igp_r = 0, igp_seeded = 0;

static int32_t igp_next(void) {
    uint32_t val = (uint32_t)igp_state[igp_f] + (uint32_t)igp_state[igp_r];
    igp_state[igp_f] = (int32_t)val;
    if (++igp_f >= IGP_DEG) igp_f = 0;
    if (++igp_r >= IGP_DEG) igp_r = 0;
    return (int32_t)(val >> 1);
}

void igp_metis_srand(unsigned int seed) {
    int32_t word;
    int i;
    if (seed == 0) seed = 1;
    igp_state[0] = (int32_t)seed;
    word = (int32_t)seed; /* glibc's srandom_r: a 32-bit signed word */
    for (i = 1; i < IGP_DEG; ++i) {
        /* 16807 * word % 2147483647 without overflow (Schrage), as glibc computes it */
        long hi = word / 127773, lo = word % 127773;
        word = (int32_t)(16807 * lo - 2836 * hi);
        if (word < 0) word += 2147483647;
        igp_state[i] = word;
    }
    igp_f = IGP_SEP;
    igp_r = 0;
    for (i = 0; i < 10 * IGP_DEG; ++i) (void)igp_next();
    igp_seeded = 1;
}

int igp_metis_rand(void) {
    if (!igp_seeded) igp_metis_srand(1); /* the C library's state before any srand() */
    return (int)igp_next();
}
