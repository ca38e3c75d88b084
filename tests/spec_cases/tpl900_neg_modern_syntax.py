# codes: TPL900
import torch


def dispatch(cmd):
    match cmd:
        case {"op": "zeros", "n": n}:
            return torch.zeros(n, device="cuda")
        case _:
            return None


if (n := len(sys.argv)) > 1:
    print(f"{n=} {torch.__version__!r:>{10}}")
