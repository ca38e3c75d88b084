"""TPL501/TPL502/TPL204 as revised (issue 9): in-memory datasets, explicit settings, run-time
devices, samplers that leave the module. Fixed code is parsed and, where it can run on a CPU, run."""

import ast
import textwrap
import warnings

import pytest

from torchperf_lint.engine import lint_source
from torchperf_lint.engine import fix_source


def codes_at(source, code):
    return [f.line for f in lint_source(textwrap.dedent(source), codes=[code]) if f.code == code]


def only(source, code):
    findings = [f for f in lint_source(textwrap.dedent(source), codes=[code]) if f.code == code]
    assert len(findings) == 1, findings
    return findings[0]


# ---- TPL502 ------------------------------------------------------------------------------------

RUNTIME_DEVICE = """\
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return torch.tensor([float(i * i)])

device = "cuda" if torch.cuda.is_available() else "cpu"
loader = DataLoader(Squares(), batch_size=4, num_workers=0)
total = 0.0
for x in loader:
    total += float(x.to(device).sum())
"""


def test_runtime_device_gets_is_available_and_runs_on_a_cpu_without_a_warning():
    fixed, count = fix_source(RUNTIME_DEVICE, codes=["TPL502"])
    assert count == 1
    # 89 characters on one line: past the default line length of 88, so the fix wraps the call.
    assert "    pin_memory=torch.cuda.is_available(),\n)" in fixed
    namespace = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(fixed, "<fixed>", "exec"), namespace)
    assert namespace["total"] == sum(i * i for i in range(8))
    assert not [w for w in caught if "pin" in str(w.message).lower()]
    assert fix_source(fixed, codes=["TPL502"]) == (fixed, 0)


@pytest.mark.parametrize("setup, expected", [
    ("import torch as T\n", "pin_memory=T.cuda.is_available()"),
    ("import torch.nn as nn\nimport torch\n", "pin_memory=torch.cuda.is_available()"),
    ("from torch import cuda\n", "pin_memory=cuda.is_available()"),
])
def test_is_available_is_spelled_through_the_module_s_own_names(setup, expected):
    source = setup + (
        "from torch.utils.data import DataLoader\nparser.add_argument(\"--device\", default=\"cuda\")\n"
        "loader = DataLoader(ds, batch_size=4, num_workers=2)\n"
        "for x in loader:\n    x = x.to(args.device)\n"
    )
    fixed, count = fix_source(source, codes=["TPL502"])
    assert count == 1 and expected in fixed
    ast.parse(fixed)


def test_no_torch_name_no_fix():
    source = (
        "from torch.utils.data import DataLoader\nparser.add_argument(\"--device\", default=\"cuda\")\n"
        "loader = DataLoader(ds, batch_size=4, num_workers=2)\nfor x in loader:\n    x = x.to(args.device)\n"
    )
    finding = only(source, "TPL502")
    assert finding.fix is None


def test_conditional_cuda_move_is_a_run_time_choice():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=2)\n"
        "for x in loader:\n    if args.cuda:\n        x = x.cuda()\n"
    )
    fixed, _ = fix_source(source, codes=["TPL502"])
    assert "pin_memory=torch.cuda.is_available()" in fixed


def test_cuda_move_in_a_helper_called_under_a_gpu_flag_is_a_run_time_choice():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=2)\n"
        "def to_gpu(x):\n    return x.cuda()\n"
        "for x in loader:\n    if args.use_gpu:\n        x = to_gpu(x)\n"
    )
    fixed, _ = fix_source(source, codes=["TPL502"])
    assert "pin_memory=torch.cuda.is_available()" in fixed


def test_unconditional_cuda_move_gets_true():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=2)\n"
        "for x in loader:\n    x = x.cuda(non_blocking=True)\n"
    )
    fixed, _ = fix_source(source, codes=["TPL502"])
    assert "DataLoader(ds, num_workers=2, pin_memory=True)" in fixed


def test_explicit_false_is_reported_but_never_flipped_by_a_safe_fix():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, num_workers=2, pin_memory=False)\nfor x in loader:\n    x = x.cuda()\n"
    )
    finding = only(source, "TPL502")
    assert "deliberate" in finding.message
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert fix_source(source, codes=["TPL502"]) == (source, 0)
    fixed, count = fix_source(source, codes=["TPL502"], unsafe=True)
    assert count == 1 and "pin_memory=True" in fixed


def test_cuda_tensor_dataset_through_names_is_silent():
    source = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    def make(n, device):
        x = torch.randn(n, 4).to(device)
        y = torch.zeros(n, device=device)
        loader = DataLoader(TensorDataset(x, y), batch_size=8)
        for xb, yb in loader:
            xb = xb.to(device)
        return loader
    """
    assert codes_at(source, "TPL502") == []


def test_cpu_tensor_dataset_is_still_pinned():
    source = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    x = torch.randn(100, 4).to("cpu")
    loader = DataLoader(TensorDataset(x), batch_size=8)
    for (xb,) in loader:
        xb = xb.cuda()
    """
    assert codes_at(source, "TPL502") == [4]


# ---- TPL501 ------------------------------------------------------------------------------------

def test_explicit_num_workers_of_any_value_is_silent():
    assert codes_at("import torch\nfrom torch.utils.data import DataLoader\nl = DataLoader(ds, num_workers=0)\n",
                    "TPL501") == []


def test_dataset_followed_through_its_name():
    source = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    def fit(x, y):
        ds = TensorDataset(x, y)
        return DataLoader(ds, batch_size=8)
    def fit_files(root):
        ds2 = MyImages(root)
        return DataLoader(ds2, batch_size=8)
    """
    assert codes_at(source, "TPL501") == [8]


def test_self_attribute_dataset_followed():
    source = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    class M:
        def setup(self):
            self.train_ds = TensorDataset(torch.randn(10, 2))
        def train_dataloader(self):
            return DataLoader(self.train_ds, batch_size=2)
    """
    assert codes_at(source, "TPL501") == []


def test_parameter_named_like_an_in_memory_name_is_not_in_memory():
    source = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    ds = TensorDataset(torch.randn(10, 2))
    def make(ds):
        return DataLoader(ds, batch_size=2)
    """
    assert codes_at(source, "TPL501") == [5]


# ---- TPL204 ------------------------------------------------------------------------------------

def test_sampler_used_by_a_module_function_is_still_flagged():
    source = """\
    import torch
    from torch.utils.data import DataLoader, DistributedSampler
    def run_epoch(loader):
        for b in loader:
            pass
    def main(ds):
        sampler = DistributedSampler(ds)
        loader = DataLoader(ds, sampler=sampler)
        for epoch in range(3):
            run_epoch(loader)
    """
    assert codes_at(source, "TPL204") == [7]


def test_sampler_handed_to_an_imported_function_is_silent():
    source = """\
    import torch
    from torch.utils.data import DataLoader, DistributedSampler
    from engine import train_one_epoch
    def main(ds):
        sampler = DistributedSampler(ds)
        loader = DataLoader(ds, sampler=sampler)
        for epoch in range(3):
            train_one_epoch(loader, epoch)
    """
    assert codes_at(source, "TPL204") == []


def test_returned_in_a_tuple_is_silent():
    source = """\
    import torch
    from torch.utils.data import DataLoader, DistributedSampler
    def loaders(train_ds):
        train_sampler = DistributedSampler(train_ds)
        train_loader = DataLoader(train_ds, sampler=train_sampler)
        return train_loader, train_sampler
    """
    assert codes_at(source, "TPL204") == []


def test_loader_wrapped_in_an_imported_tqdm_is_still_iterated_here():
    source = """\
    import torch
    from torch.utils.data import DataLoader, DistributedSampler
    from tqdm import tqdm, trange
    def main(train_data, model):
        train_sampler = DistributedSampler(train_data)
        train_dataloader = DataLoader(train_data, sampler=train_sampler)
        for _ in trange(3):
            for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
                model(batch).sum().backward()
    """
    assert codes_at(source, "TPL204") == [5]
