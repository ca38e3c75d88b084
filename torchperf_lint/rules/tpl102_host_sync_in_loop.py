"""TPL102 host-sync-in-loop: a device-to-host synchronisation in every step of a loop."""

from __future__ import annotations


import libcst as cst

from ..analysis.syntax import is_model_name, last_identifier, method_call
from ..analysis.walker import Rule, compile_text_tests

SYNC_METHODS = frozenset(("item", "cpu", "numpy", "tolist", "nonzero"))
SYNC_FUNCTIONS = frozenset(("torch.cuda.synchronize", "torch.nonzero"))
CONVERSIONS = frozenset(("float", "int", "bool"))
_READERS = CONVERSIONS | {"print"}


class HostSyncInLoop(Rule):
    code = "TPL102"
    message = (
        "{what} waits for the device in every iteration; keep values on the device "
        "(`total += loss.detach()`) and sync once after the loop or every N steps "
        "(runtime_guard: sync report)"
    )
    # A unit is parsed when it has a loop and either a sync method, or a truth test, conversion
    # or print in code that handles losses or reduces tensors to booleans (where tensors worth
    # waiting for are likely). Literal tests first: they are the cheapest and reject most units.
    # (exactly the regexes \.(?:item|cpu|numpy|tolist|nonzero)\(|synchronize\(|torch\.nonzero and
    # backward|loss|model|logits|\.(?:any|all|sum|mean)\(|isfinite|isnan|isinf, as ``in`` tests)
    _SYNC = (".item(", ".cpu(", ".numpy(", ".tolist(", ".nonzero(", "synchronize(", "torch.nonzero")
    _TENSOR_CODE = ("backward", "loss", "model", "logits", ".any(", ".all(", ".sum(", ".mean(", "isfinite", "isnan",
                    "isinf")
    _has_loop_word = staticmethod(compile_text_tests((("for", "while"),)))
    _has_sync = staticmethod(compile_text_tests((_SYNC,)))
    _reads_tensor = staticmethod(compile_text_tests((_TENSOR_CODE, r"\b(?:float|int|bool|print)\(|\bif\b|\bwhile\b")))
    _has_loop = staticmethod(compile_text_tests((r"\b(?:for|while)\b",)))

    needs_step_loop = True  # reports only in a step loop (_in_step: in_step_loop)

    @classmethod
    def may_match(cls, text: str) -> bool:
        return (cls._has_loop_word(text) and (cls._has_sync(text) or cls._reads_tensor(text))
                and cls._has_loop(text))

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        found = method_call(node)
        if found is not None and found[1] in SYNC_METHODS:
            receiver, name = found
            if not self._in_step():
                return
            if ctx.is_host_value(receiver) or self._narrowed_to_numpy(receiver):
                return  # numpy values and host tensors are read without waiting for a device
            if name == "cpu" and is_model_name(last_identifier(_copied(receiver, ctx))):
                return  # moving a model (or a copy of it: an EMA snapshot), not reading a value
            self.report(node, self.message.format(what=f"`.{name}()`"))
            return
        qual = ctx.qualname(node.func)
        if qual in SYNC_FUNCTIONS:
            if self._in_step():
                self.report(node, self.message.format(what=f"`{qual}()`"))
            return
        if isinstance(node.func, cst.Name) and node.func.value in _READERS and ctx.is_builtin(node.func.value):
            name = node.func.value
            args = [a for a in node.args if a.keyword is None and not a.star]
            if not args or not self._in_step():
                return
            if name in CONVERSIONS and len(args) == 1 and ctx.is_device_tensor(args[0].value):
                self.report(node, self.message.format(what=f"`{name}()` of a tensor"))
            elif name == "print" and any(_shows_tensor(a.value, ctx) for a in args):
                self.report(node, self.message.format(what="printing a tensor"))

    def visit_If(self, node: cst.If) -> None:
        # The value test first: it is cheap, and most tests are not of a device tensor, while
        # _in_step classifies the loop (a walk of its body) on first use. Both only read.
        if _truth_tests_tensor(node.test, self.ctx) and self._in_step():
            self.report(node.test, self.message.format(what="testing a tensor's truth"))

    def visit_While(self, node: cst.While) -> None:
        # The value test first: it is cheap, and most tests are not of a device tensor, while
        # _in_step classifies the loop (a walk of its body) on first use. Both only read.
        if _truth_tests_tensor(node.test, self.ctx) and self._in_step():
            self.report(node.test, self.message.format(what="testing a tensor's truth"))

    def _narrowed_to_numpy(self, receiver: cst.BaseExpression) -> bool:
        """``x.tolist() if isinstance(x, np.ndarray) else x`` (or the same ``if`` block)."""
        if not isinstance(receiver, cst.Name):
            return False
        stack = self.ctx.stack
        for index, node in enumerate(stack[:-1]):
            if isinstance(node, (cst.IfExp, cst.If)) and stack[index + 1] is node.body:
                checked = _isinstance_types(node.test, receiver.value, self.ctx)
                if any(q.startswith("numpy.") for q in checked):
                    return True
        return False

    def _in_step(self) -> bool:
        """In a step loop (spec: "in a loop", and that loop does device work every time round), and
        not in a branch that leaves it."""
        ctx = self.ctx
        return (ctx.in_step_loop() and not ctx.leaves_loop(ctx.step_loop(), body_returns=False)
                and not ctx.returned_to_framework())


def _copied(expr: cst.BaseExpression, ctx) -> cst.BaseExpression:
    """``copy.deepcopy(model)`` -> ``model``: a copy is the same kind of object."""
    while isinstance(expr, cst.Call) and expr.args and ctx.qualname(expr.func) in ("copy.deepcopy", "copy.copy"):
        expr = expr.args[0].value
    return expr


def _isinstance_types(test: cst.BaseExpression, name: str, ctx) -> list:
    """The qualified names ``test`` checks ``name`` against with ``isinstance(name, ...)``."""
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"):
        return []
    args = test.args
    if len(args) != 2 or not isinstance(args[0].value, cst.Name) or args[0].value.value != name:
        return []
    kinds = args[1].value
    elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    return [q for q in (ctx.qualname(e) for e in elements) if q]


def _shows_tensor(value: cst.BaseExpression, ctx) -> bool:
    """``print(t)`` or ``print(f"{t:.3f}")``: formatting a tensor reads its values."""
    if isinstance(value, cst.FormattedString):
        return any(
            isinstance(part, cst.FormattedStringExpression) and ctx.is_device_tensor(part.expression)
            for part in value.parts
        )
    return ctx.is_device_tensor(value)


def _truth_tests_tensor(test: cst.BaseExpression, ctx) -> bool:
    """``if t:``, ``if not t:``, ``if a and t:`` all call ``bool()`` on the tensor."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _truth_tests_tensor(test.expression, ctx)
    if isinstance(test, cst.BooleanOperation):
        return _truth_tests_tensor(test.left, ctx) or _truth_tests_tensor(test.right, ctx)
    return ctx.is_device_tensor(test)


RULE = HostSyncInLoop
RULE.VALID = (
    """
import torch
def train(model, optimizer, loader, logger, epochs):
    for epoch in range(epochs):
        weights = model.class_weights.cpu().numpy()     # once per epoch
        for x, y in loader:
            model(x.cuda()).sum().backward()
            optimizer.step()
        logger.log_model(epoch)                         # a logger's method, not a model call
""",
    """
import torch
def evaluate(model, data_loader, metric_logger, device):
    for image, question_id in metric_logger.log_every(data_loader, 50, "eval"):   # loader batches
        answers = model(image.to(device, non_blocking=True))
        for answer, qid in zip(answers, question_id):
            results.append((int(qid.item()), answer))  # question_id was never moved
""",
    """
import torch
class Engine:
    def parse_data(self, data):
        return data["img"], data["pid"]
    def extract(self, model, data_loader):
        pids_all = []
        for data in data_loader:
            imgs, pids = self.parse_data(data)          # parts of a host batch
            model(imgs.cuda()).sum().backward()
            pids_all.extend(pids.tolist())
""",
    """
import copy
from copy import deepcopy
import torch
def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        snapshot = copy.deepcopy(model).cpu()           # a copy of the model, moved: no value read
        frozen = deepcopy(model.module).cpu()
""",
    """
import torch
def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        running = torch.zeros((), device="cuda")
        for step, (x, y) in enumerate(loader):
            loss = model(x, y)
            loss.backward()
            optimizer.step()
            running += loss.detach()
            if step % 100 == 0:
                print(f"step {step}: {loss.item():.4f}")   # every N steps: the remedy
        print("epoch", epoch, running.item())             # once per epoch
    return running.cpu()                                  # after the loop
""",
    """
import numpy as np
import torch
for name, value in config.items():                # dict.items(), not Tensor.item()
    print(name, value)
for row in np.arange(10):
    values = np.ones(3)
    print(values.tolist())                        # numpy, not a tensor
    print(torch.cuda.memory_reserved())           # allocator query, no sync
for layer in layers:
    drop = torch.rand([])                         # a CPU tensor: no device to wait for
    if drop < layerdrop:
        continue
    if torch.equal(a, b):                         # returns a Python bool
        pass
    idx = torch.arange(4).tolist()
    guide = guide.tolist() if isinstance(guide, np.ndarray) else guide   # narrowed to numpy
""",
    """
import sys
import torch
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    if step >= max_steps:                          # leaves the loop: runs once
        print(f"stopping at {loss.item()}")
        break
    if step > limit:
        print("diverged", loss.item())             # ends the run: once
        sys.exit(1)
    loss.backward()
""",
    """
import torch
def inspect(model, loader, optimizer):
    for x, y in loader:                       # a batch is on the host until it is moved
        print(x.numpy().shape, y.tolist())
        x = x.cuda()
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
""",
    """
import torch
def rollout(agent, env, steps, obs):
    for _ in range(steps):                    # not a step loop: no loader, no model, no backward
        action = agent.get_greedy_action(obs)
        obs, reward, done, trunc, _ = env.step(action.cpu().numpy())
def sample(diffusion, model, n, shape):
    images = []
    while len(images) < n:                    # the samples must reach the host
        out = diffusion.p_sample_loop(model, shape)
        images.extend([s.cpu().numpy() for s in out])
def to_cpu(model):
    cpu_state = {}
    for name, p in model.state_dict().items():   # converting a state_dict
        cpu_state[name] = p.cpu()
    return cpu_state
""",
    """
import torch
class MetricLogger:
    def update(self, **kwargs):               # no step loop of this module calls update()
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):   # the guard does not say where v lives
                v = v.item()
            self.meters[k] = v
""",
    """
import torch
def train(model, loader, opt, fixed_noise, epochs):
    it = 0
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            model(x).sum().backward()
            opt.step()
            if (it % 500 == 0) or (epoch == epochs - 1 and i == len(loader) - 1):
                fake = model(fixed_noise).detach().cpu()      # an interval, written as a compound test
            if i == 0:
                print(model(fixed_noise).mean().item())       # the first batch only
            it += 1
""",
    """
import torch
from torch.nn.parallel import DistributedDataParallel
from rl.agent import PPOAgent
agent = DistributedDataParallel(PPOAgent(envs).to(device))   # wraps a model made elsewhere
for update in range(num_updates):
    for step in range(num_steps):             # a rollout: the environment needs the action
        action = agent(next_obs)
        next_obs, reward, done, info = envs.step(action.cpu().numpy())
    train(agent, optimizer, data)
""",
    """
import torch
from somewhere import evaluate
def evaluate_model(*, classifier):            # a function of the module, not a model
    return evaluate(classifier)
def sweep(classifiers, c_range):
    for i in range(len(c_range)):             # calls only a function that runs no step loop
        c = c_range[i].item()
        evaluate_model(classifier=classifiers[c])
class Sweep:
    def run_model(self, c):
        return evaluate(c)
    def sweep(self, c_range):
        for c in c_range:
            print(c.item())
            self.run_model(c)                 # a method of the class, not a model
""",
    """
import torch
from accelerate import Accelerator
def train(model, optimizer, loader):
    accelerator = Accelerator()
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        accelerator.backward(loss)            # the engine takes the loss: it is no tensor itself
        optimizer.step()
        if accelerator.check_trigger():       # a Python bool from a method of the engine
            break
        if accelerator.sync_gradients:
            optimizer.zero_grad()
""",
    """
import torch
def log_losses(losses):
    for loss in losses:
        print(loss.item())             # called once per epoch: at its first step
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for step, x in enumerate(loader):
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            if step == 0:
                log_losses([loss])
""",
    """
import torch
def train(model, loader, optimizer, log_every):
    meters = {}
    for i, (x, y) in enumerate(loader):
        losses = {"ce": model(x).sum(), "reg": model(y).sum()}
        sum(losses.values()).backward()
        optimizer.step()
        if i % log_every == 0:
            for key, value in losses.items():  # a loop inside the interval if: every log_every steps
                meters[key] = value.item()
""",
    """
import torch
def train(model, loader, optimizer, log_every, accum):
    for i, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        is_console_step = i % log_every == 0
        is_metric_step = (i % accum == 0) or is_console_step   # interval tests held in names
        if is_metric_step:
            print(loss.item())
""",
    """
import torch
def validate(generator, loader, writer):
    for j, (x, y) in enumerate(loader):
        y_hat = generator(x.cuda())
        if j <= 4:                              # the first five batches only
            writer.add_audio(f"gen/{j}", y_hat[0].cpu(), 0)
""",
    """
import torch
def log_losses(losses):
    for loss in losses:
        print(loss.item())                      # called every 100 steps (the call graph sees it too)
def train(model, loader, opt):
    for step, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        is_log_step = step % 100 == 0
        if is_log_step:
            log_losses([loss])
""",
)
RULE.INVALID = (
    """
import torch
class Engine:
    def parse_data(self, data):
        return data["img"].cuda(), data["pid"].cuda()
    def extract(self, model, data_loader):
        pids_all = []
        for data in data_loader:
            imgs, pids = self.parse_data(data)          # moved by the helper
            model(imgs).sum().backward()
            pids_all.extend(pids.tolist())  # TPL102
""",
    """
import torch
def train(model, loader, optimizer, criterion):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        total += loss.item()  # TPL102
        preds = model(x).argmax(1).cpu().numpy()  # TPL102
        torch.cuda.synchronize()  # TPL102
        print(loss)  # TPL102
        print(f"loss={loss:.4f}")  # TPL102
        print(f"step done, lr={lr}")
        if not torch.isfinite(loss):  # TPL102
            break
        if float(criterion(model(x), y)) > 1e3:  # TPL102
            continue
    return total
""",
    """
import torch
criterion = torch.nn.MSELoss()
for step, batch in enumerate(loader):
    loss = criterion(net(batch), batch)
    loss.backward()
    if (step + 1) % accum == 0:
        opt.step()
        print(float(loss))  # TPL102
""",
    """
import torch
def log_loss_dict(losses):
    for key, value in losses.items():          # runs every step: train() calls it in its step loop
        print(key, value.item())  # TPL102
def train(model, loader, opt):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        log_loss_dict({"loss": loss})
        for name, p in model.named_parameters():   # nested in a step loop: runs every step
            print(name, p.grad.norm().item())  # TPL102
        norms = [p.grad.norm().item() for p in model.parameters()]  # TPL102
""",
    """
import torch
for x, y in loader:
    x, y = x.cuda(), y.cuda()                 # moved: no longer known to be on the host
    out = model(x)
    correct, total = (out.argmax(1) == y).sum(), y.numel()
    print(correct.item(), total)  # TPL102
    acc = float(correct) / total  # TPL102
    x.numpy()  # TPL102
""",
    """
import torch
for i, (x, y) in enumerate(train_loader):
    loss = model(x.cuda(non_blocking=True)).sum()
    if rank == 0:                             # rank 0 still syncs every step: not an interval
        writer.add_scalar("loss", loss.item(), i)  # TPL102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    """
import torch
def cross_validate(model, folds, test_loader):
    kept = []
    for i, split in enumerate(folds):
        for batch in test_loader:
            with torch.no_grad():
                logits = model(batch.cuda(non_blocking=True))
            if i == 0:                        # the fold's counter: true for every batch of fold 0
                kept.append(logits.cpu())  # TPL102
""",
    """
import torch
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            if epoch == 0:                    # every step of the first epoch
                print(loss.item())  # TPL102
""",
    """
import torch
def evaluate(model, loader, accelerator):
    for batch in loader:
        with torch.no_grad():
            outputs = model(**batch)
        preds, refs = accelerator.gather_for_metrics((outputs.logits.argmax(-1), batch["labels"]))
        print(f"{preds}")  # TPL102
""",
    """
import torch
def log_losses(losses):
    for loss in losses:
        print(loss.item())  # TPL102: called at every step of the first epoch
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            if epoch == 0:
                log_losses([loss])
""",
    """
import torch
def train(model, loader, opt):
    for i, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        if i > 4:                               # every step after the fifth
            print(loss.item())  # TPL102
        for name, value in {"loss": loss}.items():  # a small loop run at every step
            print(name, value.item())  # TPL102
""",
)
RULE.WHY = """\
CUDA kernels run asynchronously: the Python loop only queues work, and stays ahead of the GPU.
`.item()`, `.cpu()`, `.numpy()`, `.tolist()`, `float(t)`, `if t:`, `print(t)` and `.nonzero()` need the
value on the host, so the CPU waits until every queued kernel has finished and the copy is done.
Once per step, the GPU idles while Python prepares the next step, and the pipeline never fills.

Only step loops are checked: loops over a data loader, loops that call `.backward()`, an optimizer's
step or a model, loops nested in them, and loops in functions of the module that they call every
step. Values known to live on the host (numpy arrays, Python numbers, CPU tensors, a batch taken from
a loader before `.to(device)`) are read without a sync and never flagged; neither is a sync under an
`if step % N == 0:` (or `if i == 0:` / `if i < 5:` on the counter of that loop, not of an outer one;
or a name the loop sets to such a test, `is_log_step = step % N == 0`) that does not itself run the
optimizer step, nor one in a small loop nested under such an `if`."""
RULE.EXAMPLE = """\
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward(); optimizer.step()
    total += loss.item()"""
RULE.USE_INSTEAD = """\
total = torch.zeros((), device=device)
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward(); optimizer.step()
    total += loss.detach()
    if step % log_every == 0:
        print(loss.item())
print(total.item())"""
RULE.FIX_NOTE = "No autofix: where to accumulate and how often to log is the author's choice."
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#avoid-unnecessary-cpu-gpu-synchronization",
    "https://pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html",
)
