#!/usr/bin/env bash
# One call on the GPU machine that checks and measures everything GPU-side (the GPU backend and
# the GPU incremental engine):
# builds the package, runs `pytest -m gpu`, the incremental GPU benchmark against a full GPU and
# CPU re-partition, and the GPU-vs-Mt-KaHyPar benchmark. Logs go to $OUT (or ./device_out).
#
# Preparation here (the device gets the repository only; ../shared does not travel, and the
# device reaches no package registry): bash benchmarks/device_prepare.sh
# then, from the device tool: run(command="bash benchmarks/device_verify.sh", carry=[".whl", ".carry"])
# STAGES (default "tests,inc,bench,cpu") picks the parts to run, e.g. STAGES=tests,inc; TESTS
# limits pytest to the given files; BENCH_ARGS replaces the gpu_bench.py arguments; the stage
# "suite" (not in the default) runs benchmarks/suite.py with SUITE_ARGS (default: small, GPU
# backend and Mt-KaHyPar, 16 threads) within SUITE_TIMEOUT seconds (default 540); the stage
# "budget" (not in the default either) runs benchmarks/budget_partition_bench.py with BUDGET_ARGS
# (default: ibm10 enlarged 29 times as in the large suite, k = 8, budgets footprint/4 and /16). The device's
# copy has no .git: pass the commit measured as IGPART_COMMIT=$(git rev-parse --short HEAD).
set -uo pipefail
OUT=${OUT:-device_out}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
# CuPy's kernel cache from an earlier call (the modules take ~40 s to compile on a fresh machine):
# carry .carry/cupy_cache.tgz, which every call leaves under $OUT for the next one
if [ -f .carry/cupy_cache.tgz ]; then mkdir -p ~/.cupy && tar xzf .carry/cupy_cache.tgz -C ~/.cupy; fi
trap 'tar czf "$OUT/cupy_cache.tgz" -C ~/.cupy kernel_cache 2>/dev/null' EXIT
if [ -z "${IGPART_BENCHMARKS:-}" ] && [ -d .carry/bench ]; then
    export IGPART_BENCHMARKS=$PWD/.carry/bench
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -3 | tee "$OUT/build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
STAGES=${STAGES:-tests,inc,bench,cpu}
if [[ ,$STAGES, == *,tests,* ]]; then
    # shellcheck disable=SC2086
    timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider --durations=15 ${TESTS:-} 2>&1 \
        | tee "$OUT/gpu_tests.log" | tail -40
fi
if [[ ,$STAGES, == *,inc,* ]]; then
    for obj in cut km1; do
        timeout 120 python3 benchmarks/incremental_gpu_bench.py --batches 200 --objective $obj \
            --full-backend gpu --json "$OUT/inc_gpu_$obj.json" 2>&1 | tee "$OUT/inc_gpu_$obj.log" | tail -8
    done
fi
if [[ ,$STAGES, == *,bench,* ]]; then
    # shellcheck disable=SC2086
    timeout 400 python3 benchmarks/gpu_bench.py ${BENCH_ARGS:---inputs ibm01:200,ibm09:100 --ks 2,16,64 --repeat 2} \
        --json "$OUT/gpu_bench.json" 2>&1 | tee "$OUT/gpu_bench.log" | tail -40
fi
if [[ ,$STAGES, == *,cpu,* ]]; then  # GPU vs the C++ backend on ibm01-09
    timeout 300 python3 benchmarks/gpu_bench.py --mode cpu --ks 2,8,64 \
        --json "$OUT/gpu_vs_cpu.json" 2>&1 | tee "$OUT/gpu_vs_cpu.log" | tail -8
fi
if [[ ,$STAGES, == *,budget,* ]]; then  # full partitions under a device memory budget
    # shellcheck disable=SC2086
    timeout "${BUDGET_TIMEOUT:-480}" python3 benchmarks/budget_partition_bench.py \
        ${BUDGET_ARGS:---input ibm10:29 --k 8 --divisors 4 16 --repeats 3} \
        --json "$OUT/budget_partition.json" 2>&1 | tee "$OUT/budget_partition.log" | tail -20
fi
if [[ ,$STAGES, == *,suite,* ]]; then  # the benchmark suite (its JSON is rewritten per input)
    # shellcheck disable=SC2086
    timeout "${SUITE_TIMEOUT:-540}" python3 benchmarks/suite.py \
        ${SUITE_ARGS:---suite small --backend gpu --threads 16 --tools igpart,mtkahypar} \
        --json "$OUT/suite.json" --md "$OUT/suite.md" 2>&1 | tee "$OUT/suite.log" | tail -80
fi
