"""Which findings an engine change adds and removes on real training code.

    python benchmarks/findings_diff.py --base REV_OR_DIR --head REV_OR_DIR [--head NAME=REV_OR_DIR ...]
        CORPUS [CORPUS ...] [--cache-dir DIR] [--timeout 900] [--verdicts TSV ...] [--misses TSV ...]
        [--regression-verdicts docs/precision_regression_verdicts.tsv] [--diff-out F.tsv]
        [--show-messages]

Each CORPUS holds one directory per third-party repository, named ``<owner>__<name>`` (the code is
never committed; docs/precision.md lists the repositories, commits and selections). Every repository
is linted as its own project, from its own folder:

    python -m torchperf_lint.frontends.cli check . --output-format json --no-cache --exit-zero -q \
        --select <every code of that engine's catalog>

with that engine's ``torchperf_lint`` first on PYTHONPATH (``--python``: the interpreter, default
this one; it needs libcst and flake8, not torch). ``--select`` with the catalog's whole code list
runs the opt-in rules too, and a rule that only one engine has shows up as added or removed.
Test files keep their default (off, as for users).

An engine is either a directory (a worktree: its ``torchperf_lint/`` as it is on disk, uncommitted
edits included) or a git revision of ``--repo`` (default: this checkout's repository): the
revision's ``torchperf_lint/`` is exported with ``git archive`` under ``--cache-dir``, so a branch
is measured at a commit, not at a half-saved edit. Results are cached per (engine code hash,
corpus file list), so a second head against the same base re-lints only the head.

Findings are matched by (repository, path, line, code) as multisets: two findings of one code on
one line count twice. A key in both runs whose messages differ is listed as "message changed"
(fix applicability changes likewise), not as removed plus added.

Verdicts: ``--verdicts`` takes the earlier hand-judged TSV files (docs/precision_verdicts.tsv,
docs/precision_holdout*_verdicts.tsv; header with ``repo``, ``path`` or ``file``, ``line``, ``code``,
``verdict``; repo written ``owner/name``, ``owner+name`` or ``owner__name``; where a key has several
rows, the last one counts); ``--misses`` the earlier misses files (a recorded miss that an engine
flags counts as a true finding, and the script prints how many of them each engine flags).
``--regression-verdicts`` (header ``branch repo path line code change
verdict why``) adds the verdicts on the findings a branch added or removed (a verdict is about a
line, so a head named otherwise, such as a merge, reuses any branch's verdict). With verdicts, the
script prints for every engine the judged / true / false / unsure counts over its findings and the
precision (unsure left out), and every added finding judged false and removed finding judged true:
the regressions.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import io
import tarfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def tree_hash(package: Path) -> str:
    """Content hash of an engine's torchperf_lint/ (its .py files): equal code, equal findings."""
    h = hashlib.sha1()
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:12]


class Engine:
    def __init__(self, name: str, spec: str, repo: Path, cache: Path):
        self.name = name
        self.spec = spec
        if Path(spec).is_dir():
            self.src = Path(spec).resolve()
            self.origin = f"directory {self.src}"
        else:
            sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", f"{spec}^{{commit}}"],
                                 check=True, capture_output=True, text=True).stdout.strip()
            self.src = cache / "engines" / sha
            if not (self.src / "torchperf_lint").is_dir():
                archive = subprocess.run(["git", "-C", str(repo), "archive", sha, "torchperf_lint"],
                                         check=True, capture_output=True).stdout
                self.src.mkdir(parents=True, exist_ok=True)
                with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                    tar.extractall(self.src)
            self.origin = f"{spec} = {sha[:10]}"
        if not (self.src / "torchperf_lint").is_dir():
            raise SystemExit(f"{spec}: no torchperf_lint/ there")
        self.code_hash = tree_hash(self.src / "torchperf_lint")

    def env(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.src)
        env.pop("TORCHPERF_LINT_CACHE_DIR", None)
        return env

    def codes(self, python: str) -> list:
        out = subprocess.run([python, "-c", "from torchperf_lint.catalog import CATALOG; print(','.join(CATALOG))"],
                             env=self.env(), cwd="/", check=True, capture_output=True, text=True).stdout
        return out.strip().split(",")


def repo_dirs(corpus: Path):
    return sorted(p for p in corpus.iterdir() if p.is_dir() and "__" in p.name)


def corpus_hash(repo_dir: Path) -> str:
    h = hashlib.sha1()
    for path in sorted(repo_dir.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(repo_dir)}\0{st.st_size}\0{int(st.st_mtime)}\n".encode())
    return h.hexdigest()[:12]


def run_engine(engine: Engine, repo_dir: Path, python: str, cache: Path, timeout: int):
    """The findings of `engine` on one repository: a list of dicts (path, line, code, message, fix)
    or None after a timeout or a crash (reported on stderr)."""
    key = cache / "runs" / engine.code_hash / f"{repo_dir.parent.name}__{repo_dir.name}__{corpus_hash(repo_dir)}.json"
    if key.exists():
        return json.loads(key.read_text())
    select = ",".join(engine.codes(python))
    cmd = ["nice", python, "-m", "torchperf_lint.frontends.cli", "check", ".", "--output-format", "json",
           "--no-cache", "--exit-zero", "-q", "--select", select]
    proc = subprocess.Popen(cmd, cwd=repo_dir, env=engine.env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        print(f"TIMEOUT {engine.name} {repo_dir.name} after {timeout}s", file=sys.stderr)
        return None
    if proc.returncode != 0:
        print(f"FAILED {engine.name} {repo_dir.name} exit {proc.returncode}: {err[-2000:]}", file=sys.stderr)
        return None
    findings = []
    for item in json.loads(out or "[]"):
        fix = item.get("fix") or {}
        findings.append({
            "path": Path(item["filename"]).resolve().relative_to(repo_dir.resolve()).as_posix(),
            "line": item["location"]["row"],
            "code": item["code"],
            "message": item["message"],
            "fix": fix.get("applicability") if fix else None,
        })
    findings.sort(key=lambda f: (f["path"], f["line"], f["code"], f["message"]))
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text(json.dumps(findings))
    return findings


def norm_repo(name: str) -> str:
    return name.replace("/", "__", 1).replace("+", "__", 1) if "__" not in name else name


def load_verdicts(paths, misses=()):
    """(repo, path, line, code) -> (verdict, why); the last row of a key wins. A recorded miss (a
    line the spec says should be flagged, found by reading) is a true finding once it is flagged."""
    verdicts = {}
    for path, is_miss in [(p, False) for p in paths] + [(p, True) for p in misses]:
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                key = (norm_repo(row["repo"]), row.get("path") or row.get("file"), int(row["line"]),
                       row.get("code") or row.get("expected_code"))
                if is_miss:
                    verdicts.setdefault(key, ("true", "recorded miss: " + (row.get("reason") or row.get("what") or "")))
                else:
                    verdicts[key] = (row["verdict"].strip(), row.get("reason") or row.get("why") or "")
    return verdicts


def load_regression_verdicts(path):
    """(branch, change, repo, path, line, code) -> (verdict, why)."""
    verdicts = {}
    if path and Path(path).exists():
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                key = (row["branch"], row["change"], norm_repo(row["repo"]), row["path"], int(row["line"]), row["code"])
                verdicts[key] = (row["verdict"].strip(), row["why"])
                # a verdict is about the line, not the branch: a merge of branches reuses it
                verdicts.setdefault(("*",) + key[1:], (row["verdict"].strip(), f"{row['why']} (judged on {row['branch']})"))
    return verdicts


def keyed(findings):
    by_key = defaultdict(list)
    for f in findings:
        by_key[(f["path"], f["line"], f["code"])].append(f)
    return by_key


def diff(base, head):
    """removed, added (lists of findings) and changed (pairs) between two runs of one repository."""
    b, h = keyed(base), keyed(head)
    removed, added, changed = [], [], []
    for key in sorted(set(b) | set(h), key=lambda k: (k[0], k[1], k[2])):
        bs, hs = b.get(key, []), h.get(key, [])
        common = min(len(bs), len(hs))
        removed += bs[common:]
        added += hs[common:]
        bm = Counter((f["message"], f["fix"]) for f in bs[:common])
        hm = Counter((f["message"], f["fix"]) for f in hs[:common])
        if bm != hm:
            changed.append((bs[:common], hs[:common]))
    return removed, added, changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpora", nargs="+", type=Path)
    ap.add_argument("--base", required=True, help="git revision or engine directory")
    ap.add_argument("--head", action="append", required=True,
                    help="NAME=REV_OR_DIR (or REV_OR_DIR, named after it); repeatable")
    ap.add_argument("--repo", type=Path, default=REPO, help="git repository the revisions belong to")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--cache-dir", type=Path, default=Path("/work/scratch/findings_diff"))
    ap.add_argument("--timeout", type=int, default=900, help="seconds for one repository")
    ap.add_argument("--verdicts", nargs="*", default=[], help="earlier verdict TSV files")
    ap.add_argument("--misses", nargs="*", default=[], help="earlier misses TSV files (flagged = true)")
    ap.add_argument("--regression-verdicts", default=None)
    ap.add_argument("--diff-out", type=Path, help="write every change as TSV (for judging)")
    ap.add_argument("--show-messages", action="store_true", help="print each message change in full")
    args = ap.parse_args(argv)

    cache = args.cache_dir.resolve()
    base = Engine("base", args.base, args.repo, cache)
    heads = []
    for spec in args.head:
        name, _, value = spec.partition("=") if "=" in spec else (spec, "", spec)
        heads.append(Engine(name, value, args.repo, cache))
    verdicts = load_verdicts(args.verdicts, args.misses)
    miss_keys = set(load_verdicts([], args.misses)) - set(load_verdicts(args.verdicts))
    misses_found = {}
    reg = load_regression_verdicts(args.regression_verdicts)
    print(f"python: {args.python}")
    for e in [base] + heads:
        print(f"engine {e.name}: {e.origin} (code {e.code_hash})")

    rows = []
    totals = {e.name: Counter() for e in heads}
    precision = {e.name: Counter() for e in [base] + heads}
    by_corpus = defaultdict(Counter)
    by_rule = defaultdict(Counter)
    regressions = []
    for corpus in args.corpora:
        for repo_dir in repo_dirs(corpus):
            base_f = run_engine(base, repo_dir, args.python, cache, args.timeout)
            for e in [base] + heads:
                fs = base_f if e is base else run_engine(e, repo_dir, args.python, cache, args.timeout)
                if fs is None:
                    precision[e.name]["failed repos"] += 1
                    continue
                for f in fs:
                    k = (repo_dir.name, f["path"], f["line"], f["code"])
                    if k in miss_keys:
                        misses_found.setdefault(e.name, set()).add(k)
                    v = verdicts.get(k) or reg.get((e.name, "added", *k)) or reg.get(("*", "added", *k))
                    precision[e.name][v[0] if v else "unjudged"] += 1
                    by_corpus[(e.name, corpus.name)][v[0] if v else "unjudged"] += 1
                    by_rule[(e.name, f["code"])][v[0] if v else "unjudged"] += 1
            if base_f is None:
                continue
            for e in heads:
                head_f = run_engine(e, repo_dir, args.python, cache, args.timeout)
                if head_f is None:
                    continue
                removed, added, changed = diff(base_f, head_f)
                if not (removed or added or changed):
                    continue
                print(f"\n== {e.name}  {corpus.name}/{repo_dir.name}: -{len(removed)} +{len(added)} ~{len(changed)}")
                per_rule = Counter()
                for change, fs in (("removed", removed), ("added", added)):
                    for f in fs:
                        per_rule[(f["code"], change)] += 1
                        k = (repo_dir.name, f["path"], f["line"], f["code"])
                        prior = verdicts.get(k)
                        mine = reg.get((e.name, change, *k)) or reg.get(("*", change, *k))
                        v = mine or prior
                        tag = f"[{v[0]}]" if v else "[?]"
                        print(f"  {'-' if change == 'removed' else '+'} {f['code']} {f['path']}:{f['line']} {tag} {f['message'][:110]}")
                        rows.append([e.name, corpus.name, repo_dir.name, f["path"], f["line"], f["code"], change,
                                     prior[0] if prior else "", mine[0] if mine else "", f["message"]])
                        totals[e.name][change] += 1
                        if v:
                            totals[e.name][f"{change} {v[0]}"] += 1
                            if (change == "added" and v[0] == "false") or (change == "removed" and v[0] == "true"):
                                regressions.append((e.name, repo_dir.name, f["path"], f["line"], f["code"], change, v[1]))
                summary = defaultdict(lambda: [0, 0])
                for (code, change), n in per_rule.items():
                    summary[code][0 if change == "removed" else 1] += n
                print("  per rule: " + ", ".join(f"{c} -{r} +{a}" for c, (r, a) in sorted(summary.items())))
                for old, new in changed:
                    f = (old or new)[0]
                    totals[e.name]["message changed"] += 1
                    print(f"  ~ {f['code']} {f['path']}:{f['line']} message/fix changed")
                    if args.show_messages:
                        for o in old:
                            print(f"      old: {o['message']} (fix: {o['fix']})")
                        for n in new:
                            print(f"      new: {n['message']} (fix: {n['fix']})")
                    rows.append([e.name, corpus.name, repo_dir.name, f["path"], f["line"], f["code"], "message",
                                 "", "", " | ".join(n["message"] for n in new)])

    print("\n== totals")
    for e in heads:
        t = totals[e.name]
        print(f"{e.name}: removed {t['removed']} (judged true {t['removed true']}, false {t['removed false']}, "
              f"unsure {t['removed unsure']}), added {t['added']} (true {t['added true']}, false {t['added false']}, "
              f"unsure {t['added unsure']}), message changes {t['message changed']}")
    if verdicts or reg:
        print("\n== precision over the judged findings each engine reports (unsure left out)")
        for e in [base] + heads:
            c = precision[e.name]
            judged = c["true"] + c["false"]
            p = f"{c['true'] / judged:.3f}" if judged else "-"
            print(f"{e.name}: findings {sum(v for k, v in c.items() if k != 'failed repos')}, true {c['true']}, "
                  f"false {c['false']}, unsure {c['unsure']}, unjudged {c['unjudged']}, precision {p}"
                  + (f", FAILED REPOS {c['failed repos']}" if c["failed repos"] else ""))
        if miss_keys:
            print(f"\n== recorded misses (lines read as pitfalls, {len(miss_keys)} in all) that each engine flags")
            for e in [base] + heads:
                print(f"{e.name}: {len(misses_found.get(e.name, ()))}")
        print("\n== per rule, all four corpora: findings, true/judged (precision), unsure")
        codes = sorted({code for _, code in by_rule})
        print("rule     " + "".join(f"{e.name:>30}" for e in [base] + heads))
        for code in codes:
            cells = []
            for e in [base] + heads:
                c = by_rule[(e.name, code)]
                judged = c["true"] + c["false"]
                p = f"{c['true'] / judged:.3f}" if judged else "-"
                cells.append(f"{sum(c.values())} {c['true']}/{judged} ({p}) u{c['unsure']}")
            print(f"{code:8} " + "".join(f"{cell:>30}" for cell in cells))
        print("\n== the same per corpus: true/judged (precision)")
        for e in [base] + heads:
            cells = []
            for corpus in args.corpora:
                c = by_corpus[(e.name, corpus.name)]
                judged = c["true"] + c["false"]
                cells.append(f"{corpus.name} {c['true']}/{judged} ({c['true'] / judged:.3f})" if judged else f"{corpus.name} -")
            print(f"{e.name}: " + ", ".join(cells))
        print("\n== regressions (false positives added, true findings removed)")
        for r in regressions:
            print(f"{r[0]}: {r[5]} {r[4]} {r[1]}/{r[2]}:{r[3]} — {r[6]}")
        if not regressions:
            print("none among the judged changes")
    if args.diff_out:
        with open(args.diff_out, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(["branch", "corpus", "repo", "path", "line", "code", "change", "prior_verdict",
                        "regression_verdict", "message"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
