"""torch.compile sees the guard as nothing: a compiled optimizer step gets no added graph break
(dynamo's own counters, backend="eager": graph breaks are decided before any code generation)."""
import torch
from torch import nn


def _compiled_step_graph_breaks():
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.randn(2, 4)).sum().backward()

    @torch.compile(backend="eager")
    def step():
        opt.step()

    step()
    step()
    breaks = sum(counters["graph_break"].values())
    graphs = counters["stats"]["unique_graphs"]
    torch._dynamo.reset()
    return breaks, graphs, [p.detach().clone() for p in model.parameters()]


def test_compiled_optimizer_step_gets_no_added_graph_break(guard):
    plain_breaks, plain_graphs, plain_params = _compiled_step_graph_breaks()
    guard.install(mode="fix", device="cpu")
    breaks, graphs, params = _compiled_step_graph_breaks()
    assert (breaks, graphs) == (plain_breaks, plain_graphs)
    assert all(torch.equal(a, b) for a, b in zip(params, plain_params))
