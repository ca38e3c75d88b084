"""A fix is "safe" only where the conditions that make it safe are checked (issue 21): each case
where the plain fix would change behaviour is run for real where a CPU can show it (the original
works, the fix would break it), and the linter is shown not to offer that fix as safe."""

import importlib
import sys
import textwrap
import warnings

import pytest
import torch

from torchperf_lint.catalog import SAFE, UNSAFE
from torchperf_lint.engine import fix_source, lint_source
from torchperf_lint.findings import Edit, Finding, Fix

from _diagnostics import PINNED_COPY as TPL104_MESSAGE, UNPINNED_LOADER as TPL502_MESSAGE

TPL304_IMPORT = ("`from torch.cuda.amp import ...` imports deprecated AMP APIs (FutureWarning since torch 2.4); "
                 "import from `torch.amp` and pass the device at each use: `autocast(\"cuda\", ...)`, "
                 "`GradScaler(\"cuda\", ...)`, `@custom_fwd(device_type=\"cuda\")`")


def _run(source: str, name: str):
    namespace = {}
    exec(compile(source, "<program>", "exec"), namespace)
    return namespace[name]


# ---- TPL104: a batch class of the project whose .to() takes no non_blocking ---------------------

CUSTOM_BATCH = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader


    class Batch:
        def __init__(self, x):
            self.x = x

        def to(self, device):
            return Batch(self.x.to(device))


    def collate(items):
        return Batch(torch.stack(items))


    def train(model, data, device):
        loader = DataLoader(data, batch_size=2, num_workers=0, collate_fn=collate, pin_memory=True)
        total = 0.0
        for batch in loader:
            batch = batch.to(device)
            loss = model(batch.x).sum()
            loss.backward()
            total += loss.detach()
        return total
""")
NARROW_DESCRIPTION = ("add non_blocking=True (unsafe: the module defines `Batch.to(self, device)`, which takes no "
                      "non_blocking; if the batch is one, the call raises TypeError)")


def _train_inputs():
    torch.manual_seed(0)
    return torch.nn.Linear(3, 1), [torch.randn(3) for _ in range(4)]


def test_tpl104_custom_batch_class_fix_is_unsafe_and_would_raise():
    findings = [f for f in lint_source(CUSTOM_BATCH, codes=["TPL104"])]
    assert findings == [Finding("TPL104", 21, 16, TPL104_MESSAGE, 21, 32,
                                Fix(UNSAFE, NARROW_DESCRIPTION, (Edit(21, 31, 21, 31, ", non_blocking=True"),)))]
    assert fix_source(CUSTOM_BATCH, codes=["TPL104"]) == (CUSTOM_BATCH, 0)  # --fix leaves it
    unsafe, count = fix_source(CUSTOM_BATCH, codes=["TPL104"], unsafe=True)
    assert count == 1 and "batch.to(device, non_blocking=True)" in unsafe
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pin_memory without an accelerator
        model, data = _train_inputs()
        original = _run(CUSTOM_BATCH, "train")(model, data, "cpu")
        assert torch.isfinite(original)
        model, data = _train_inputs()
        with pytest.raises(TypeError, match="non_blocking"):
            _run(unsafe, "train")(model, data, "cpu")


@pytest.mark.parametrize("signature", ["self, device, non_blocking=False", "self, *args, **kwargs"])
def test_tpl104_batch_class_that_takes_non_blocking_keeps_the_safe_fix(signature):
    source = CUSTOM_BATCH.replace("def to(self, device):", f"def to({signature}):").replace(
        "Batch(self.x.to(device))", "self")
    (finding,) = lint_source(source, codes=["TPL104"])
    assert finding.fix == Fix(SAFE, "add non_blocking=True", (Edit(21, 31, 21, 31, ", non_blocking=True"),))
    fixed, count = fix_source(source, codes=["TPL104"])
    assert count == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, data = _train_inputs()
        expected = _run(source, "train")(model, data, "cpu")
        model, data = _train_inputs()
        assert torch.equal(_run(fixed, "train")(model, data, "cpu"), expected)


# ---- TPL104: copies issued on a side stream --------------------------------------------------------

SIDE_STREAM = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader

    loader = DataLoader(ds, batch_size=4, num_workers=2, pin_memory=True)
    side = torch.cuda.Stream()
    for x in loader:
        with torch.cuda.stream(side):
            x = x.to("cuda")
    {wait}
        model(x).sum().backward()
""")
STREAM_DESCRIPTION = ("add non_blocking=True (unsafe: a side stream takes part and nothing waits for the copy; "
                      "another stream could read the tensor before it arrives)")


@pytest.mark.parametrize("opening", ["with torch.cuda.stream(side):", "with side:"])
def test_tpl104_copy_on_a_side_stream_without_a_wait_is_unsafe(opening):
    source = SIDE_STREAM.format(wait="").replace("with torch.cuda.stream(side):", opening)
    assert lint_source(source, codes=["TPL104"]) == [
        Finding("TPL104", 8, 12, TPL104_MESSAGE, 8, 24,
                Fix(UNSAFE, STREAM_DESCRIPTION, (Edit(8, 23, 8, 23, ", non_blocking=True"),)))]
    assert fix_source(source, codes=["TPL104"]) == (source, 0)


def test_tpl104_copy_consumed_on_a_side_stream_without_a_wait_is_unsafe():
    source = textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader

        loader = DataLoader(ds, batch_size=4, num_workers=2, pin_memory=True)
        side = torch.cuda.Stream()
        for x in loader:
            x = x.to("cuda")
            with torch.cuda.stream(side):
                model(x).sum().backward()
    """)
    assert lint_source(source, codes=["TPL104"]) == [
        Finding("TPL104", 7, 8, TPL104_MESSAGE, 7, 20,
                Fix(UNSAFE, STREAM_DESCRIPTION, (Edit(7, 19, 7, 19, ", non_blocking=True"),)))]


def test_tpl104_copy_on_a_side_stream_that_is_waited_for_is_safe():
    source = SIDE_STREAM.format(wait="    torch.cuda.current_stream().wait_stream(side)")
    assert lint_source(source, codes=["TPL104"]) == [
        Finding("TPL104", 8, 12, TPL104_MESSAGE, 8, 24,
                Fix(SAFE, "add non_blocking=True", (Edit(8, 23, 8, 23, ", non_blocking=True"),)))]


# ---- TPL502: datasets that return device tensors, MPS, CUDA_VISIBLE_DEVICES ----------------------

DEVICE_DATASET = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader, Dataset


    class OnDevice(Dataset):
        def __init__(self, device):
            self.device = device

        def __len__(self):
            return 4

        def __getitem__(self, index):
            return torch.full((3,), float(index)).to(self.device)


    def train(model, device):
        loader = DataLoader(OnDevice(device), batch_size=2)
        total = 0.0
        for x in loader:
            total += model(x.cuda() if device == "cuda" else x).sum().detach()
        return total
""")


def test_tpl502_dataset_returning_device_tensors_gets_no_fix():
    assert lint_source(DEVICE_DATASET, codes=["TPL502"]) == [
        Finding("TPL502", 17, 13, TPL502_MESSAGE, 17, 55, None)]
    assert fix_source(DEVICE_DATASET, codes=["TPL502"], unsafe=True) == (DEVICE_DATASET, 0)


def test_tpl502_dataset_that_moves_its_data_in_another_method_gets_no_fix():
    source = DEVICE_DATASET.replace(
        "self.device = device", "self.data = torch.arange(12.0).view(4, 3)\n\n    def place(self, device):\n"
                                "        self.data = self.data.to(device)").replace(
        "torch.full((3,), float(index)).to(self.device)", "self.data[index]")
    # (the detection already leaves this loader out; either way no pin fix is offered)
    assert [f.fix for f in lint_source(source, codes=["TPL502"]) if f.fix is not None] == []
    assert fix_source(source, codes=["TPL502"], unsafe=True) == (source, 0)


def test_tpl502_other_dataset_in_a_module_with_a_device_dataset_keeps_the_fix():
    source = DEVICE_DATASET.replace("DataLoader(OnDevice(device), batch_size=2)",
                                    "DataLoader(torch.utils.data.TensorDataset(torch.ones(4, 3)), batch_size=2)")
    (finding,) = lint_source(source, codes=["TPL502"])
    assert finding.fix is not None and finding.fix.applicability == SAFE


MPS_ONLY = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader

    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    loader = DataLoader(ds, batch_size=32)
    for x in loader:
        x = x.to(device)
""")


def test_tpl502_mps_only_script_gets_no_fix():
    assert lint_source(MPS_ONLY, codes=["TPL502"]) == [Finding("TPL502", 5, 9, TPL502_MESSAGE, 5, 38, None)]
    cuda = MPS_ONLY.replace('"mps" if torch.backends.mps.is_available()', '"cuda" if torch.cuda.is_available()')
    (finding,) = lint_source(cuda, codes=["TPL502"])
    assert finding.fix == Fix(SAFE, "pass pin_memory=torch.cuda.is_available()",
                              (Edit(5, 37, 5, 37, ", pin_memory=torch.cuda.is_available()"),))


VISIBLE_DEVICES = textwrap.dedent("""\
    import os
    import torch
    from torch.utils.data import DataLoader

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


    def main(gpu):
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu
        loader = DataLoader(ds, batch_size=32, num_workers=2)
        for x in loader:
            x = x.to(device)
""")


@pytest.mark.parametrize("setting", [
    'os.environ["CUDA_VISIBLE_DEVICES"] = gpu',
    'os.environ.setdefault("CUDA_VISIBLE_DEVICES", gpu)',
    'os.environ.update({"CUDA_VISIBLE_DEVICES": gpu})',
])
def test_tpl502_no_is_available_check_where_cuda_visible_devices_is_set_later(setting):
    source = VISIBLE_DEVICES.replace('os.environ["CUDA_VISIBLE_DEVICES"] = gpu', setting)
    assert lint_source(source, codes=["TPL502"]) == [Finding("TPL502", 10, 13, TPL502_MESSAGE, 10, 57, None)]
    assert fix_source(source, codes=["TPL502"], unsafe=True) == (source, 0)


def test_tpl502_cuda_visible_devices_set_first_at_module_level_keeps_the_fix():
    source = textwrap.dedent("""\
        import os
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        import torch
        from torch.utils.data import DataLoader

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        loader = DataLoader(ds, batch_size=32)
        for x in loader:
            x = x.to(device)
    """)
    (finding,) = lint_source(source, codes=["TPL502"])
    assert finding.fix == Fix(SAFE, "pass pin_memory=torch.cuda.is_available()",
                              (Edit(7, 37, 7, 37, ", pin_memory=torch.cuda.is_available()"),))


# ---- TPL304: a module that re-exports autocast -----------------------------------------------------

USER = textwrap.dedent("""\
    import torch
    from {compat} import autocast


    def forward(x):
        with autocast(enabled=False):
            return x * 2
""")


def _import(tmp_path, monkeypatch, name: str, source: str):
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return importlib.import_module(name)


@pytest.mark.parametrize("compat", [
    "import torch\nfrom torch.cuda.amp import autocast\n",                        # imported, never used here
    "import torch\nfrom torch.cuda.amp import autocast as autocast\n",            # the re-export idiom
    ("import torch\nfrom torch.cuda.amp import autocast\n__all__ = ['autocast', 'helper']\n\n\n"
     "def helper(x):\n    with autocast():\n        return x\n"),                     # listed in __all__
    ("import torch\nfrom torch.cuda.amp import autocast\nif torch.__version__:\n    __all__ = ['autocast']\n\n\n"
     "def helper(x):\n    with autocast():\n        return x\n"),                     # an __all__ set under an if
])
def test_tpl304_re_exporting_module_is_not_rewritten(compat, tmp_path, monkeypatch):
    assert lint_source(compat, codes=["TPL304"]) == [Finding("TPL304", 2, 0, TPL304_IMPORT, 2,
                                                             len(compat.splitlines()[1]), None)]
    assert fix_source(compat, codes=["TPL304"], unsafe=True) == (compat, 0)
    name = f"amp_compat_{abs(hash(compat))}"
    _import(tmp_path, monkeypatch, name, compat)
    user = _import(tmp_path, monkeypatch, f"user_of_{name}", USER.format(compat=name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert torch.equal(user.forward(torch.ones(2)), torch.full((2,), 2.0))
    # What the fix would have made of the module: its importers break.
    rewritten = compat.replace("from torch.cuda.amp import", "from torch.amp import")
    _import(tmp_path, monkeypatch, name, rewritten)
    user = _import(tmp_path, monkeypatch, f"user_of_{name}", USER.format(compat=name))
    with pytest.raises(TypeError, match="device_type"):
        user.forward(torch.ones(2))


def test_tpl304_module_that_uses_its_import_is_still_fixed():
    source = ("import torch\nfrom torch.cuda.amp import autocast\n__all__ = ['helper']\n\n\n"
              "def helper(x):\n    with autocast(enabled=False):\n        return x\n")
    fixed, count = fix_source(source, codes=["TPL304"])
    assert count == 1
    expected = source.replace("torch.cuda.amp", "torch.amp").replace("autocast(enabled", 'autocast("cuda", enabled')
    assert fixed == expected
    assert torch.equal(_run(fixed, "helper")(torch.ones(2)), torch.ones(2))


# ---- fixes inside f-strings ------------------------------------------------------------------------

NESTED_QUOTES = sys.version_info >= (3, 12)


def test_fix_inside_a_double_quoted_f_string_uses_quotes_the_running_python_accepts():
    source = 'import torch\nscaler_text = f"{torch.cuda.amp.GradScaler(enabled=False)}"\n'
    fixed, count = fix_source(source, codes=["TPL304"])
    quote = '"' if NESTED_QUOTES else "'"
    assert count == 1
    assert fixed == f'import torch\nscaler_text = f"{{torch.amp.GradScaler({quote}cuda{quote}, enabled=False)}}"\n'
    assert _run(fixed, "scaler_text").startswith("<torch.amp.grad_scaler.GradScaler object")


def test_fix_inside_a_single_quoted_f_string_keeps_double_quotes():
    source = "import torch\nscaler_text = f'{torch.cuda.amp.GradScaler(enabled=False)}'\n"
    fixed, count = fix_source(source, codes=["TPL304"])
    assert (fixed, count) == ("import torch\nscaler_text = f'{torch.amp.GradScaler(\"cuda\", enabled=False)}'\n", 1)


def test_fix_inside_an_f_string_whose_other_quote_is_taken():
    source = 'import torch\nline = f"{torch.zeros(3).cuda()} {\'a\'}"\n'
    (finding,) = lint_source(source, codes=["TPL101"])
    if NESTED_QUOTES:
        assert finding.fix is not None and finding.fix.applicability == SAFE
    else:
        assert finding.fix is None  # no quote is free for "cuda": not offered, not a broken file
        assert fix_source(source, codes=["TPL101"]) == (source, 0)


def test_call_site_fix_of_an_import_inside_an_f_string():
    source = 'import torch\nfrom torch.cuda.amp import GradScaler\ntext = f"{GradScaler(enabled=False)}"\n'
    fixed, count = fix_source(source, codes=["TPL304"])
    quote = '"' if NESTED_QUOTES else "'"
    expected = f'text = f"{{GradScaler({quote}cuda{quote}, enabled=False)}}"\n'
    assert (fixed, count) == ("import torch\nfrom torch.amp import GradScaler\n" + expected, 1)
    compile(fixed, "<fixed>", "exec")
