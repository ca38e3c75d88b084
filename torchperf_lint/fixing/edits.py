"""Turning a rule's node replacements into text edits, and the libcst helpers the rules' fixes share.

A fix must read as if a careful person had typed it: only the text of the replaced nodes changes
(libcst does not reproduce every source byte-for-byte, e.g. ``except X :`` comes back as
``except X:``, so edits are computed against libcst's own rendering and mapped back onto the
original text), a keyword added to a call that spans lines goes on its own line like the other
arguments, comments stay where they were, and a call that a fix would push past the project's line
length is wrapped one argument per line.
"""

from __future__ import annotations

import difflib
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..findings import Edit, Fix, RuleFix
from .lines import DEFAULT_LINE_LENGTH, split_lines

_NO_SPACE = cst.SimpleWhitespace("")
_SPACE = cst.SimpleWhitespace(" ")


# ---- node replacements -> text edits ------------------------------------------------------------

class _Replacer(cst.CSTTransformer):
    def __init__(self, replacements: Dict[int, cst.CSTNode]):
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)


# The unit's own rendering, kept for its next finding (a unit often has several fixes).
_last_rendered: List[Tuple[cst.Module, str]] = []


def _rendered(module: cst.Module) -> str:
    if not _last_rendered or _last_rendered[0][0] is not module:
        _last_rendered[:] = [(module, module.code)]
    return _last_rendered[0][1]


def _render(module: cst.Module, replacements) -> str:
    return module.visit(_Replacer({id(old): new for old, new in replacements})).code


def to_fix(
    module: cst.Module,
    code: str,
    line_offset: int,
    rule_fix: RuleFix,
    positions=None,
    max_line_length: int = DEFAULT_LINE_LENGTH,
) -> Optional[Fix]:
    """The rule's replacements as minimal edits of ``code`` (the unit's text) in file coordinates.

    ``positions`` (libcst's PositionProvider results) lets a call that the fix pushes past
    ``max_line_length`` be wrapped one argument per line. None when the edit would touch a line
    libcst does not reproduce exactly (the fix would reformat the user's code).
    """
    replacements = list(rule_fix.replacements)
    file_edits = tuple(rule_fix.file_edits)  # edits outside the unit (TPL304's call sites)
    rendered = _rendered(module)
    new_code = _render(module, replacements) if replacements else rendered
    if new_code == rendered:
        if file_edits:
            return Fix(rule_fix.applicability, rule_fix.description, file_edits)
        return None
    if positions is not None and pushes_past(rendered, new_code, max_line_length):
        wrapped = [(old, _wrap_if_call(old, new, code, positions)) for old, new in replacements]
        if any(w is not n for (_, n), (_, w) in zip(replacements, wrapped)):
            new_code = _render(module, wrapped)
    edits = _line_edits(code, rendered, new_code, line_offset)
    if edits is None:
        return None
    return Fix(rule_fix.applicability, rule_fix.description, tuple(edits) + file_edits)


def _hunks(old_lines: Sequence[str], new_lines: Sequence[str]):
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [op for op in matcher.get_opcodes() if op[0] != "equal"]


def pushes_past(old: str, new: str, limit: int) -> bool:
    """Does some changed line now exceed ``limit`` where every line it replaces fitted?"""
    old_lines = [line.rstrip("\r\n") for line in split_lines(old)]
    new_lines = [line.rstrip("\r\n") for line in split_lines(new)]
    for _, i1, i2, j1, j2 in _hunks(old_lines, new_lines):
        fitted = all(len(line) <= limit for line in old_lines[i1:i2])
        if fitted and any(len(line) > limit for line in new_lines[j1:j2]):
            return True
    return False


def _wrap_if_call(old: cst.CSTNode, new: cst.CSTNode, code: str, positions) -> cst.CSTNode:
    if not isinstance(new, cst.Call) or not new.args or old not in positions:
        return new
    if "\n" in cst.Module([]).code_for_node(new):
        return new  # already spans lines: add_keyword laid it out
    # Lines as Python counts them (a form feed in a string or comment ends none), and the
    # indentation as Python counts it (whatever precedes a form feed in it counts for nothing).
    line = split_lines(code)[positions[old].start.line - 1]
    indent = line[: len(line) - len(line.lstrip(" \t\x0c"))]
    return wrap_call(new, indent.rsplit("\x0c", 1)[-1])


def _line_edits(code: str, rendered: str, new_code: str, line_offset: int) -> Optional[List[Edit]]:
    """One edit per changed run of lines of ``rendered`` -> ``new_code``, in the coordinates of
    ``code`` (the original text, which ``rendered`` reproduces except where libcst is lossy)."""
    old_lines = split_lines(rendered)
    new_lines = split_lines(new_code)
    if rendered == code:
        to_code = list(range(len(old_lines) + 1))
    else:
        # Lines of libcst's rendering that equal a line of the original; others are not editable.
        code_lines = split_lines(code)
        to_code = [-1] * (len(old_lines) + 1)
        to_code[len(old_lines)] = len(code_lines)
        matcher = difflib.SequenceMatcher(None, old_lines, code_lines, autojunk=False)
        for tag, i1, i2, j1, _ in matcher.get_opcodes():
            if tag == "equal":
                for k in range(i2 - i1):
                    to_code[i1 + k] = j1 + k
    edits = []
    for _, i1, i2, j1, j2 in _hunks(old_lines, new_lines):
        if any(to_code[i] < 0 for i in range(i1, i2)) or to_code[i1] < 0:
            return None
        old_text = "".join(old_lines[i1:i2])
        new_text = "".join(new_lines[j1:j2])
        # Trim what the hunk's first and last lines keep, so that the edit covers only the change.
        prefix = 0
        first_line_len = len(old_lines[i1]) if i1 < i2 else 0
        while (prefix < min(len(old_text), len(new_text), first_line_len)
               and old_text[prefix] == new_text[prefix] and old_text[prefix] != "\n"):
            prefix += 1
        suffix = 0
        while (suffix < min(len(old_text), len(new_text)) - prefix
               and old_text[-1 - suffix] == new_text[-1 - suffix]):
            suffix += 1

        def in_code(index: int) -> int:
            # The start of the line after the hunk is the end of the hunk's last line.
            return to_code[index] if index < i2 or i1 == i2 else to_code[i2 - 1] + 1

        start = _position(old_lines, i1, prefix)
        end = _position(old_lines, i1, len(old_text) - suffix)
        line, col = in_code(start[0]) + 1 + line_offset, start[1]
        end_line, end_col = in_code(end[0]) + 1 + line_offset, end[1]
        edits.append(Edit(line, col, end_line, end_col, new_text[prefix:len(new_text) - suffix]))
    return edits


def _position(lines: Sequence[str], first: int, offset: int) -> Tuple[int, int]:
    """(0-based line, column) of ``offset`` characters after the start of ``lines[first]``."""
    index = first
    while index < len(lines) and offset >= len(lines[index]) and offset > 0:
        if offset == len(lines[index]) and not lines[index].endswith("\n"):
            break
        offset -= len(lines[index])
        index += 1
    return index, offset


# ---- call arguments -------------------------------------------------------------------------------

def _newline() -> cst.TrailingWhitespace:
    return cst.TrailingWhitespace()


def _before(args: Sequence[cst.Arg], call: cst.Call, index: int) -> cst.BaseParenthesizableWhitespace:
    """The whitespace in front of ``args[index]``."""
    if index == 0:
        return call.whitespace_before_args
    comma = args[index - 1].comma
    return comma.whitespace_after if isinstance(comma, cst.Comma) else args[index - 1].whitespace_after_arg


def _line_start_whitespace(call: cst.Call) -> Optional[cst.ParenthesizedWhitespace]:
    """The whitespace before the last argument that starts its own line, if any does."""
    args = list(call.args)
    for index in range(len(args) - 1, -1, -1):
        ws = _before(args, call, index)
        if isinstance(ws, cst.ParenthesizedWhitespace):
            return ws
    return None


def add_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """``call`` with ``name=value`` appended, laid out like its other arguments."""
    args = list(call.args)
    new_arg = cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE))
    if not args:
        return call.with_changes(args=[new_arg])
    last = args[-1]
    line_start = _line_start_whitespace(call)
    trailing_comma = isinstance(last.comma, cst.Comma)
    after_last = last.comma.whitespace_after if trailing_comma else last.whitespace_after_arg
    if line_start is None:
        # One line of arguments: ``f(a, b)`` -> ``f(a, b, name=value)``; a trailing comma stays trailing.
        if trailing_comma:
            new_arg = new_arg.with_changes(comma=last.comma)
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=_SPACE))
        else:
            new_arg = new_arg.with_changes(whitespace_after_arg=last.whitespace_after_arg)
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=_SPACE), whitespace_after_arg=_NO_SPACE)
        args.append(new_arg)
        return call.with_changes(args=args)
    # Arguments on their own lines: the new one gets a line, indented like them. The comment that
    # ended the last argument's line stays there, and what followed it (``)`` on its own line, or
    # not) now follows the new argument.
    if isinstance(after_last, cst.ParenthesizedWhitespace):
        own_line_end = after_last.first_line
        closing = after_last.with_changes(first_line=_newline())
    else:
        own_line_end = _newline()
        closing = after_last
    to_new_line = cst.ParenthesizedWhitespace(
        first_line=own_line_end, empty_lines=[], indent=line_start.indent, last_line=line_start.last_line)
    if trailing_comma:
        args[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=to_new_line))
        new_arg = new_arg.with_changes(comma=cst.Comma(whitespace_after=closing))
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=to_new_line), whitespace_after_arg=_NO_SPACE)
        new_arg = new_arg.with_changes(whitespace_after_arg=closing)
    args.append(new_arg)
    return call.with_changes(args=args)


def _merge(before: cst.BaseParenthesizableWhitespace, after: cst.BaseParenthesizableWhitespace):
    """The whitespace that replaces ``before`` + a removed argument + ``after``. A comment that
    ended the removed argument's line is kept, on a line of its own."""
    if not isinstance(after, cst.ParenthesizedWhitespace):
        return before
    if not isinstance(before, cst.ParenthesizedWhitespace):
        return after  # the argument ended a line that an earlier argument started: its comment stays
    kept = []
    if after.first_line.comment is not None:
        kept.append(cst.EmptyLine(indent=before.indent, whitespace=before.last_line,
                                  comment=after.first_line.comment))
    return cst.ParenthesizedWhitespace(
        first_line=before.first_line,
        empty_lines=[*before.empty_lines, *kept, *after.empty_lines],
        indent=after.indent,
        last_line=after.last_line,
    )


def drop_keyword(call: cst.Call, name: str) -> cst.Call:
    """``call`` without its ``name=`` argument; the lines and comments around it stay as they were."""
    args = list(call.args)
    index = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name)
    removed = args.pop(index)
    removed_comma = isinstance(removed.comma, cst.Comma)
    after = removed.comma.whitespace_after if removed_comma else removed.whitespace_after_arg
    merged = _merge(_before(list(call.args), call, index), after)
    if index == len(args) and not isinstance(after, cst.ParenthesizedWhitespace):
        merged = after  # the last argument: what stood before ``)`` still does (``f(a, b=1)`` -> ``f(a)``)
    if index == 0:
        return call.with_changes(args=args, whitespace_before_args=merged)
    prev = args[index - 1]
    if index < len(args) or removed_comma:
        # Another argument follows, or the removed one had a trailing comma: the previous comma stays.
        args[index - 1] = prev.with_changes(comma=prev.comma.with_changes(whitespace_after=merged))
    else:
        args[index - 1] = prev.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=merged)
    return call.with_changes(args=args)


def add_keyword_with_comments(call: cst.Call, name: str, value: cst.BaseExpression,
                              comments: Sequence[cst.Comment]) -> Optional[cst.Call]:
    """``add_keyword``, with ``comments`` (from code the fix removes) on the new argument's line:
    the call is laid out one argument per line if it was on one line. None when the call's layout
    leaves no line end for them."""
    fixed = add_keyword(call, name, value)
    if not comments:
        return fixed
    if _line_start_whitespace(fixed) is None:
        fixed = wrap_call(fixed, None)
    last = fixed.args[-1]
    trailing = last.comma.whitespace_after if isinstance(last.comma, cst.Comma) else last.whitespace_after_arg
    start = _line_start_whitespace(fixed)
    if not isinstance(trailing, cst.ParenthesizedWhitespace) or trailing.first_line.comment is not None:
        return None
    more = [cst.EmptyLine(indent=start.indent, whitespace=start.last_line, comment=c) for c in comments[1:]]
    trailing = trailing.with_changes(
        first_line=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=comments[0]),
        empty_lines=[*more, *trailing.empty_lines])
    if isinstance(last.comma, cst.Comma):
        last = last.with_changes(comma=last.comma.with_changes(whitespace_after=trailing))
    else:
        last = last.with_changes(whitespace_after_arg=trailing)
    return fixed.with_changes(args=[*fixed.args[:-1], last])


def wrap_call(call: cst.Call, indent: Optional[str]) -> cst.Call:
    """``call`` with one argument per line (and a trailing comma), for a line that starts with
    ``indent`` (None: the indentation of the block the call is in)."""
    relative = indent is None

    def line(spaces: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(first_line=_newline(), indent=relative,
                                           last_line=cst.SimpleWhitespace(spaces))

    indent = indent or ""
    inner = indent + "    "
    args = [a.with_changes(comma=cst.Comma(whitespace_after=line(inner)), whitespace_after_arg=_NO_SPACE)
            for a in call.args]
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=line(indent)))
    return call.with_changes(args=args, whitespace_before_args=line(inner))


def set_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    args = [
        a.with_changes(value=value) if a.keyword is not None and a.keyword.value == name else a
        for a in call.args
    ]
    return call.with_changes(args=args)


def keyword_value(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None
