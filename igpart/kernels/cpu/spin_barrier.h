// A barrier for the threads of one OpenMP team that spins for a bounded time before it sleeps.
//
// The C++ module loads libgomp with OMP_WAIT_POLICY=PASSIVE: a thread that reaches an OpenMP
// barrier early sleeps at once, and the last one wakes it through the kernel. That costs tens of
// microseconds a barrier, which is what the synchronous sub-rounds of a small level spend their
// time on (64 sub-rounds of a few hundred rows, two or three barriers each, per pass). Spinning
// for a bounded time first (`spin_us`) meets the other threads within a microsecond or two when
// they come soon, and still sleeps (futex on Linux, yielding elsewhere) when they do not: a
// waiting thread spends at most `spin_us` of its core per barrier. On a machine shared with other
// work that is still more than it saves (the thread waited for needs the core a waiter spins
// on), so Louvain uses it only when asked (CpuBackend.community_barrier_spin_us).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace igp {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

class SpinBarrier {
  public:
    // For `threads` threads (set again with reset() by one thread while no one waits).
    explicit SpinBarrier(int threads = 1, int64_t spin_us = 0)
        : threads_(threads), spin_ns_(spin_us * 1000) {}

    void reset(int threads) { threads_ = threads; }

    // Returns once every thread of the team has called wait() for this round. Whatever a thread
    // wrote before its call is visible to every thread after theirs.
    void wait() {
        if (threads_ <= 1) return;
        const uint32_t round = round_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) == threads_ - 1) {
            arrived_.store(0, std::memory_order_relaxed);
            round_.store(round + 1, std::memory_order_seq_cst);
            if (sleepers_.load(std::memory_order_seq_cst) > 0) wake_all();
            return;
        }
        if (spin_ns_ > 0) {
            const auto start = std::chrono::steady_clock::now();
            for (int64_t i = 1;; ++i) {
                if (round_.load(std::memory_order_acquire) != round) return;
                cpu_relax();
                if ((i & 63) == 0 &&
                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                            .count() >= spin_ns_)
                    break;
            }
        }
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        while (round_.load(std::memory_order_seq_cst) == round) sleep_while(round);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }

  private:
    void sleep_while(uint32_t round) {
#if defined(__linux__)
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&round_), FUTEX_WAIT_PRIVATE, round,
                nullptr, nullptr, 0);
#else
        (void)round;
        std::this_thread::yield();
#endif
    }
    void wake_all() {
#if defined(__linux__)
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&round_), FUTEX_WAKE_PRIVATE, INT32_MAX,
                nullptr, nullptr, 0);
#endif
    }

    int threads_;
    int64_t spin_ns_;
    alignas(64) std::atomic<uint32_t> round_{0};
    alignas(64) std::atomic<int> arrived_{0};
    alignas(64) std::atomic<int> sleepers_{0};
};

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
              "the futex word is the atomic's value");

}  // namespace igp
