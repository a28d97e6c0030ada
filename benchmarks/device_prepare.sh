#!/usr/bin/env bash
# Prepares, on the development machine, what benchmarks/device_verify.sh needs on a GPU machine
# that reaches no package registry (Python 3.12 there): the wheels of igpart's dependencies that
# its Python lacks (.whl/) and the benchmark inputs (.carry/bench/, since ../shared does not
# travel; benchmarks/suite.py finds them there through IGPART_BENCHMARKS, which device_verify.sh
# sets). Both paths are git-ignored locally (.git/info/exclude). Run from the repository root.
set -euo pipefail
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || printf '/.whl/\n/.carry/\n' >> .git/info/exclude
mkdir -p .whl
PLAT=(--only-binary=:all: --python-version 3.12 --implementation cp
      --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any)
python3 -m pip download -q --no-deps "${PLAT[@]}" -d .whl pymetis mtkahypar kaminpar \
    hypothesis sortedcontainers tqdm lark sympy mpmath jinja2 markupsafe ply
# pyverilog and liberty-parser are published as sources only: build their (pure Python) wheels
python3 -m pip wheel -q --no-deps -w .whl pyverilog "liberty-parser>=0.0.29"
mkdir -p .carry/bench
cp -r ../shared/benchmarks/ispd98 ../shared/benchmarks/titan23 ../shared/benchmarks/tau2015 \
    .carry/bench/
ls .whl
