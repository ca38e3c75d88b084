"""Target torch (shared/rules.md): findings whose remedy needs a newer torch than the project's
target are not reported, and such fixes are not offered; the target comes from the settings of
either front end or, by default, from the project's torch requirement."""

import subprocess
import sys
import textwrap

import pytest

from torchperf_lint.engine import fix_source, lint_source
from torchperf_lint.frontends import cli
from torchperf_lint.frontends.target_torch import TargetTorchError, from_dependencies, lower_bound, parse_version

AMP = textwrap.dedent("""\
    import torch
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast():
        pass
    """)
AUTOCAST = ('TPL304', 3, 5, '`torch.cuda.amp.autocast` is deprecated (FutureWarning since torch 2.4); '
            'use `torch.amp.autocast("cuda", ...)`', 'safe', 'use torch.amp.autocast("cuda", ...)')
SCALER = ('TPL304', 2, 9, '`torch.cuda.amp.GradScaler` is deprecated (FutureWarning since torch 2.4); '
          'use `torch.amp.GradScaler("cuda", ...)`', 'safe', 'use torch.amp.GradScaler("cuda", ...)')


def found(source, target, codes=None):
    return [(f.code, f.line, f.col, f.message, f.fix and f.fix.applicability, f.fix and f.fix.description)
            for f in lint_source(source, codes=codes, target_torch=target)]


# ---- the engine ---------------------------------------------------------------------------------

def test_tpl304_under_target_2_1_keeps_autocast_and_drops_the_scaler():
    assert found(AMP, None) == [SCALER, AUTOCAST]
    assert found(AMP, (2, 1)) == [AUTOCAST]
    assert found(AMP, (2, 3)) == [SCALER, AUTOCAST]
    assert found(AMP, (1, 9)) == []


def test_no_fix_writes_an_api_the_target_lacks():
    fixed, count = fix_source(AMP, target_torch=(2, 1))
    assert (fixed, count) == (AMP.replace("torch.cuda.amp.autocast()", 'torch.amp.autocast("cuda")'), 1)
    fixed, count = fix_source(AMP, target_torch=(2, 3))
    assert (fixed, count) == (AMP.replace("torch.cuda.amp.autocast()", 'torch.amp.autocast("cuda")')
                              .replace("torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")'), 2)


def test_custom_fwd_needs_2_4():
    source = "import torch\n@torch.cuda.amp.custom_fwd\ndef f(ctx, x):\n    return x\n"
    expected = [('TPL304', 2, 1, '`torch.cuda.amp.custom_fwd` is deprecated (FutureWarning since torch 2.4); '
                 'use `torch.amp.custom_fwd(device_type="cuda")`', 'safe', 'use torch.amp.custom_fwd(device_type="cuda")')]
    assert found(source, (2, 3)) == []
    assert found(source, (2, 4)) == expected


def test_an_import_moves_only_when_every_name_it_moves_exists():
    # Both names used: an imported name used nowhere may be a re-export, whose import is not
    # rewritten (analysis/fix_safety.py).
    source = ("import torch\nfrom torch.cuda.amp import autocast, GradScaler\nscaler = GradScaler()\n"
              "with autocast():\n    pass\n")
    message = ("`from torch.cuda.amp import ...` imports deprecated AMP APIs (FutureWarning since torch 2.4); "
               "import from `torch.amp` and pass the device at each use: `autocast(\"cuda\", ...)`, "
               "`GradScaler(\"cuda\", ...)`, `@custom_fwd(device_type=\"cuda\")`")
    assert found(source, (2, 2)) == []
    assert found(source, (2, 3)) == [("TPL304", 2, 0, message, "safe",
                                      "import from torch.amp and pass the device at every use")]
    only_autocast = "import torch\nfrom torch.cuda.amp import autocast\nwith autocast():\n    pass\n"
    assert [f[:3] for f in found(only_autocast, (2, 1))] == [("TPL304", 2, 0)]


def test_tpl206_needs_torchrun():
    source = "import torch\nimport argparse\np = argparse.ArgumentParser()\np.add_argument('--local_rank', type=int)\n"
    expected = [("TPL206", 4, 0, "`--local_rank` belongs to the deprecated `torch.distributed.launch`; launch "
                 "with `torchrun` and read `int(os.environ[\"LOCAL_RANK\"])`", None, None)]
    assert found(source, (1, 9)) == []
    assert found(source, (1, 10)) == expected


def test_tpl306_needs_set_float32_matmul_precision():
    source = textwrap.dedent("""\
        import torch
        model = torch.nn.Linear(2, 2).cuda()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
        """)
    assert [f[:3] for f in found(source, (1, 12), ["TPL306"])] == [("TPL306", 6, 4)]
    assert found(source, (1, 11), ["TPL306"]) == []


def test_tpl301_names_the_scaler_the_target_has():
    source = textwrap.dedent("""\
        import torch
        for x in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(x)
            loss.backward()
        """)
    new, old = found(source, None, ["TPL301"]), found(source, (2, 1), ["TPL301"])
    assert [f[:3] for f in new] == [f[:3] for f in old] == [("TPL301", 3, 9)]
    assert "`scaler = torch.amp.GradScaler(\"cuda\")`" in new[0][3]
    assert old[0][3] == new[0][3].replace(
        "`scaler = torch.amp.GradScaler(\"cuda\")`",
        "`scaler = torch.cuda.amp.GradScaler()` (the project's target torch predates torch.amp.GradScaler)")


# ---- reading the target -------------------------------------------------------------------------

@pytest.mark.parametrize("requirement, bound", [
    ("torch>=2.0,<2.3", (2, 0)), ("torch", None), ("torch<2.3", None), ("torch==2.1.0+cu118", (2, 1)),
    ("torch~=1.13.1", (1, 13)), ("Torch[opt] >= 1.12 ; python_version<'3.12'", (1, 12)), ("torch>2.2", (2, 2)),
    ("torch (>=1.13)", (1, 13)), ("torchvision>=0.15", None), ("torch-tb-profiler>=1.0", None),
    ("torch @ https://example.org/torch-2.1.whl", None), ("torch!=2.0.1", None),
])
def test_lower_bound(requirement, bound):
    assert lower_bound(requirement) == bound


def test_parse_version():
    assert [parse_version(v) for v in ("2.1", "2.1.2", "2", "2.4.0a0")] == [(2, 1), (2, 1), (2, 0), (2, 4)]
    with pytest.raises(TargetTorchError):
        parse_version("latest")


@pytest.mark.parametrize("files, target", [
    ({"pyproject.toml": '[project]\nname = "p"\ndependencies = ["numpy", "torch>=2.0,<2.3"]\n'}, (2, 0)),
    ({"setup.cfg": "[options]\ninstall_requires =\n    numpy\n    torch>=1.13\n"}, (1, 13)),
    ({"requirements.txt": "# pinned\n-r base.txt\ntorch==2.1.2  # cuda 12\n"}, (2, 1)),
    ({"requirements-dev.txt": "torch>=2.4\n", "requirements.txt": "torch>=2.2\n"}, (2, 2)),
    ({"pyproject.toml": '[project]\ndependencies = ["torch>=2.4"]\n', "requirements.txt": "torch>=2.1\n"}, (2, 1)),
    ({"pyproject.toml": '[project]\ndependencies = ["torch"]\n'}, None),
    ({"pyproject.toml": '[project]\ndependencies = ["torchvision>=0.15"]\n'}, None),
    ({}, None),
])
def test_target_from_each_dependency_source(tmp_path, files, target):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert from_dependencies(str(tmp_path)) == target


# ---- the front ends -----------------------------------------------------------------------------

@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "train.py").write_text(AMP)
    monkeypatch.chdir(root)
    monkeypatch.setenv(cli.CACHE_ENV, str(tmp_path / "cache"))
    return root


def run_cli(capsys, *args):
    capsys.readouterr()
    code = cli.main(["check", "--jobs", "1", "--output-format", "pylint", *args])
    out, err = capsys.readouterr()
    return code, out, err


def run_flake8(cwd, *args):
    done = subprocess.run([sys.executable, "-m", "flake8", "--select=TPL", *args, "train.py"],
                          cwd=cwd, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


BOTH = ('train.py:2: [TPL304] `torch.cuda.amp.GradScaler` is deprecated (FutureWarning since torch 2.4); '
        'use `torch.amp.GradScaler("cuda", ...)`\n'
        'train.py:3: [TPL304] `torch.cuda.amp.autocast` is deprecated (FutureWarning since torch 2.4); '
        'use `torch.amp.autocast("cuda", ...)`\n')
ONLY_AUTOCAST = BOTH.split("\n", 1)[1]
FLAKE8_BOTH = ('train.py:2:10: TPL304 `torch.cuda.amp.GradScaler` is deprecated (FutureWarning since torch 2.4); '
               'use `torch.amp.GradScaler("cuda", ...)`\n'
               'train.py:3:6: TPL304 `torch.cuda.amp.autocast` is deprecated (FutureWarning since torch 2.4); '
               'use `torch.amp.autocast("cuda", ...)`\n')
FLAKE8_ONLY_AUTOCAST = FLAKE8_BOTH.split("\n", 1)[1]


def test_cli_and_flake8_read_the_target_from_the_dependencies(project, capsys):
    assert run_cli(capsys)[:2] == (1, BOTH)
    assert run_flake8(project) == FLAKE8_BOTH
    (project / "requirements.txt").write_text("torch>=2.1,<2.3\n")
    assert run_cli(capsys)[:2] == (1, ONLY_AUTOCAST)  # the cache follows the requirement
    assert run_flake8(project) == FLAKE8_ONLY_AUTOCAST
    (project / "requirements.txt").write_text("torch>=2.3\n")
    assert run_cli(capsys)[:2] == (1, BOTH)
    assert run_flake8(project) == FLAKE8_BOTH


def test_settings_override_the_dependencies(project, capsys):
    (project / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["torch>=2.4"]\n'
                                            '[tool.torchperf-lint]\ntarget-torch = "2.1"\n')
    assert run_cli(capsys)[:2] == (1, ONLY_AUTOCAST)
    assert run_cli(capsys, "--target-torch", "2.4")[:2] == (1, BOTH)
    (project / "setup.cfg").write_text("[flake8]\ntpl-target-torch = 2.1\n")
    assert run_flake8(project) == FLAKE8_ONLY_AUTOCAST
    assert run_flake8(project, "--tpl-target-torch=2.3") == FLAKE8_BOTH


def test_the_cli_reads_flake8s_setting_without_a_pyproject_table(project, capsys):
    (project / "setup.cfg").write_text("[flake8]\ntpl-target-torch = 2.1\n")
    assert run_cli(capsys)[:2] == (1, ONLY_AUTOCAST)


def test_a_bad_target_is_a_usage_error(project, capsys):
    code, out, err = run_cli(capsys, "--target-torch", "newest")
    assert (code, out, err) == (2, "", "torchperf-lint: error: --target-torch: target-torch must be a torch "
                                       "version such as \"2.1\", not 'newest'\n")
    for value in ('["2.1"]', "2.10"):  # a number is refused: 2.10 would read as 2.1
        (project / "pyproject.toml").write_text(f'[tool.torchperf-lint]\ntarget-torch = {value}\n')
        code, out, err = run_cli(capsys)
        assert (code, out) == (2, "")
        assert err == (f"torchperf-lint: error: {project / 'pyproject.toml'}: `target-torch` must be a version "
                       "string such as \"2.1\"\n")


def test_fix_under_the_target(project, capsys):
    (project / "requirements.txt").write_text("torch>=2.1\n")
    capsys.readouterr()
    assert cli.main(["check", "--jobs", "1", "--fix", "--quiet"]) == 0
    assert (project / "train.py").read_text() == AMP.replace("torch.cuda.amp.autocast()", 'torch.amp.autocast("cuda")')


def test_a_bad_flake8_target_is_a_usage_error(project):
    for args, config in ((["--tpl-target-torch=newest"], None), ([], "[flake8]\ntpl-target-torch = newest\n")):
        if config:
            (project / "setup.cfg").write_text(config)
        done = subprocess.run([sys.executable, "-m", "flake8", "--select=TPL", *args, "train.py"],
                              cwd=project, capture_output=True, text=True)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr.endswith("flake8: error: argument --tpl-target-torch: target-torch must be a torch "
                                    "version such as \"2.1\", not 'newest'\n")


def test_rule_json_names_the_floors(capsys):
    import json

    capsys.readouterr()
    assert cli.main(["rule", "TPL304", "--output-format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["needs_torch"] == {
        "torch.amp.autocast": "1.10", "torch.amp.GradScaler": "2.3", "torch.amp.custom_fwd": "2.4",
        "torch.amp.custom_bwd": "2.4"}
    assert cli.main(["rule", "TPL101", "--output-format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["needs_torch"] == {}
