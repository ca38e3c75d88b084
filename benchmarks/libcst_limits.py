"""Where libcst's native parser dies on long flat expressions (the numbers behind engine.MAX_WIDTH).

    python benchmarks/libcst_limits.py [KIND ...]      # kinds: and or compare list call strcat

Each size is parsed in a subprocess (a stack overflow kills the process: exit status -11); the size
doubles until the parser dies, then a bisection narrows the limit. A parse slower than 60 s counts
as surviving (no crash) and stops the search. 2026-11-22, libcst 1.9.0, Python 3.11, x86_64 Linux,
8 MB main-thread stack:

    and      survives 7,000 operands, dies (SIGSEGV) at 7,250
    or       survives 7,000 operands, dies (SIGSEGV) at 7,250
    compare  survives 256,000 operands
    list     survives 148,000 items (slower than 60 s beyond)
    call     survives 132,000 arguments (slower than 60 s beyond)
    strcat   survives 256,000 implicitly concatenated strings

``a + b + ...`` nests in ast too, so MAX_NESTING (ast depth) covers it.
"""

import subprocess
import sys

KINDS = {
    "and": lambda n: "x = " + " and ".join(["a"] * n),
    "or": lambda n: "x = " + " or ".join(["a"] * n),
    "compare": lambda n: "x = " + " < ".join(["a"] * n),
    "list": lambda n: "x = [" + ", ".join(["a"] * n) + "]",
    "call": lambda n: "x = f(" + ", ".join(["a"] * n) + ")",
    "strcat": lambda n: "x = (" + " ".join(["'a'"] * n) + ")",
}
PARSE = "import sys, libcst; libcst.parse_module(sys.stdin.read())"
LIMIT = 256_000


def survives(source: str) -> bool:
    try:
        result = subprocess.run([sys.executable, "-c", PARSE], input=source, text=True,
                                capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return True
    return result.returncode >= 0  # negative: killed by a signal


def limit(kind: str) -> str:
    make = KINDS[kind]
    low, n = 0, 1000
    while n <= LIMIT and survives(make(n)):
        low, n = n, n * 2
    if n > LIMIT:
        return f"survives {low:,}"
    high = n
    while high - low > max(50, low // 30):
        middle = (low + high) // 2
        if survives(make(middle)):
            low = middle
        else:
            high = middle
    return f"survives {low:,}, dies at {high:,}"


if __name__ == "__main__":
    for kind in sys.argv[1:] or KINDS:
        print(f"{kind:8} {limit(kind)}", flush=True)
