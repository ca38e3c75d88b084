"""The server's pure parts: the noqa edit, positions in the client's units, the fix-all span."""

from torchperf_lint.findings import Edit
from torchperf_lint.fixing.lines import split_lines
from torchperf_lint.frontends.server import changed_span, from_client_column, noqa_edit, to_client_column


def noqa(line: str, code: str = "TPL101"):
    edit = noqa_edit(split_lines(line + "\n"), 1, code)
    if edit is None:
        return None
    return line[:edit.col] + edit.content + line[edit.end_col:]


def test_noqa_is_added_or_merged():
    assert [noqa(line) for line in (
        "x = torch.zeros(3).cuda()",
        "x = torch.zeros(3).cuda()   ",
        "x = torch.zeros(3).cuda()  # keep this",
        "x = torch.zeros(3).cuda()  # noqa: TPL201",
        "x = torch.zeros(3).cuda()  # noqa:TPL201,E501",
        "x = torch.zeros(3).cuda()  # noqa: TPL201 the reason",
        "x = torch.zeros(3).cuda()  # noqa: TPL101",
        "x = torch.zeros(3).cuda()  # noqa",
        "x = torch.zeros(3).cuda() + \\",
        "",
    )] == [
        "x = torch.zeros(3).cuda()  # noqa: TPL101",
        "x = torch.zeros(3).cuda()  # noqa: TPL101",
        "x = torch.zeros(3).cuda()  # keep this  # noqa: TPL101",
        "x = torch.zeros(3).cuda()  # noqa: TPL201, TPL101",
        "x = torch.zeros(3).cuda()  # noqa:TPL201,E501, TPL101",
        "x = torch.zeros(3).cuda()  # noqa: TPL201, TPL101 the reason",
        None,  # already listed
        None,  # a bare noqa silences everything
        None,  # no comment after a backslash
        None,
    ]


def test_columns_in_client_units():
    line = "s = '\U0001f525é'; y = 1"
    assert [to_client_column(line, 10, encoding) for encoding in ("utf-16", "utf-8", "utf-32")] == [11, 14, 10]
    assert [from_client_column(line, units, encoding) for units, encoding in
            ((11, "utf-16"), (14, "utf-8"), (10, "utf-32"), (99, "utf-16"))] == [10, 10, 10, len(line)]


def test_changed_span_covers_whole_lines():
    old = "a = 1\r\nb = 2\r\nc = 3\r\n"
    new = "a = 1\r\nb = 20\r\nc = 3\r\n"
    assert changed_span(old, new) == Edit(2, 0, 3, 0, "b = 20\r\n")
    assert changed_span("x\n", "x\ny\n") == Edit(2, 0, 2, 0, "y\n")
