#!/usr/bin/env bash
# The GPU check of DEVELOPERS.md ("Running the suite on a GPU") as one script for a device
# machine: install without dependencies, list the backends, run benchmarks/bench_cuda.py,
# then every cuda-marked test on 16 pytest-xdist workers. Logs go to $OUT (or /tmp/gpu-check).
#
#   bash tools/gpu_check.sh                      # everything
#   TESTS=tests/test_fuzz.py BLOCKING=1 BENCH_S=0 bash tools/gpu_check.sh
#
# tools/gpu_isolate.py ends a worker whose test left a CUDA error (xdist starts a new one),
# so that one bad kernel does not fail every later test of that worker; BLOCKING=1 sets
# CUDA_LAUNCH_BLOCKING=1, so that the error is raised in the kernel's own test (slower).
set -u
export PYTHONUNBUFFERED=1 HYPOTHESIS_PROFILE=ci
[[ "${BLOCKING:-0}" == 1 ]] && export CUDA_LAUNCH_BLOCKING=1
L=${OUT:-/tmp/gpu-check}
mkdir -p "$L"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
{
    nvidia-smi -L
    python3 -m pip install -q --no-build-isolation --no-deps -e . -e backends/xp -e backends/cpu \
        -e backends/cuda -e backends/sparse -e backends/meta 2>&1 | grep -v WARNING | tail -5
    timeout 60 python3 -m tensorcore
} > "$L/env.txt" 2>&1
cat "$L/env.txt"
if [[ "${BENCH_S:-110}" != 0 ]]; then
    timeout -s INT -k 10 "${BENCH_S:-110}" python3 benchmarks/bench_cuda.py ${BENCH_ARGS:---quick} 2>&1 | tee "$L/bench.txt"
fi
# shellcheck disable=SC2086
timeout -s INT -k 20 "${TEST_S:-400}" python3 -m pytest -v -p no:cacheprovider -p no:benchmark \
    -p tools.gpu_isolate ${TESTS:-tests backends} -m cuda -n "${WORKERS:-16}" \
    --max-worker-restart=400 --timeout "${PER_TEST_S:-300}" --tb=short -rfE > "$L/cuda.log" 2>&1
echo "pytest exit status $?; passed: $(grep -ac ' PASSED ' "$L/cuda.log")"
grep -a "CUDA-ERROR-AFTER\|crashed while running" "$L/cuda.log" | head -40
grep -aE "^(FAILED|ERROR) " "$L/cuda.log" | sed 's/ - .*//; s/\[.*//' | sort | uniq -c | sort -rn | head -60
tail -3 "$L/cuda.log"
