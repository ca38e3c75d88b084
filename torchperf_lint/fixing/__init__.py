"""Turning rule fixes into text: edits, the fix loop, line handling."""
