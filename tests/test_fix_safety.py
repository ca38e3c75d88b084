""""Safe" means safe: each fix below is applied, parsed and, where it can run on a CPU, executed,
with the numbers (or the exception) the original code would give compared with the fixed code's."""

import ast
import textwrap

import pytest
import torch

from torchperf_lint.catalog import SAFE, UNSAFE
from torchperf_lint.engine import lint_source
from torchperf_lint.engine import fix_source
from torchperf_lint.rules import RULES


def fixes(source: str, code: str):
    return [f.fix for f in lint_source(source, codes=[code]) if f.code == code]


def fixed(source: str, code: str, unsafe: bool = False):
    result, count = fix_source(source, codes=[code], unsafe=unsafe)
    ast.parse(result)
    assert fix_source(result, codes=[code], unsafe=unsafe) == (result, 0), "fixing twice changes nothing"
    return result, count


def run(source: str, name: str):
    namespace = {}
    exec(compile(source, "<fixed>", "exec"), namespace)
    return namespace[name]


# ---- TPL303: one unscale_ per optimizer and step --------------------------------------------------

PER_GROUP_CLIP = textwrap.dedent("""\
    import torch

    def step(scaler, loss, optimizer):
        scaler.scale(loss).backward()
        for group in optimizer.param_groups:
            torch.nn.utils.clip_grad_norm_(group["params"], 1.0)
        scaler.step(optimizer)
        scaler.update()
""")


def _two_group_setup():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(
        [{"params": model[0].parameters()}, {"params": model[1].parameters()}], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    loss = model(torch.randn(8, 4)).pow(2).sum()
    return model, optimizer, scaler, loss


def test_tpl303_unscales_before_the_param_group_loop_and_the_step_runs():
    result, count = fixed(PER_GROUP_CLIP, "TPL303")
    assert count == 1
    assert result.count("scaler.unscale_(optimizer)") == 1
    assert "    scaler.unscale_(optimizer)\n    for group in optimizer.param_groups:\n" in result
    model, optimizer, scaler, loss = _two_group_setup()
    run(result, "step")(scaler, loss, optimizer)
    # the clip saw unscaled gradients: every group's norm is at most 1 after it
    for group in optimizer.param_groups:
        norm = torch.nn.utils.get_total_norm([p.grad for p in group["params"]])
        assert norm <= 1.0 + 1e-5


def test_tpl303_unscale_inside_the_loop_is_what_the_fix_must_avoid():
    # The placement the fix used to choose raises on the second group: this is what is prevented.
    inside = PER_GROUP_CLIP.replace(
        "        torch.nn.utils.clip", "        scaler.unscale_(optimizer)\n        torch.nn.utils.clip")
    model, optimizer, scaler, loss = _two_group_setup()
    with pytest.raises(RuntimeError, match="unscale_"):
        run(inside, "step")(scaler, loss, optimizer)


def test_tpl303_two_clips_share_one_unscale():
    source = textwrap.dedent("""\
        import torch

        def step(scaler, loss, optimizer, a, b):
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(a.parameters(), 1.0)
            torch.nn.utils.clip_grad_value_(b.parameters(), 0.5)
            scaler.step(optimizer)
            scaler.update()
    """)
    result, count = fixed(source, "TPL303")
    assert count == 2  # both findings fixed, by one statement
    assert result.count("scaler.unscale_(optimizer)") == 1
    assert result.index("unscale_") < result.index("clip_grad_norm_")


def test_tpl303_no_fix_when_backward_runs_per_pass_and_step_once():
    source = textwrap.dedent("""\
        import torch

        def step(scaler, batches, optimizer, model):
            for x in batches:
                scaler.scale(model(x).sum()).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
    """)
    assert fixes(source, "TPL303") == [None]


def test_tpl303_loop_that_steps_each_pass_keeps_unscale_inside():
    source = textwrap.dedent("""\
        import torch
        scaler = torch.amp.GradScaler("cuda")
        for x in loader:
            scaler.scale(model(x).sum()).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
    """)
    result, _ = fixed(source, "TPL303")
    assert "    scaler.unscale_(optimizer)\n    torch.nn.utils.clip_grad_norm_" in result


# ---- TPL203: a sampler that may be None keeps its shuffle -------------------------------------------

MAYBE_NONE = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader, DistributedSampler

    def make(ds, distributed):
        sampler = DistributedSampler(ds, num_replicas=1, rank=0) if distributed else None
        return DataLoader(ds, batch_size=2, sampler=sampler, shuffle=True)
""")


def test_tpl203_possibly_none_sampler_shuffles_exactly_when_none():
    (fix,) = fixes(MAYBE_NONE, "TPL203")
    assert fix.applicability == SAFE
    result, _ = fixed(MAYBE_NONE, "TPL203")
    assert "sampler=sampler, shuffle=sampler is None)" in result
    make = run(result, "make")
    ds = torch.arange(10.0)
    assert isinstance(make(ds, False).sampler, torch.utils.data.RandomSampler)  # as before the fix
    assert isinstance(make(ds, True).sampler, torch.utils.data.DistributedSampler)  # no ValueError
    with pytest.raises(ValueError):
        run(MAYBE_NONE, "make")(ds, True)


def test_tpl203_dropping_shuffle_would_have_changed_the_order():
    dropped = MAYBE_NONE.replace(", shuffle=True", "")
    loader = run(dropped, "make")(torch.arange(10.0), False)
    assert isinstance(loader.sampler, torch.utils.data.SequentialSampler)  # what the old fix did


@pytest.mark.parametrize("binding", [
    "    sampler = DistributedSampler(ds, num_replicas=1, rank=0)\n",
    "    sampler = torch.utils.data.RandomSampler(ds)\n",
])
def test_tpl203_sampler_built_in_scope_drops_shuffle_and_keeps_comment(binding):
    source = (
        "import torch\nfrom torch.utils.data import DataLoader, DistributedSampler\n\n"
        "def make(ds):\n" + binding +
        "    return DataLoader(\n        ds,\n        sampler=sampler,\n"
        "        shuffle=True,  # shuffle the training set\n        batch_size=2,\n    )\n"
    )
    (fix,) = fixes(source, "TPL203")
    assert fix.applicability == SAFE
    result, _ = fixed(source, "TPL203")
    assert ("        sampler=sampler,\n        # shuffle the training set\n        batch_size=2,\n    )\n"
            in result)
    assert len(run(result, "make")(torch.arange(6.0))) == 3


def test_tpl203_rebound_sampler_is_not_provably_set():
    source = textwrap.dedent("""\
        from torch.utils.data import DataLoader, DistributedSampler

        def make(ds, single):
            sampler = DistributedSampler(ds)
            if single:
                sampler = None
            return DataLoader(ds, sampler=sampler, shuffle=True)
    """)
    result, _ = fixed(source, "TPL203")
    assert "shuffle=sampler is None" in result


def test_tpl203_sampler_from_unknown_call_is_unsafe():
    source = "from torch.utils.data import DataLoader\nloader = DataLoader(ds, sampler=make(ds), shuffle=True)\n"
    (fix,) = fixes(source, "TPL203")
    assert fix.applicability == UNSAFE and "None" in fix.description
    assert fix_source(source, codes=["TPL203"])[1] == 0
    assert "shuffle" not in fixed(source, "TPL203", unsafe=True)[0]


# ---- TPL101: values that change are not safe ------------------------------------------------------

@pytest.mark.parametrize("factory,applicability", [
    ("torch.zeros(3)", SAFE),
    ("torch.arange(4)", SAFE),
    ("torch.rand(3)", UNSAFE),
    ("torch.linspace(0, 1, 7)", UNSAFE),
    ("torch.logspace(0, 1, 7)", UNSAFE),
    ("torch.randn_like(base)", UNSAFE),
    ("torch.rand_like(base)", UNSAFE),
    ("torch.randint_like(base, 10)", UNSAFE),
])
def test_tpl101_fix_applicability(factory, applicability):
    source = f"import torch\nbase = torch.zeros(3)\nx = {factory}.to(device)\n"
    found = [f for f in lint_source(source, codes=["TPL101"]) if f.line == 3]
    assert len(found) == 1 and found[0].fix.applicability == applicability


def test_tpl101_fix_keeps_the_comments_of_the_move():
    source = "import torch\nx = torch.zeros(3).to(\n    device,  # the rank's GPU\n)\n"
    result, _ = fixed(source, "TPL101")
    assert result == "import torch\nx = torch.zeros(\n    3,\n    device=device,  # the rank's GPU\n)\n"


def test_tpl101_no_fix_where_a_comment_has_no_line_to_go_to():
    source = "import torch\nx = torch.zeros(3,\n                4).to(device  # c\n)\n"
    assert fixes(source, "TPL101") == [None]


def test_tpl101_safe_fix_gives_the_same_tensor():
    source = "import torch\ndef make(device):\n    return torch.arange(6, dtype=torch.float32).to(device)\n"
    result, count = fixed(source, "TPL101")
    assert count == 1 and "torch.arange(6, dtype=torch.float32, device=device)" in result
    assert torch.equal(run(source, "make")("cpu"), run(result, "make")("cpu"))


# ---- TPL401: determinism under a condition -----------------------------------------------------------

def test_tpl401_conditional_determinism_is_unsafe():
    source = textwrap.dedent("""\
        import torch.backends.cudnn as cudnn
        if args.deterministic:
            cudnn.deterministic = True
        cudnn.benchmark = True
    """)
    (fix,) = fixes(source, "TPL401")
    assert fix.applicability == UNSAFE and "every run" in fix.description
    assert fix_source(source, codes=["TPL401"])[1] == 0


def test_tpl401_determinism_around_benchmark_is_safe():
    source = textwrap.dedent("""\
        import torch.backends.cudnn as cudnn
        cudnn.deterministic = True
        if fast:
            cudnn.benchmark = True
    """)
    (fix,) = fixes(source, "TPL401")
    assert fix.applicability == SAFE
    assert "    cudnn.benchmark = False\n" in fixed(source, "TPL401")[0]


# ---- TPL104: a refilled staging buffer -------------------------------------------------------------

STAGING = """\
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, num_workers=2, pin_memory=True)
buf = torch.empty(64, 3).pin_memory()
for x in loader:
{refill}
    y = buf.to(device)
    model(y).sum().backward()
"""


@pytest.mark.parametrize("refill", [
    "    buf.copy_(x)",
    "    buf[: len(x)] = x",
    "    torch.mul(x, 2, out=buf)",
    "    buf.zero_()\n    buf += x",
])
def test_tpl104_no_fix_for_a_refilled_staging_buffer(refill):
    source = STAGING.format(refill=refill)
    assert all(fix is None for fix in fixes(source, "TPL104"))
    assert fix_source(source, codes=["TPL104"], unsafe=True)[1] == 0


def test_tpl104_loader_batch_is_still_fixed():
    source = STAGING.format(refill="    pass").replace("buf.to(device)", "x.to(device)")
    result, count = fixed(source, "TPL104")
    assert count == 1 and "x.to(device, non_blocking=True)" in result


# ---- TPL202: SyncBatchNorm on a CPU (gloo) run ------------------------------------------------------

DDP_SOURCE = """\
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
m = torch.nn.BatchNorm1d(4)
{init}
m = DDP(m)
"""


def test_tpl202_no_fix_under_gloo_only():
    assert fixes(DDP_SOURCE.format(init='dist.init_process_group("gloo")'), "TPL202") == [None]
    assert fixes(DDP_SOURCE.format(init='dist.init_process_group(backend="gloo")'), "TPL202") == [None]


def test_tpl202_fix_offered_for_nccl_or_unknown_backend():
    for init in ('dist.init_process_group("nccl")', "dist.init_process_group(backend=args.backend)", ""):
        (fix,) = fixes(DDP_SOURCE.format(init=init), "TPL202")
        assert fix is not None and fix.applicability == UNSAFE


def test_tpl202_docs_say_syncbatchnorm_raises_on_cpu():
    note = RULES["TPL202"].FIX_NOTE
    assert "CPU" in note and "gloo" in note and "raises" in note


def test_syncbatchnorm_really_needs_a_device_tensor(tmp_path):
    # What the docs claim, checked against torch: a CPU forward in an initialised process group raises.
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        bn = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.Sequential(torch.nn.BatchNorm1d(4)))
        with pytest.raises(ValueError, match="SyncBatchNorm expected input tensor to be on GPU"):
            bn(torch.randn(8, 4))
    finally:
        dist.destroy_process_group()


def test_tpl104_in_place_work_on_the_loader_batch_keeps_the_fix():
    # The batch is a new tensor each time round: writing it before the copy races nothing.
    source = STAGING.format(refill="    x.clamp_(0, 1)").replace("buf.to(device)", "x.to(device)")
    result, count = fixed(source, "TPL104")
    assert count == 1 and "x.to(device, non_blocking=True)" in result


def test_tpl202_gloo_branch_gets_no_fix_the_cuda_branch_does():
    source = textwrap.dedent("""\
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        m = torch.nn.BatchNorm1d(4)
        if args.cpu:
            dist.init_process_group("gloo")
            model = DDP(m)
        else:
            dist.init_process_group("nccl")
            model = DDP(m.cuda(), device_ids=[rank])
    """)
    cpu, cuda = fixes(source, "TPL202")
    assert cpu is None and cuda is not None and cuda.applicability == UNSAFE
