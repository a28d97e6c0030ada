#!/usr/bin/env bash
# One call on the GPU machine that checks and measures everything GPU-side (issues 4 and 6):
# builds the package, runs `pytest -m gpu`, the incremental GPU benchmark against a full GPU and
# CPU re-partition, and the GPU-vs-Mt-KaHyPar benchmark. Logs go to $OUT (or ./device_out).
#
# Preparation here (the device gets the repository only; ../shared does not travel):
#   printf '/.whl/\n/.carry/\n' >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d .whl pymetis mtkahypar
#   mkdir -p .carry/bench && cp -r ../shared/benchmarks/ispd98 ../shared/benchmarks/tau2015 .carry/bench/
# then, from the device tool: run(command="bash benchmarks/device_verify.sh", carry=[".whl", ".carry"])
set -uo pipefail
OUT=${OUT:-device_out}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
if [ -z "${IGPART_BENCHMARKS:-}" ] && [ -d .carry/bench ]; then
    export IGPART_BENCHMARKS=$PWD/.carry/bench
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -3 | tee "$OUT/build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
timeout 240 python3 -m pytest -q -m gpu -x -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
for obj in cut km1; do
    timeout 120 python3 benchmarks/incremental_gpu_bench.py --batches 200 --objective $obj \
        --full-backend gpu --json "$OUT/inc_gpu_$obj.json" 2>&1 | tee "$OUT/inc_gpu_$obj.log" | tail -6
done
timeout 300 python3 benchmarks/gpu_bench.py --inputs ibm01:200,ibm06:100,ibm09:100 --ks 2,16,64 \
    2>&1 | tee "$OUT/gpu_bench.log" | tail -30
