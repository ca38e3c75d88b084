"""Interim: "in a step loop" for the new rules until the walker's ``Context.in_step_loop`` lands."""

from __future__ import annotations


def in_step_loop(ctx) -> bool:
    method = getattr(ctx, "in_step_loop", None)
    if method is not None:
        return method()
    return ctx.step_loop() is not None
