"""What the CLI imports when it has nothing to lint: a run whose files are all in the finding cache
reports them without importing libcst or the project index (their import is most of the start-up
of a run that lints: benchmarks/cli_latency.py)."""

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""\
    import json, sys
    from torchperf_lint.frontends.cli import main
    code = main(sys.argv[1:])
    heavy = sorted(m for m in ("libcst", "torchperf_lint.engine", "torchperf_lint.analysis.project_index")
                   if m in sys.modules)
    print(json.dumps({"code": code, "heavy": heavy}))
    """)


def run(tmp_path, *args):
    out = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=str(tmp_path), capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_a_run_served_from_the_cache_imports_no_linter(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "one"\n', encoding="utf-8")
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import torch


        def train(model, loader, optimizer):
            for x, y in loader:
                loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                print(loss.item())
        """), encoding="utf-8")
    first = run(tmp_path, "check", "train.py")
    assert first["code"] == 1 and "libcst" in first["heavy"]  # linted: the engine ran
    again = run(tmp_path, "check", "train.py")
    assert again == {"code": 1, "heavy": []}  # same findings (exit code), from the cache
    (tmp_path / "train.py").write_text("import torch\n", encoding="utf-8")
    changed = run(tmp_path, "check", "train.py")
    assert changed["code"] == 0 and "torchperf_lint.analysis.project_index" in changed["heavy"]
