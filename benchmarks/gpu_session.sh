#!/bin/bash
# One device call that runs every check that needs a GPU (the device machine's tool, `run`):
#   run(command="bash benchmarks/gpu_session.sh", carry=[".gpu"], timeout_s=540)
# It expects wheels of libcst, flake8, pyflakes, pycodestyle and mccabe for the machine's Python in
# .gpu/wheels (the machine reaches no registry; the image has torch, pytest and pytest-xdist):
#   pip download -q --no-deps --python-version 3.12 --only-binary=:all: \
#       --platform manylinux2014_x86_64 libcst flake8 pyflakes pycodestyle mccabe -d .gpu/wheels
# and `echo /.gpu/ >> .git/info/exclude`. Writes to $OUT (or ./gpu-out): env.txt, cuda_tests.txt
# (tests/runtime_guard/test_rg_cuda.py), runtime_gpu.txt (benchmarks/runtime_gpu.py: paste its table
# into benchmarks/RUNTIME.md), rg_suite.txt (the rest of tests/runtime_guard, CPU paths, 16 workers).
set +e
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv > "$OUT/env.txt" 2>&1
python3 -m pip install -q --no-index --no-deps .gpu/wheels/*.whl >> "$OUT/env.txt" 2>&1
python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name())" >> "$OUT/env.txt" 2>&1
export PYTHONPATH=$PWD
timeout 120 python3 -m pytest -q -p no:cacheprovider -p no:benchmark -rA tests/runtime_guard/test_rg_cuda.py \
    > "$OUT/cuda_tests.txt" 2>&1; echo "rc $?" >> "$OUT/cuda_tests.txt"
timeout 150 python3 benchmarks/runtime_gpu.py > "$OUT/runtime_gpu.txt" 2>&1; echo "rc $?" >> "$OUT/runtime_gpu.txt"
# GPU_SUITE=0 skips the CPU-path suite (about 3-5 device minutes) when only the CUDA checks are wanted.
if [ "${GPU_SUITE:-1}" = 1 ]; then
    timeout 330 python3 -m pytest -q -p no:cacheprovider -p no:benchmark -n 16 --timeout 240 -rfE tests/runtime_guard \
        --ignore=tests/runtime_guard/test_rg_cuda.py > "$OUT/rg_suite.txt" 2>&1; echo "rc $?" >> "$OUT/rg_suite.txt"
fi
tail -n 3 "$OUT"/*.txt
