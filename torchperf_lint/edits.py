"""libcst helpers shared by the rules' fixes: add or drop a keyword argument without breaking commas."""

from __future__ import annotations

from typing import Optional

import libcst as cst


def add_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    args = list(call.args)
    new_arg = cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT:
        # A trailing comma stays trailing: it moves to the new last argument.
        last = args[-1]
        new_arg = new_arg.with_changes(comma=last.comma)
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(new_arg)
    return call.with_changes(args=args)


def drop_keyword(call: cst.Call, name: str) -> cst.Call:
    args = list(call.args)
    index = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name)
    removed = args.pop(index)
    if index == len(args) and args:
        # The dropped argument was the last one: the one before it takes its comma (or none).
        args[-1] = args[-1].with_changes(comma=removed.comma)
    return call.with_changes(args=args)


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
