"""Report formats: text, json (ruff's fields), sarif 2.1.0, github annotations; and `rule`."""

import json

from _cli_helpers import DATA_PARALLEL, FIXABLE, UNSAFE

from torchperf_lint.catalog import CATALOG


def test_text_marks_fixable_and_summarises(project):
    project.write("a.py", FIXABLE)
    project.write("b.py", UNSAFE)
    project.write("c.py", DATA_PARALLEL)
    code, out, _ = project.run()
    lines = out.splitlines()
    assert lines[0].startswith("a.py:4:9: TPL101 [*] ")
    assert lines[3].startswith("b.py:4:12: TPL101 tensor")  # unsafe: no marker by default
    assert lines[4].startswith("c.py:3:9: TPL201 `nn.DataParallel`")
    assert lines[-1] == "Found 5 findings (3 fixable with --fix; 1 more with --unsafe-fixes)."
    _, out, _ = project.run("--unsafe-fixes")
    assert "b.py:4:12: TPL101 [*] " in out
    assert out.splitlines()[-1] == "Found 5 findings (4 fixable with --fix)."
    _, out, _ = project.run("-q")
    assert "Found" not in out


def test_json_has_ruff_fields(project):
    project.write("a.py", FIXABLE)
    project.write("c.py", DATA_PARALLEL)
    code, out, _ = project.run("--output-format", "json")
    assert code == 1
    items = json.loads(out)
    assert [i["code"] for i in items] == ["TPL101"] * 3 + ["TPL201"]
    first = items[0]
    assert set(first) == {"code", "name", "severity", "message", "filename", "location", "end_location", "fix",
                          "url", "noqa_row"}
    assert (first["name"], first["severity"]) == ("cpu-then-device", "warning")  # as ruff: the rule's name
    assert first["filename"] == str(project.root / "a.py")
    assert first["location"] == {"row": 4, "column": 9}  # 1-based, as ruff
    assert first["end_location"]["row"] == 4 and first["end_location"]["column"] > 9
    assert first["noqa_row"] == 4
    assert first["url"].endswith("/TPL101.md")
    fix = first["fix"]
    assert fix["applicability"] == "safe" and fix["message"]
    edit = fix["edits"][0]
    assert set(edit) == {"content", "location", "end_location"}
    assert "device=" in edit["content"]
    assert items[3]["fix"] is None
    # applying the JSON edits (1-based columns) gives the same text as --fix
    source = (project.root / "a.py").read_text()
    lines = source.splitlines(keepends=True)
    for item in reversed(items[:3]):
        e = item["fix"]["edits"][0]
        (r0, c0), (r1, c1) = (e["location"]["row"], e["location"]["column"]), \
            (e["end_location"]["row"], e["end_location"]["column"])
        assert r0 == r1
        line = lines[r0 - 1]
        lines[r0 - 1] = line[:c0 - 1] + e["content"] + line[c1 - 1:]
    project.run("--fix")
    assert "".join(lines) == (project.root / "a.py").read_text()


def test_json_clean_is_empty_list(project):
    project.write("a.py", "import torch\n")
    code, out, _ = project.run("--output-format", "json")
    assert code == 0 and json.loads(out) == []


def test_sarif_structure(project):
    project.write("pkg/a.py", FIXABLE)
    project.write("c.py", DATA_PARALLEL)
    code, out, _ = project.run("--output-format", "sarif")
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "torchperf-lint" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert ids == list(CATALOG)
    for rule in driver["rules"]:
        assert rule["name"] == CATALOG[rule["id"]].name
        assert rule["shortDescription"]["text"]
        assert rule["helpUri"].startswith("https://")
    assert len(run["results"]) == 4
    for result in run["results"]:
        assert result["ruleId"] in CATALOG
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("warning", "error", "note")
        assert result["message"]["text"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uri"] in ("pkg/a.py", "c.py")  # relative, forward slashes
        region = location["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 9
    json.dumps(doc)  # plain JSON all the way down


def test_github_annotations(project):
    project.write("c.py", DATA_PARALLEL)
    code, out, _ = project.run("--output-format", "github")
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith("::warning title=torchperf-lint (TPL201),file=c.py,line=3,col=9,endLine=3,endColumn=")
    assert "::TPL201 `nn.DataParallel`" in line


def test_output_file(project):
    project.write("c.py", DATA_PARALLEL)
    code, out, _ = project.run("--output-format", "json", "-o", "report.json")
    assert code == 1 and out == ""
    assert json.loads((project.root / "report.json").read_text())[0]["code"] == "TPL201"


def test_rule_docs(project):
    code, out, _ = project.raw("rule", "TPL101")
    assert code == 0
    assert "TPL101" in out and "cpu-then-device" in out
    assert "```python" in out  # the example
    assert project.raw("rule", "cpu-then-device")[1] == out
    code, out, _ = project.raw("rule", "--all")
    assert code == 0 and all(c in out for c in CATALOG)
    code, out, _ = project.raw("rule", "--all", "--output-format", "json")
    assert [r["code"] for r in json.loads(out)] == list(CATALOG)
    assert project.raw("rule", "TPL999")[0] == 2
    assert project.raw("rule", "TPL503")[0] == 0  # opt-in, documented even before it is checked


def test_json_noqa_row_is_where_a_noqa_comment_works(project):
    project.write("a.py", 'import torch\nm = torch.nn.DataParallel(m, x="""\n\n""")\nn = torch.nn.DataParallel(m)\n')
    items = json.loads(project.run("--output-format", "json")[1])
    assert [(i["location"]["row"], i["noqa_row"]) for i in items] == [(2, 4), (5, 5)]
