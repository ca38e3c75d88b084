"""R41: a loop that, with autograd off, feeds a model what it made (sampling, decoding) is no step
loop by itself (analysis/generation_loops.py; holdout39's dllm samplers, flow_matching's solver):
its own syncs and those of the helpers it calls stay silent; the same loop with autograd on, an
evaluation loop that feeds nothing back, and a sampler that a training loop runs every step stay
flagged. Whole diagnostics."""

from torchperf_lint.engine import lint_source

from _diagnostics import SYNC_TEMPLATE as SYNC

TRUTH = SYNC.format(what="testing a tensor's truth")
ITEM = SYNC.format(what="`.item()`")


def _found(source, path="sampler.py"):
    return [(f.line, f.col, f.message) for f in lint_source(source, path, codes=("TPL102",))]


SAMPLER = """\
import torch


def pick(conf, k):
    if conf.sum().item() >= k:
        return conf > 0
    return conf < 0


class Sampler:
    @torch.no_grad()
    def sample(self, x, steps, block, mask_id):
        for blk in range(x.shape[1] // block):
            for step in range(steps):
                block_slice = x[:, blk * block:(blk + 1) * block]
                active = block_slice == mask_id
                logits = self.model(x[:, :(blk + 1) * block]).logits
                probs = logits.softmax(-1).amax(-1)
                if probs.max().item() > 0.9:
                    print("confident")
                chosen = pick(probs, 3)
                block_slice[chosen & active] = logits.argmax(-1)[chosen & active]
        return x
"""


def test_a_sampler_that_feeds_the_model_what_it_made_with_autograd_off_is_no_step_loop():
    """dllm's LLaDA2 sampler: the model reads ``x``; the loop writes its picks into a view of
    ``x``; autograd is off: the syncs of the loop and of the helper it calls are silent."""
    assert _found(SAMPLER) == []


def test_the_same_loop_with_autograd_on_is_a_step_loop():
    source = SAMPLER.replace("    @torch.no_grad()\n", "")
    assert _found(source) == [
        (5, 7, ITEM + " (called every step from sampler.py:20)"),
        (18, 19, ITEM),
    ]


def test_a_loop_under_no_grad_that_feeds_nothing_back_is_an_evaluation_loop():
    """``x = data[i].cuda()`` before the model call: each round reads new data, not what the last
    one made (R7: per-batch syncs of an evaluation loop stay flagged)."""
    source = """\
import torch


@torch.no_grad()
def evaluate(model, data, n):
    correct = 0
    for i in range(n):
        x = data[i].cuda()
        out = model(x)
        correct += (out.argmax(-1) == 0).sum().item()
    return correct
"""
    assert _found(source, "evaluate.py") == [(10, 19, ITEM)]


def test_a_decoding_loop_with_autograd_off_made_by_a_with_block_is_no_step_loop():
    source = """\
import torch


def generate(model, ids, eos, steps):
    with torch.no_grad():
        for _ in range(steps):
            logits = model(ids)
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=1)
            if nxt[0, 0].item() == eos:
                print("done")
    return ids
"""
    assert _found(source, "generate.py") == []
    off = source.replace("with torch.no_grad():", "with torch.set_grad_enabled(False):")
    assert _found(off, "generate.py") == []
    mode = source.replace("with torch.no_grad():", "with torch.set_grad_enabled(train):")
    assert _found(mode, "generate.py") == [(10, 15, ITEM)]


def test_a_sampler_a_training_loop_runs_every_step_still_runs_every_step():
    """GRPO-style: the training loop calls the sampler every step; its loop then runs every step
    (rules.md: a loop inside a function that a step loop calls)."""
    source = SAMPLER + """

def train(model, loader, opt):
    sampler = Sampler()
    for batch in loader:
        x = sampler.sample(batch.cuda(), 4, 8, 0)
        loss = model(x).mean()
        loss.backward()
        opt.step()
"""
    assert _found(source) == [(5, 7, ITEM + " (called every step from sampler.py:29 via sample)"), (19, 19, ITEM)]


def test_an_evaluation_loop_over_data_that_carries_a_memory_is_no_generation_loop():
    """transformer-xl's ``evaluate``: ``for idx, (data, target) in enumerate(eval_iter)`` hands the
    model each batch and the memory the last batch left (``loss, mems = ret[0], ret[1:]``); it goes
    over data, not over steps: an evaluation loop (R7), its per-batch ``.item()`` flagged. Over
    ``range(n)`` with only the memory coming back it is no generation either; feeding the model's
    output back as the next input is."""
    source = """\
import torch


def evaluate(model, eval_iter):
    total = 0
    with torch.no_grad():
        mems = tuple()
        for idx, (data, target) in enumerate(eval_iter):
            ret = model(data, target, *mems)
            loss, mems = ret[0], ret[1:]
            total += loss.mean().item()
    return total
"""
    assert _found(source, "eval.py") == [(11, 21, ITEM)]
    # over a range, with only the memory coming back: still no generation (the state alone);
    # with the model's own output fed back as the next input, generation
    steps = source.replace("for idx, (data, target) in enumerate(eval_iter):", "for idx in range(8):").replace(
        "model(data, target, *mems)", "model(eval_iter, *mems)")
    assert _found(steps, "eval.py") == [(11, 21, ITEM)]
    fed = steps.replace("model(eval_iter, *mems)", "model(tokens, *mems)").replace(
        "            total += loss.mean().item()\n", "            total += loss.mean().item()\n            tokens = ret[0].argmax(-1)\n").replace(
        "def evaluate(model, eval_iter):", "def evaluate(model, eval_iter, tokens):")
    assert _found(fed, "eval.py") == []


def test_a_name_bound_again_before_the_model_call_feeds_nothing_back():
    """PreSumm's validation: ``mask = batch.mask`` then ``scores, mask = model(src, mask)``: each
    round reads its own batch's mask; the store after the call reaches nothing. Flagged."""
    source = """\
import torch


@torch.no_grad()
def validate(model, batches, n):
    total = 0
    for i in range(n):
        src, mask = batches[i]
        scores, mask = model(src, mask)
        total += scores.sum().item()
    return total
"""
    assert _found(source, "validate.py") == [(10, 17, ITEM)]
    carried = source.replace("        src, mask = batches[i]\n", "        src = batches[i]\n")
    assert _found(carried, "validate.py") == []


def test_a_schedule_behind_wrappers_and_a_state_read_through_an_alias_feed_back():
    """audio-diffusion's DDIM pass: ``for t in self.progress_bar(torch.flip(self.scheduler.timesteps,
    (0,)))`` goes over a schedule's steps; bd3lm: the model reads ``x_prefix = x`` and the round
    ends with ``x = torch.cat(...)``: what it reads is what the last round made. Both silent with
    autograd off; the same loop over ``self.progress_bar(batches)`` takes data: flagged."""
    source = """\
import torch


class Pipeline:
    @torch.no_grad()
    def encode(self, sample, cond):
        for t in self.progress_bar(torch.flip(self.scheduler.timesteps, (0,))):
            x_prefix = sample
            out = self.unet(x_prefix, t, cond)
            if t.item() > 500:
                print("early")
            sample = torch.cat([sample[:, :1], self.clip(out)[:, 1:]], dim=1)
        return sample

    def clip(self, out):
        if out.abs().max().item() > 1:
            return out.clamp(-1, 1)
        return out
"""
    assert _found(source, "pipeline.py") == []
    # (with a step loop beside it in the same function, the function is parsed with libcst and the
    # walker's twin decides: the same answer)
    beside = source.replace("        return sample\n", "        for batch in loader:\n"
                            "            print(self.unet(batch.cuda(), 0, cond).sum().item())\n        return sample\n").replace(
        "def encode(self, sample, cond):", "def encode(self, sample, cond, loader):")
    assert _found(beside, "pipeline.py") == [(14, 18, ITEM)]
    data = source.replace("torch.flip(self.scheduler.timesteps, (0,))", "batches").replace(
        "    def encode(self, sample, cond):", "    def encode(self, sample, cond, batches):")
    assert _found(data, "pipeline.py") == [(10, 15, ITEM), (16, 11, ITEM + " (called every step from pipeline.py:12)")]


def test_a_recurrent_state_carried_over_data_is_no_generation():
    """pytorch/examples' word_language_model ``evaluate``: ``for i in range(0, n, bptt)`` over
    chunks of the data, ``output, hidden = model(data, hidden)``: only the recurrent state comes
    back; each round reads new data. An evaluation loop (R7): its per-batch ``.item()`` flagged.
    Feeding back the sample it made (``data = output.argmax(-1)``) makes it generation: silent."""
    source = """\
import torch


def evaluate(model, data_source, criterion, bptt, hidden):
    total_loss = 0.
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss
"""
    assert _found(source, "main.py") == [(10, 38, ITEM)]
    sample = source.replace("            data, targets = get_batch(data_source, i)\n", "").replace(
        "def evaluate(model, data_source, criterion, bptt, hidden):", "def evaluate(model, data, criterion, bptt, hidden, targets, data_source):").replace(
        "            total_loss += len(data) * criterion(output, targets).item()\n",
        "            total_loss += len(data) * criterion(output, targets).item()\n            data = output.argmax(-1)\n")
    assert _found(sample, "main.py") == []


def test_a_one_line_loop_and_a_keyword_mode_are_read_as_the_others():
    """A loop whose body sits on its header's line (``for _ in range(n): out = model(ids); ...``)
    is read statement by statement like an indented one; ``set_grad_enabled(mode=False)`` turns
    autograd off as ``set_grad_enabled(False)`` does. Silent; with ``mode=True``, flagged."""
    source = """\
import torch


def generate(model, ids, steps, total, loader):
    with torch.set_grad_enabled(mode=False):
        for _ in range(steps): out = model(ids); ids = torch.cat([ids, out.argmax(-1)], 1); total += out.sum().item()
    for batch in loader:
        print(model(batch.cuda()).sum().item())
    return ids, total
"""
    # (the loop over the loader beside it makes the function one the walker reads with libcst)
    assert _found(source, "generate.py") == [(8, 14, ITEM)]
    on = source.replace("mode=False", "mode=True")
    assert _found(on, "generate.py") == [(6, 101, ITEM), (8, 14, ITEM)]
