// Definitions shared by jet.cu and jet_balance.cu (the Jet refinement kernels).
#pragma once

namespace {

// Slots of `stats` (_jet.py: L, GMIN, ... in the same order).
enum { JS_L = 0, JS_GMIN, JS_GMAX, JS_MOVED, JS_OBJ, JS_CHANGED, JS_TIER, JS_LBITS };

constexpr long long kI64Max = 0x7fffffffffffffffLL;  // no <cstdint> under NVRTC

// Words of one warp's tables: k gains (target parts), k connections, ceil(k / 64) words of the
// adjacency bit mask.
__device__ __forceinline__ long long jet_table_words(int k) { return 2LL * k + (k + 63) / 64; }

}  // namespace
