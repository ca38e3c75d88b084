"""Precision and recall of the linter on real training code, judged by hand.

    python benchmarks/precision_triage.py CORPUS [--extend-select TPL305,TPL306,TPL503,TPL601]
        [--verdicts docs/precision_verdicts.tsv] [--misses docs/precision_misses.tsv]
        [--src DIR] [--timeout 300] [--findings-out F.jsonl | --findings-in F.jsonl]
        [--sample 15] [--sample-code TPL102=45] [--seed 0] [--rounds baseline] [--new-since F.jsonl]
        [--todo-out todo.tsv] [--show-todo N]

CORPUS holds one directory per third-party repository, named ``<owner>__<name>`` (the code itself
is never committed; docs/precision.md lists the repositories, commits and files). The script runs
the CLI (``torchperf_lint.frontends.cli.main`` of the current interpreter, or of ``--src DIR`` put first on
PYTHONPATH: how a merged tree is measured without installing it) with JSON output, all default-on
rules plus ``--extend-select``, once per repository directory (a repository over ``--timeout`` seconds
is re-linted file by file and the files that still time out are listed), and keys every finding by

    repo, path, line, code, hash        (hash: sha1 of the stripped source line, 10 hex digits)

Verdicts file (TSV, header ``repo path line code hash verdict round reason``; verdict ``true``/``false``;
round: the measurement round the judgement was made in, so that ``--rounds baseline`` reproduces an
earlier table from its own random sample only): one hand-made judgement per finding against
/work/shared/rules.md. A verdict matches a finding by the whole key, or by (repo, path, code, hash)
when its line is no longer reported and the line moved. Misses file (TSV, header
``repo path line code hash reason``): lines the spec says should be flagged, found by reading the
scripts; a miss counts as found when a finding of its code sits on its key.

Output: the per-rule table (findings, judged, true, false, precision over the judged findings,
misses open, recall estimate) and the findings that still need a verdict. Rules with more than
``--sample`` findings (``--sample-code`` per rule) are judged on a seeded random sample: the to-do
list tops the judged count up to the sample size with findings drawn in a fixed order (sorted keys
shuffled by ``random.Random(f"{seed}:{code}")``), so
a re-run after new verdicts asks for nothing more, and a re-run on a changed linter asks only for
the new findings the sample needs.

Recall estimate per rule: estimated true findings (findings x precision) divided by that plus the
misses still open. The misses come from reading a subset of the scripts, so this is an estimate
over the lines a reader found, not over every pitfall in the corpus.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERDICT_FIELDS = ["repo", "path", "line", "code", "hash", "verdict", "reason"]  # plus an optional "round"
MISS_FIELDS = ["repo", "path", "line", "code", "hash", "reason"]


def line_hash(text: str) -> str:
    return hashlib.sha1(text.strip().encode("utf-8", "surrogateescape")).hexdigest()[:10]


def source_line(path: Path, line: int) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def split_repo(corpus: Path, filename: str):
    rel = Path(filename).resolve().relative_to(corpus.resolve())
    top, rest = rel.parts[0], Path(*rel.parts[1:]).as_posix()
    return top.replace("__", "/", 1), rest


def _cli(paths, out: Path, config: Path, extend_select: str, env, jobs: int, timeout):
    """The CLI's JSON findings for `paths`, or None when it ran past `timeout` seconds (its whole
    process group, workers included, is killed then)."""
    cmd = [sys.executable, "-c", "import sys; from torchperf_lint.frontends.cli import main; sys.exit(main())",
           "check", *map(str, paths), "--output-format", "json", "--output-file", str(out),
           "--exit-zero", "--no-cache", "--config", str(config), "--jobs", str(jobs)]
    if extend_select:
        cmd += ["--extend-select", extend_select]
    if out.exists():
        out.unlink()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=out.parent, start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    if proc.returncode != 0 or not out.exists():
        sys.exit(f"linter failed (exit {proc.returncode}) on {paths}:\n{stderr[-3000:]}")
    return json.loads(out.read_text())


def run_linter(corpus: Path, extend_select: str, src, jobs: int, timeout: float):
    """The CLI's JSON findings for the corpus, as keyed records, and the files that timed out.

    The CLI runs once per repository directory; a repository that takes longer than `timeout` seconds
    is linted file by file with the same limit, and a file that still times out is reported (a hang
    in the linter is a finding of its own) and left out of the table."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([str(Path(src).resolve())] + [p for p in [env.get("PYTHONPATH")] if p])
    raw, timed_out = [], []
    with tempfile.TemporaryDirectory() as tmp:
        where = subprocess.run([sys.executable, "-c", "import torchperf_lint; print(torchperf_lint.__file__)"],
                               env=env, capture_output=True, text=True, cwd=tmp).stdout.strip()
        package_dir = Path(where).parent.parent
        rev = subprocess.run(["git", "-C", str(package_dir), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        print(f"linter: {where} (git {rev or 'unknown'})", file=sys.stderr)
        # an empty table, so no pyproject.toml above the corpus changes what runs
        config = Path(tmp) / "pyproject.toml"
        config.write_text("[tool.torchperf-lint]\n")
        out = Path(tmp) / "findings.json"
        for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
            found = _cli([repo_dir], out, config, extend_select, env, jobs, timeout)
            if found is None:
                print(f"  {repo_dir.name}: over {timeout:g}s, linting it file by file", file=sys.stderr)
                found = []
                for path in sorted(repo_dir.rglob("*.py")):
                    one = _cli([path], out, config, extend_select, env, 1, timeout)
                    if one is None:
                        timed_out.append(path.relative_to(corpus).as_posix())
                        print(f"  TIMEOUT {path}", file=sys.stderr)
                    else:
                        found += one
            raw += found
    records = []
    for item in raw:
        repo, path = split_repo(corpus, item["filename"])
        line = int(item["location"]["row"])
        text = source_line(Path(item["filename"]), line)
        records.append({"repo": repo, "path": path, "line": line, "code": item["code"],
                        "hash": line_hash(text), "source": text.strip(), "message": item["message"]})
    records.sort(key=lambda r: (r["code"], r["repo"], r["path"], r["line"]))
    return records, timed_out


def read_tsv(path: Path, fields):
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    for row in rows:
        missing = [f for f in fields if f not in row or row[f] is None]
        if missing:
            sys.exit(f"{path}: row {row} lacks {missing}")
        row["line"] = int(row["line"])
    return rows


def key(r):
    return (r["repo"], r["path"], int(r["line"]), r["code"], r["hash"])


def loose_key(r):
    return (r["repo"], r["path"], r["code"], r["hash"])


def attach_verdicts(findings, verdict_rows):
    exact = {key(v): v for v in verdict_rows}
    current = {key(f) for f in findings}
    loose = defaultdict(list)
    for v in verdict_rows:
        if key(v) not in current:  # only a verdict whose line is gone may follow its line elsewhere
            loose[loose_key(v)].append(v)
    for f in findings:
        v = exact.get(key(f))
        if v is None and len(loose[loose_key(f)]) == 1:
            v = loose[loose_key(f)][0]
        f["verdict"] = v["verdict"].strip().lower() if v else None
        f["reason"] = v["reason"] if v else ""
        if f["verdict"] not in (None, "true", "false"):
            sys.exit(f"bad verdict {f['verdict']!r} for {key(f)}")


def todo_list(findings, sample: int, seed: int, per_code=None, earlier=None):
    """Findings to judge: every unjudged one of a rule with at most `sample` findings, else enough
    seeded random draws to bring the judged count up to `sample`. With `earlier` (the keys an earlier
    run reported), the findings that are new since then form a stratum of their own that gets the
    same treatment, so a sample that survived from the earlier run does not hide what changed."""
    if earlier is not None:
        new = [f for f in findings if loose_key(f) not in earlier]
        old = [f for f in findings if loose_key(f) in earlier]
        return (todo_list(old, sample, seed, per_code)
                + todo_list(new, sample, seed + 1, per_code))
    by_code = defaultdict(list)
    for f in findings:
        by_code[f["code"]].append(f)
    todo = []
    for code, items in sorted(by_code.items()):
        want = (per_code or {}).get(code, sample)
        unjudged = [f for f in items if f["verdict"] is None]
        if len(items) <= want:
            todo += unjudged
            continue
        judged = len(items) - len(unjudged)
        order = sorted(unjudged, key=key)
        random.Random(f"{seed}:{code}").shuffle(order)
        todo += order[: max(0, want - judged)]
    return todo


def table(findings, misses):
    found_keys = {key(f) for f in findings} | {loose_key(f) for f in findings}
    codes = sorted({f["code"] for f in findings} | {m["code"] for m in misses})
    rows = []
    for code in codes:
        items = [f for f in findings if f["code"] == code]
        true = sum(f["verdict"] == "true" for f in items)
        false = sum(f["verdict"] == "false" for f in items)
        judged = true + false
        precision = true / judged if judged else None
        code_misses = [m for m in misses if m["code"] == code]
        open_misses = [m for m in code_misses if key(m) not in found_keys and loose_key(m) not in found_keys]
        est_true = len(items) * precision if precision is not None else None
        if est_true is not None and est_true + len(open_misses) > 0:
            recall = est_true / (est_true + len(open_misses))
        elif not items and open_misses:
            recall = 0.0
        else:
            recall = None
        rows.append({"code": code, "findings": len(items), "judged": judged, "true": true, "false": false,
                     "precision": precision, "misses": len(code_misses), "misses_open": len(open_misses),
                     "recall": recall})
    total = {k: sum(r[k] for r in rows) for k in ("findings", "judged", "true", "false", "misses", "misses_open")}
    # overall precision weights each rule's sample precision by its number of findings
    est = sum(r["findings"] * r["precision"] for r in rows if r["precision"] is not None)
    counted = sum(r["findings"] for r in rows if r["precision"] is not None)
    total["precision"] = est / counted if counted else None
    total["recall"] = est / (est + total["misses_open"]) if est + total["misses_open"] else None
    total["code"] = "all"
    return rows, total


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def print_table(rows, total, out=sys.stdout):
    out.write("| rule | findings | judged | true | false | precision | misses (open) | recall est. |\n")
    out.write("|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows + [total]:
        out.write(f"| {r['code']} | {r['findings']} | {r['judged']} | {r['true']} | {r['false']} | "
                  f"{fmt(r['precision'])} | {r['misses']} ({r['misses_open']}) | {fmt(r['recall'])} |\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--extend-select", default="", help="opt-in rules to add, e.g. TPL305,TPL503")
    ap.add_argument("--verdicts", type=Path, default=HERE.parent / "docs" / "precision_verdicts.tsv")
    ap.add_argument("--misses", type=Path, default=HERE.parent / "docs" / "precision_misses.tsv")
    ap.add_argument("--src", help="put this source tree first on PYTHONPATH (measure another checkout)")
    ap.add_argument("--findings-out", type=Path, help="write the keyed findings here (JSON lines)")
    ap.add_argument("--findings-in", type=Path, help="reuse findings written by --findings-out instead of linting")
    ap.add_argument("--new-since", type=Path, metavar="F.jsonl",
                    help="findings of an earlier run (--findings-out): sample the new ones separately")
    ap.add_argument("--todo-out", type=Path, help="write the findings to judge here (TSV, verdict column empty)")
    ap.add_argument("--rounds", help="use only the verdicts of these rounds (comma-separated), e.g. baseline")
    ap.add_argument("--sample", type=int, default=15)
    ap.add_argument("--sample-code", action="append", default=[], metavar="CODE=N",
                    help="a larger (or smaller) sample for one rule, e.g. TPL102=40")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300, help="seconds per repository (and per file on retry)")
    ap.add_argument("--show-todo", type=int, default=40, help="print at most this many findings to judge")
    args = ap.parse_args(argv)

    if args.findings_in:
        findings = [json.loads(l) for l in args.findings_in.read_text().splitlines() if l.strip()]
    else:
        findings, timed_out = run_linter(args.corpus, args.extend_select, args.src, args.jobs, args.timeout)
        if timed_out:
            print(f"{len(timed_out)} file(s) timed out (left out): " + ", ".join(timed_out))
    if args.findings_out:
        args.findings_out.write_text("".join(json.dumps(
            {k: f[k] for k in ("repo", "path", "line", "code", "hash", "source", "message")}) + "\n"
            for f in findings))
    verdict_rows = read_tsv(args.verdicts, VERDICT_FIELDS)
    if args.rounds:
        wanted = set(args.rounds.split(","))
        verdict_rows = [v for v in verdict_rows if v.get("round") in wanted]
    attach_verdicts(findings, verdict_rows)
    misses = read_tsv(args.misses, MISS_FIELDS)
    rows, total = table(findings, misses)
    print_table(rows, total)

    per_code = {c: int(n) for c, n in (item.split("=", 1) for item in args.sample_code)}
    earlier = None
    if args.new_since:
        earlier = {loose_key(json.loads(l)) for l in args.new_since.read_text().splitlines() if l.strip()}
    todo = todo_list(findings, args.sample, args.seed, per_code, earlier)
    if args.todo_out:
        with args.todo_out.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(["repo", "path", "line", "code", "hash", "verdict", "round", "reason", "source"])
            for f in todo:
                w.writerow([f["repo"], f["path"], f["line"], f["code"], f["hash"], "", "", "", f["source"]])
    print(f"\n{len(todo)} finding(s) to judge" + (f" (written to {args.todo_out})" if args.todo_out else ""))
    for f in todo[: args.show_todo]:
        print(f"  {f['code']} {f['repo']}/{f['path']}:{f['line']}  {f['source'][:100]}")
    open_misses = [m for m in misses if key(m) not in {key(f) for f in findings}
                   and loose_key(m) not in {loose_key(f) for f in findings}]
    if open_misses:
        print(f"\n{len(open_misses)} miss(es) still open")
    return 0


if __name__ == "__main__":
    sys.exit(main())
