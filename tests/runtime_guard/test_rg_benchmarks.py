"""The benchmarks run (CPU path, tiny sizes) and the guard's overhead stays small."""
import os

from _rg_helpers import ROOT, run_python


def test_runtime_gpu_benchmark_cpu_path():
    script = os.path.join(ROOT, "benchmarks", "runtime_gpu.py")
    proc = run_python(f"import runpy, sys; sys.argv = [{script!r}, '--quick']; "
                      f"runpy.run_path({script!r}, run_name='__main__')", RUNTIME_GUARD="off")
    out = proc.stdout
    assert "device: CPU" in out
    for case in ("creation", "sync .item()", "amp conv net", "amp transformer", "DataParallel"):
        assert case in out, out
    # The guard did its work inside the benchmark: device-native creation was learned.
    assert "TPL101" in proc.stderr and "fixed" in proc.stderr


def test_runtime_overhead_benchmark_runs():
    script = os.path.join(ROOT, "benchmarks", "runtime_overhead.py")
    proc = run_python(f"import runpy, sys; sys.argv = [{script!r}, '--steps', '20', '--rounds', "
                      f"'3', '--width', '32']; runpy.run_path({script!r}, run_name='__main__')")
    assert "overhead:" in proc.stdout


def test_runtime_amp_parts_benchmark_cpu_path():
    script = os.path.join(ROOT, "benchmarks", "runtime_amp_parts.py")
    proc = run_python(f"import runpy, sys; sys.argv = [{script!r}, '--quick']; "
                      f"runpy.run_path({script!r}, run_name='__main__')", timeout=300,
                      RUNTIME_GUARD="off")
    out = proc.stdout
    assert "device: CPU" in out
    for variant in ("fp32", "fp16, no scaling", "guard, amp fix only", "guard, all fixes",
                    "guard, all but sync_report", "guard, all but amp", "hand-written GradScaler"):
        assert variant in out, out
    for model in ("conv net", "transformer (small)", "transformer (d=512, 6 layers)"):
        assert model in out, out
