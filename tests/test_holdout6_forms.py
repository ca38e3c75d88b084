"""TPL102 forms found on holdout6 (issue 20; holdout6 is tuned from here on): values the host must
have (the lead's reading R3, host-needed wins; rules.md "Where a value lives" and "A step body"),
and code that does not run every step. Whole diagnostics; each form with its silent twin and its
flagged twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

CPU = SYNC.format(what="`.cpu()`")
ITEM = SYNC.format(what="`.item()`")
NONZERO = SYNC.format(what="`.nonzero()`")
TRUTH = SYNC.format(what="testing a tensor's truth")

PLOT = """
    import matplotlib.pyplot as plt
    import torch
    def train(model, loader, optimizer, writer):
        for step, batch in enumerate(loader):
            mel = model(batch.cuda())
            mel.mean().backward()
            optimizer.step()
            spec = mel[0].cpu().numpy()
            plt.pcolormesh(spec.T)
            writer.add_figure("mel", plt.gcf(), step)
    """


def test_a_copy_handed_to_matplotlib_is_host_needed():
    """DiffSinger's ``spec_to_figure``: the array is what matplotlib draws (through ``.T``); a
    plotting library takes host arrays as numpy does (R3)."""
    assert diagnostics(PLOT, "TPL102") == []


def test_a_copy_that_is_only_summed_still_syncs():
    """Flagged twin: nothing draws it; the copy only feeds a sum the device could keep."""
    source = PLOT.replace("plt.pcolormesh(spec.T)", "writer.add_scalar('m', spec.sum(), step)")
    assert diagnostics(source, "TPL102") == [(9, 15, CPU, None, None)]


FIGURE = """
    import matplotlib.pyplot as plt
    import numpy as np
    import torch
    def dur_to_figure(dur_gt, rest, title=None):
        dur_gt = dur_gt.astype(np.int64)
        dur_gt = np.cumsum(dur_gt)
        for i in range(len(dur_gt)):
            plt.vlines(dur_gt[i], 0, 10, linestyle="--" if rest[i] else "-")
        return plt.gcf()
    def train(model, loader, optimizer, writer):
        for step, batch in enumerate(loader):
            dur, rest = model(batch.cuda())
            dur.mean().backward()
            optimizer.step()
            gt = dur[0].cpu().numpy()
            writer.add_figure("dur", dur_to_figure(gt, rest[0].cpu().numpy()), step)
    """


def test_a_copy_handed_to_a_function_that_hands_it_to_numpy_or_matplotlib_is_host_needed():
    """DiffSinger's ``plot_dur``: the copy goes to a project function whose parameter reaches
    ``np.cumsum`` and ``plt.vlines`` through names made from it (``x = x.astype(...)``); the other
    parameter only picks a matplotlib argument (``"--" if rest[i] else "-"``): both are drawn."""
    assert diagnostics(FIGURE, "TPL102") == []


def test_a_copy_handed_to_a_function_that_only_reads_its_length_still_syncs():
    """Flagged twin: the function reads the array's size only (``len``) and draws a constant."""
    source = (FIGURE.replace('plt.vlines(dur_gt[i], 0, 10, linestyle="--" if rest[i] else "-")',
                             "plt.vlines(i, 0, 10)")
              .replace("        dur_gt = dur_gt.astype(np.int64)\n        dur_gt = np.cumsum(dur_gt)\n", ""))
    assert diagnostics(source, "TPL102") == [(14, 13, CPU, None, None), (15, 51, CPU, None, None)]


PAD = """
    import torch
    from torch.nn.functional import pad
    def train(model, loader, optimizer):
        for batch in loader:
            mask = batch["mask"].cuda()
            logits = model(batch["x"].cuda())[:, mask[0]]
            logits = pad(logits, (0, 0, 0, int(mask.shape[1] - mask.sum().item())), value=0)
            logits.mean().backward()
            optimizer.step()
    """


def test_a_pad_width_wrapped_in_int_is_a_size():
    """boltz's ``confidencev2``: the padding length, computed from the value and wrapped in
    ``int(...)``, is a size torch needs on the host (rules.md "A step body": shapes and sizes)."""
    assert diagnostics(PAD, "TPL102") == []


def test_the_same_number_kept_as_a_count_still_syncs():
    """Flagged twin: the number only feeds a running count."""
    source = PAD.replace("logits = pad(logits, (0, 0, 0, int(mask.shape[1] - mask.sum().item())), value=0)",
                         "self_count = int(mask.shape[1] - mask.sum().item())")
    assert diagnostics(source, "TPL102") == [(8, 41, ITEM, None, None)]


EXCEPT = """
    import torch
    def validate(model, loader, log):
        for batch in loader:
            try:
                out = model(batch["x"].cuda())
            except RuntimeError as e:
                idx = batch["idx"].cuda()[0].item()
                log.warning(f"skipping batch {idx}: {e}")
                continue
            log.info("ok")
    """


def test_a_sync_in_an_except_handler_runs_when_the_step_failed():
    """boltz's ``validation_step``: the out-of-memory handler reads the batch id to log it and skips
    the batch; it runs when a step fails, not every step."""
    assert diagnostics(EXCEPT, "TPL102") == []


def test_the_same_sync_in_the_try_body_runs_every_step():
    """Flagged twin: in the ``try`` body the read runs every step."""
    source = EXCEPT.replace("""                out = model(batch["x"].cuda())
            except RuntimeError as e:
                idx = batch["idx"].cuda()[0].item()""", """                out = model(batch["x"].cuda())
                idx = batch["idx"].cuda()[0].item()
            except RuntimeError as e:""")
    assert diagnostics(source, "TPL102") == [(7, 18, ITEM, None, None)]


# (without ``no_grad``: a decoding loop with autograd off is no step loop at all, R41; these
# forms are about what a step loop's syncs decide)
DECODE = """
    import torch
    def decode(model, y, eos, max_len):
        stop = False
        for idx in range(max_len):
            logits = model(y)
            samples = torch.multinomial(logits.softmax(-1), 1)
            if torch.argmax(logits, dim=-1)[0] == eos or samples[0, 0] == eos:
                stop = True
            if stop:
                break
            y = torch.cat([y, samples], dim=1)
        return y
    """


def test_a_test_that_sets_the_flag_the_loop_stops_on_is_a_loop_stop_decision():
    """GPT-SoVITS' decoder: ``stop = True`` then ``if stop: break`` stops the loop as surely as a
    ``break`` in the test's own branch (rules.md: a value that decides whether a loop stops)."""
    assert diagnostics(DECODE, "TPL102") == []


def test_a_flag_that_does_not_stop_the_loop_is_no_stop_decision():
    """Flagged twin: the flag only counts; the loop runs to ``max_len``."""
    source = DECODE.replace("            if stop:\n                break\n",
                            "            if stop:\n                y = y[:, :-1]\n")
    assert diagnostics(source, "TPL102") == [(8, 11, TRUTH, None, None)]


DONE = """
    import torch
    def decode(model, y, eos, completed, results):
        for idx in range(100):
            samples = model(y)
            newly_done = (samples[:, 0] == eos) & ~completed
            done_rows = newly_done.nonzero()
            if done_rows.numel() > 0:
                results[done_rows[0]] = y[done_rows[0]]
                completed[done_rows] = True
            y = torch.cat([y, samples], dim=1)
        return results
    """


def test_nonzero_whose_size_the_host_reads_is_a_size():
    """GPT-SoVITS' CUDA-graph runner: the count of finished rows is what the host asks for
    (``done_rows.numel() > 0``); ``nonzero`` syncs to count them (R3: a size)."""
    assert diagnostics(DONE, "TPL102") == []


def test_nonzero_used_only_as_an_index_still_syncs():
    """Flagged twin: the rows only index device tensors; a mask would do without the count."""
    source = DONE.replace("            if done_rows.numel() > 0:\n", "            if True:\n")
    assert diagnostics(source, "TPL102") == [(7, 20, NONZERO, None, None)]


PICKED = """
    import matplotlib.pyplot as plt
    import torch
    def train(model, loader, optimizer, writer):
        for step, batch in enumerate(loader):
            rest = model(batch.cuda())
            rest.float().mean().backward()
            optimizer.step()
            rest = rest[0].cpu().numpy()
            for i in range(4):
                plt.vlines(i, 0, 10, linestyle="--" if rest[i] else "-")
    """


def test_a_copy_that_picks_a_matplotlib_argument_is_host_needed():
    """DiffSinger's ``pitch_note_to_figure``: ``"--" if note_rest[i] else "-"`` picks the line style
    matplotlib is handed; the call cannot be made before the host has the value."""
    assert diagnostics(PICKED, "TPL102") == []


def test_a_copy_that_picks_nothing_handed_to_a_library_still_syncs():
    """Flagged twin: the same choice only names a label nobody draws."""
    source = PICKED.replace('plt.vlines(i, 0, 10, linestyle="--" if rest[i] else "-")',
                            'label = "--" if rest[i] else "-"')
    assert diagnostics(source, "TPL102") == [(9, 15, CPU, None, None)]


SUPERIMPOSE = """
    import torch
    from Bio.SVDSuperimposer import SVDSuperimposer
    def _superimpose_np(reference, coords):
        sup = SVDSuperimposer()
        sup.set(reference, coords)
        sup.run()
        return sup.get_rms()
    def _count(reference, coords):
        return len(reference) + len(coords)
    def validate(model, loader, metrics):
        for batch in loader:
            out = model(batch["x"].cuda())
            reference_np = batch["y"].cuda().cpu().numpy()
            metrics.append(_superimpose_np(reference_np, out.cpu().numpy()))
    """


def test_a_copy_a_function_of_the_file_hands_to_a_host_library_object_is_host_needed():
    """openfold's ``_superimpose_single``: the arrays go to ``_superimpose_np``, which hands them to
    Biopython's ``SVDSuperimposer`` (an object a host library made: ``sup.set(...)``)."""
    assert diagnostics(SUPERIMPOSE, "TPL102") == []


def test_a_copy_a_function_of_the_file_only_measures_still_syncs():
    """Flagged twin: the function the copies go to reads their lengths only (and the loop steps an
    optimizer: in a loop that trains nothing the copies would be evaluation results, R8)."""
    source = (SUPERIMPOSE.replace("metrics.append(_superimpose_np(", "metrics.append(_count(")
              .replace("out.cpu().numpy()))\n", "out.cpu().numpy()))\n            optimizer.step()\n"))
    assert diagnostics(source, "TPL102") == [(14, 23, CPU, None, None), (15, 44, CPU, None, None)]


TOLIST = SYNC.format(what="`.tolist()`")

SLOTS = """
    import torch
    def decode(model, y, eos, n):
        batch_idx_map = list(range(n))
        y_list = [None] * n
        for idx in range(100):
            samples = model(y)
            finished = torch.where(samples[:, 0] == eos)[0].tolist()
            for i in finished:
                y_list[batch_idx_map[i]] = y[i]
            kept = torch.where(samples[:, 0] != eos)[0]
            batch_idx_map = [batch_idx_map[i] for i in kept.tolist()]
            y = torch.cat([y, samples], dim=1)[kept]
        return y_list
    """


def test_ids_iterated_to_read_python_lists_are_lookup_keys():
    """GPT-SoVITS' batched decoder: the finished rows' ids are iterated by host code and each one
    reads the Python list ``batch_idx_map`` (R3: a lookup key, as ``names[pred.item()]``)."""
    assert diagnostics(SLOTS, "TPL102") == []


def test_ids_iterated_into_a_running_sum_still_sync():
    """Flagged twin: the items only add up; no Python container is read with them (and the loop
    steps an optimizer: in a decoding loop that trains nothing the copies are R8's)."""
    source = (SLOTS.replace("y_list[batch_idx_map[i]] = y[i]", "n += i")
              .replace("[batch_idx_map[i] for i in kept.tolist()]", "[i + 1 for i in kept.tolist()]")
              .replace("            y = torch.cat([y, samples], dim=1)[kept]\n",
                       "            y = torch.cat([y, samples], dim=1)[kept]\n            optimizer.step()\n"))
    assert diagnostics(source, "TPL102") == [(8, 19, TOLIST, None, None), (12, 40, TOLIST, None, None)]


METHOD_NAMESAKE = """
    import numpy as np
    import torch
    def to_figure(x):
        return len(x)
    class Task:
        def to_figure(self, x):
            return np.cumsum(x)
        def train(self, loader, optimizer):
            for batch in loader:
                out = self.model(batch.cuda())
                out.mean().backward()
                optimizer.step()
                self.log(to_figure(out[0].cpu().numpy()))
    """


def test_a_bare_name_in_a_method_is_the_module_function_not_the_method():
    """The bare ``to_figure`` is the module's function (which only measures), not the class's method
    of the same name (which hands its argument to numpy): the copy still syncs."""
    assert diagnostics(METHOD_NAMESAKE, "TPL102") == [(14, 31, CPU, None, None)]


def test_the_module_function_that_hands_to_numpy_is_followed():
    """Silent twin: the module function the bare name calls hands its argument to numpy."""
    source = METHOD_NAMESAKE.replace("        return len(x)\n", "        return np.cumsum(x)\n")
    assert diagnostics(source, "TPL102") == []
