"""Module-level functions written as lambdas (``mse2psnr2 = lambda x: -10. * np.log(x) / np.log(10.)``,
``to_np = lambda x: x.detach().cpu().numpy()``): the project index records them as the functions they
are, and return_kinds reads what they return, from one ``def`` made of each, so that both see the
same function (mvsnerf's ``psnr = mse2psnr2(loss.item())`` is a numpy value)."""

from __future__ import annotations

import ast
from typing import Optional


def lambda_function(stmt: ast.stmt) -> Optional[ast.FunctionDef]:
    """``name = lambda args: expr`` as ``def name(args): return expr`` (the lambda's own place),
    or None for any other statement. Made once per statement and kept on it."""
    if type(stmt) is not ast.Assign or len(stmt.targets) != 1 or type(stmt.targets[0]) is not ast.Name:
        return None
    value = stmt.value
    if type(value) is not ast.Lambda:
        return None
    made = getattr(stmt, "_tpl_lambda_function", None)
    if made is None:
        returned = ast.copy_location(ast.Return(value=value.body), value.body)
        made = ast.copy_location(ast.FunctionDef(name=stmt.targets[0].id, args=value.args, body=[returned],
                                                 decorator_list=[], returns=None, type_comment=None), value)
        made.end_lineno, made.end_col_offset = value.end_lineno, value.end_col_offset
        stmt._tpl_lambda_function = made
    return made
