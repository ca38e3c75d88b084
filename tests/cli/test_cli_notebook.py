"""Jupyter notebooks through the CLI: the code cells as one module (facts cross cells), IPython
lines skipped without losing the rest of their cell, positions per cell in text, JSON and SARIF,
``--fix`` writing only the sources of the cells it changes (outputs, metadata and the JSON layout
kept, the result still a valid notebook)."""

import json
import subprocess
import sys

import nbformat
import pytest

from torchperf_lint.frontends.notebook import read_notebook

from _diagnostics import CPU_CREATION_TEMPLATE, ITEM_SYNC as SYNC, UNPINNED_LOADER as PIN

DOCS = "https://github.com/torchperf-lint/torchperf-lint/blob/main/docs/rules/"
METADATA = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"}}
CELLS = [
    ("markdown", "# Training\nThe loader is built in one cell and iterated in another."),
    ("code", "!pip install torch\n%matplotlib inline\nimport torch\nfrom torch.utils.data import DataLoader"),
    ("code", "def log_loss_dict(losses):\n    for key, value in losses.items():\n        print(key, value.mean().item())\n"
             "\nloader = DataLoader(dataset, batch_size=32, num_workers=2)"),
    ("code", "model = build().cuda()\nbias = torch.zeros(1).cuda()\nscale = torch.ones(1).cuda()  # noqa: TPL101\n"
             "for batch in loader:\n    losses = model(batch.cuda())\n    losses[\"loss\"].backward()\n"
             "    optimizer.step()\n    log_loss_dict(losses)"),
]
OUTPUT = {"name": "stdout", "output_type": "stream", "text": ["Requirement already satisfied: torch\n"]}


def notebook_data(cells=CELLS, metadata=METADATA):
    out = []
    for number, (kind, source) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"c{number}", "metadata": {}, "source": source.splitlines(True)}
        if kind == "code":
            cell.update(execution_count=number, outputs=[OUTPUT] if number == 1 else [])
        out.append(cell)
    return {"cells": out, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def nbformat_layout(data) -> str:
    """The text nbformat writes (nbformat/v4/nbjson.py): indent 1, sorted keys, a final newline."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# log_loss_dict runs every step because cell 3 line 8 calls it in its loop: the chain names the cell.
SYNC += " (called every step from train.ipynb:cell 3:8)"
MOVE = CPU_CREATION_TEMPLATE.format(factory="zeros")


@pytest.fixture
def notebook(project):
    path = project.root / "train.ipynb"
    path.write_text(nbformat_layout(notebook_data()), encoding="utf-8")
    return path


def test_text_output_names_the_cell(project, notebook):
    code, out, err = project.run("train.ipynb")
    assert (code, err) == (1, "")
    # TPL102: the loop of a function defined in cell 2 that cell 3's step loop calls; TPL502: the
    # loader of cell 2 feeds the loop of cell 3, which moves batches to the GPU.
    assert out == (
        f"train.ipynb:cell 2:3:20: TPL102 {SYNC}\n"
        f"train.ipynb:cell 2:5:10: TPL502 [*] {PIN}\n"
        f"train.ipynb:cell 3:2:8: TPL101 [*] {MOVE}\n"
        "Found 3 findings (2 fixable with --fix, which then fixes 1 more).\n"
    )


def test_ipython_lines_are_skipped_and_the_rest_of_the_cell_kept(notebook):
    parsed = read_notebook(notebook.read_bytes())
    assert parsed.source.startswith(
        "# torchperf-lint cell 1 tpl000\n"
        "pass  # tpl000 IPython line 1\n"
        "pass  # tpl000 IPython line 2\n"
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "# torchperf-lint cell 2 tpl000\n"
        "def log_loss_dict(losses):\n")
    # Unchanged, the module gives back every cell as it was.
    assert parsed.cell_texts(parsed.source) == [c.text for c in parsed.cells]


def test_magics_of_every_kind():
    cells = [
        ("code", "%%bash\necho not python\n"),
        ("code", "%%time\nimport torch\nfor x in loader:\n    %time step(x)\n    y = torch.zeros(3).cuda()"),
        ("code", "files = !ls\ntorch.zeros?\n!pip install \\\n    torch\nz = 1"),
    ]
    raw = nbformat_layout(notebook_data(cells)).encode()
    parsed = read_notebook(raw)
    assert parsed.source == (
        "# torchperf-lint cell 1 tpl000\n"
        "pass  # tpl000 IPython line 1\n"
        "import torch\n"
        "for x in loader:\n"
        "    pass  # tpl000 IPython line 2\n"
        "    y = torch.zeros(3).cuda()\n"
        "# torchperf-lint cell 2 tpl000\n"
        "pass  # tpl000 IPython line 3\n"
        "pass  # tpl000 IPython line 4\n"
        "pass  # tpl000 IPython line 5\n"
        "pass  # tpl000 IPython line 6\n"
        "z = 1\n"
    )
    assert [(c.number, c.start) for c in parsed.cells] == [(1, 0), (2, 2), (3, 8)]
    assert parsed.cell_texts(parsed.source) == [c.text for c in parsed.cells]
    # The finding in the %%time cell is on its own line 5 (the %%time line counts).
    fixed, numbers = parsed.write(parsed.source.replace("zeros(3).cuda()", 'zeros(3, device="cuda")'))
    assert numbers == [2]
    assert json.loads(fixed)["cells"][1]["source"] == [
        "%%time\n", "import torch\n", "for x in loader:\n", "    %time step(x)\n",
        '    y = torch.zeros(3, device="cuda")']


def test_json_and_sarif_carry_the_cell(project, notebook):
    code, out, _ = project.run("--output-format", "json", "train.ipynb")
    items = json.loads(out)
    assert [(i["code"], i["cell"], i["location"], i["end_location"], i["noqa_row"]) for i in items] == [
        ("TPL102", 2, {"row": 3, "column": 20}, {"row": 3, "column": 39}, 3),
        ("TPL502", 2, {"row": 5, "column": 10}, {"row": 5, "column": 59}, 5),
        ("TPL101", 3, {"row": 2, "column": 8}, {"row": 2, "column": 22}, 2),
    ]
    assert items[2] == {
        "code": "TPL101", "message": MOVE, "filename": str(project.root / "train.ipynb"),
        "location": {"row": 2, "column": 8}, "end_location": {"row": 2, "column": 22},
        "fix": {"applicability": "safe", "message": 'create the tensor with device="cuda"',
                "edits": [{"content": ', device="cuda"', "location": {"row": 2, "column": 21},
                           "end_location": {"row": 2, "column": 28}}]},
        "url": f"{DOCS}TPL101.md", "noqa_row": 2, "cell": 3, "name": "cpu-then-device", "severity": "warning",
    }
    assert items[0]["message"] == SYNC
    assert items[0]["related"] == [{"filename": "train.ipynb", "location": {"row": 8, "column": 1},
                                    "message": items[0]["related"][0]["message"]}]
    assert items[0]["related"][0]["message"].startswith("cell 3: ")
    code, out, _ = project.run("--output-format", "sarif", "train.ipynb")
    results = json.loads(out)["runs"][0]["results"]
    assert [(r["ruleId"], r["properties"], r["locations"][0]["physicalLocation"]["region"]) for r in results] == [
        ("TPL102", {"cell": 2}, {"startLine": 3, "startColumn": 20, "endLine": 3, "endColumn": 39}),
        ("TPL502", {"cell": 2}, {"startLine": 5, "startColumn": 10, "endLine": 5, "endColumn": 59}),
        ("TPL101", {"cell": 3}, {"startLine": 2, "startColumn": 8, "endLine": 2, "endColumn": 22}),
    ]


def test_fix_rewrites_only_the_fixed_cells_and_keeps_the_rest(project, notebook):
    before = notebook.read_text(encoding="utf-8")
    code, out, err = project.run("--fix", "train.ipynb")
    after = notebook.read_text(encoding="utf-8")
    expected = (before
                .replace('"loader = DataLoader(dataset, batch_size=32, num_workers=2)"',
                         '"loader = DataLoader(dataset, batch_size=32, num_workers=2, pin_memory=True)"')
                .replace('"bias = torch.zeros(1).cuda()\\n"', '"bias = torch.zeros(1, device=\\"cuda\\")\\n"')
                .replace('"    losses = model(batch.cuda())\\n"', '"    losses = model(batch.cuda(non_blocking=True))\\n"'))
    assert after == expected
    assert after != before
    nbformat.validate(nbformat.reads(after, as_version=4))
    assert (code, err) == (1, "")
    assert out == (
        f"train.ipynb:cell 2:3:20: TPL102 {SYNC}\n"
        "Fixed 3 findings.\n"
        "  train.ipynb: TPL502 pass pin_memory=True\n"
        '  train.ipynb: TPL101 create the tensor with device="cuda"\n'
        "  train.ipynb: TPL104 add non_blocking=True (made possible by an earlier fix)\n"
        "Found 1 finding.\n")
    # A second run changes nothing.
    assert project.run("--fix", "train.ipynb") == (1, f"train.ipynb:cell 2:3:20: TPL102 {SYNC}\nFound 1 finding.\n", "")
    assert notebook.read_text(encoding="utf-8") == after


def test_fix_keeps_another_json_layout(project):
    data = notebook_data()
    data["cells"][3]["source"] = "".join(data["cells"][3]["source"])  # one string, not a list of lines
    raw = json.dumps(data, indent=2)  # insertion order, two spaces, no final newline, \u escapes
    path = project.root / "layout.ipynb"
    path.write_text(raw, encoding="utf-8")
    code, out, err = project.run("--fix", "--select", "TPL101", "layout.ipynb")
    assert (code, out, err) == (0, 'Fixed 1 finding.\n  layout.ipynb: TPL101 create the tensor with device="cuda"\n'
                                   "All checks passed!\n", "")
    assert path.read_text(encoding="utf-8") == raw.replace(
        'bias = torch.zeros(1).cuda()\\n', 'bias = torch.zeros(1, device=\\"cuda\\")\\n')
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))


def test_diff_shows_the_cells_and_writes_nothing(project, notebook):
    before = notebook.read_text(encoding="utf-8")
    code, out, err = project.run("--diff", "--select", "TPL101", "train.ipynb")
    assert (code, out) == (1, (
        "--- train.ipynb:cell 3\n"
        "+++ train.ipynb:cell 3\n"
        "@@ -1,5 +1,5 @@\n"
        " model = build().cuda()\n"
        "-bias = torch.zeros(1).cuda()\n"
        '+bias = torch.zeros(1, device="cuda")\n'
        " scale = torch.ones(1).cuda()  # noqa: TPL101\n"
        " for batch in loader:\n"
        "     losses = model(batch.cuda())\n"))
    assert err == 'Would fix 1 finding.\n  train.ipynb: TPL101 create the tensor with device="cuda"\n'
    assert notebook.read_text(encoding="utf-8") == before


def test_a_folder_lints_its_notebooks(project, notebook):
    (project.root / "train.py").write_text("import torch\n\nm = torch.nn.DataParallel(net)\n", encoding="utf-8")
    code, out, _ = project.run("--select", "TPL101,TPL201", ".")
    assert (code, out) == (1, (
        f"train.ipynb:cell 3:2:8: TPL101 [*] {MOVE}\n"
        "train.py:3:5: TPL201 `nn.DataParallel` runs one Python thread for all GPUs and copies the model to each "
        "every step; use `DistributedDataParallel`, one process per GPU, launched with `torchrun` "
        "(runtime_guard: DDP wrapping)\n"
        "Found 2 findings (1 fixable with --fix).\n"))


def test_not_python_and_not_a_notebook(project):
    other = notebook_data(metadata={"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}})
    (project.root / "r.ipynb").write_text(nbformat_layout(other), encoding="utf-8")
    (project.root / "broken.ipynb").write_text("{not json", encoding="utf-8")
    code, out, _ = project.run("r.ipynb", "broken.ipynb")
    assert (code, out) == (1, (
        "broken.ipynb:1:1: TPL900 could not analyse this file: the notebook is not valid JSON: Expecting property "
        "name enclosed in double quotes: line 1 column 2 (char 1)\n"
        "Found 1 finding.\n"))


def test_stdin_fix_writes_the_fixed_notebook(project, notebook):
    raw = notebook.read_bytes()
    done = subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "check", "--select", "TPL101",
                           "--fix", "-", "--stdin-filename", "train.ipynb"],
                          input=raw, cwd=project.root, capture_output=True, timeout=300)
    assert done.stdout == raw.replace(b'"bias = torch.zeros(1).cuda()\\n"',
                                      b'"bias = torch.zeros(1, device=\\"cuda\\")\\n"')
    assert done.returncode == 0


def test_linting_a_notebook_needs_no_nbformat(project, notebook):
    done = subprocess.run([sys.executable, "-c", (
        "import sys\n"
        "from torchperf_lint.frontends import cli\n"
        "status = cli.main(['check', '--no-cache', '--select', 'TPL101', '--quiet', 'train.ipynb'])\n"
        "print(status, 'nbformat' in sys.modules)\n")], cwd=project.root, capture_output=True, text=True, timeout=300)
    assert done.stdout.splitlines()[-1] == "1 False"


def test_a_syntax_error_is_placed_in_its_cell(project):
    cells = [("code", "import torch\nx = torch.zeros(3).cuda()\n"), ("code", ""), ("code", "%matplotlib inline"),
             ("code", "def f(:\n    pass")]
    (project.root / "broken.ipynb").write_text(nbformat_layout(notebook_data(cells)), encoding="utf-8")
    assert project.run("broken.ipynb") == (1, (
        "broken.ipynb:cell 4:1:7: TPL900 could not analyse this file: syntax error at line 1 of cell 4: "
        "invalid syntax\n"
        "Found 1 finding.\n"), "")


def test_fix_keeps_crlf_line_ends_of_a_cell(project):
    cells = [("code", "import torch\r\nx = torch.zeros(3).cuda()\r\ny = 1")]
    path = project.root / "crlf.ipynb"
    raw = nbformat_layout(notebook_data(cells))
    path.write_text(raw, encoding="utf-8", newline="")
    assert project.run("--fix", "crlf.ipynb")[0] == 0
    assert path.read_bytes().decode("utf-8") == raw.replace(
        '"x = torch.zeros(3).cuda()\\r\\n"', '"x = torch.zeros(3, device=\\"cuda\\")\\r\\n"')


def test_add_noqa_writes_into_the_cells_and_keeps_the_notebook(project, notebook):
    before = notebook.read_text(encoding="utf-8")
    code, out, err = project.run("--add-noqa", "train.ipynb")
    after = notebook.read_text(encoding="utf-8")
    expected = (before
                .replace('"        print(key, value.mean().item())\\n"',
                         '"        print(key, value.mean().item())  # noqa: TPL102\\n"')
                .replace('"loader = DataLoader(dataset, batch_size=32, num_workers=2)"',
                         '"loader = DataLoader(dataset, batch_size=32, num_workers=2)  # noqa: TPL502"')
                .replace('"bias = torch.zeros(1).cuda()\\n"', '"bias = torch.zeros(1).cuda()  # noqa: TPL101\\n"'))
    assert after == expected
    nbformat.validate(nbformat.reads(after, as_version=4))
    assert code == 0 and "Added 3 noqa directives." in err
    # Idempotent, and the notebook now lints clean.
    assert project.run("--add-noqa", "train.ipynb")[0] == 0
    assert notebook.read_text(encoding="utf-8") == after
    assert project.run("train.ipynb")[0] == 0


def test_the_other_formats_name_the_cell(project, notebook):
    code, out, _ = project.run("--output-format", "pylint", "train.ipynb")
    assert out.splitlines()[0] == f"train.ipynb:cell 2:3: [TPL102] {SYNC}"
    code, out, _ = project.run("--output-format", "json-lines", "train.ipynb")
    assert [json.loads(line)["cell"] for line in out.splitlines()] == [2, 2, 3]
    code, out, _ = project.run("--output-format", "gitlab", "train.ipynb")
    assert json.loads(out)[0]["description"] == f"cell 2: TPL102 (host-sync-in-loop): {SYNC}"
    code, out, _ = project.run("--output-format", "junit", "train.ipynb")
    assert f"cell 2, line 3, col 20, TPL102 {SYNC}" in out
