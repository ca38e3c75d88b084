"""Writing a file so that it is always either its old bytes or its new bytes, never half of each.

Every file the tool writes goes through here: a user's source that ``--fix`` rewrites, the cache,
``-o`` reports. The new bytes go to a temporary file in the same folder (so that the final
``os.replace`` is a rename within one file system, which POSIX and Windows make atomic), flushed
and fsynced, with the mode of the file it replaces; a failure at any step removes the temporary
file and leaves the original as it was. With ``expected``, the original is read again just before
the replace: a file the user saved since it was read is left alone (their edit wins).
"""

from __future__ import annotations

import os
import stat as stat_module
import tempfile
from typing import Optional

TEMP_SUFFIX = ".tpl-tmp"


class WriteFailed(Exception):
    """The file was not written; it is as it was. ``str()`` says why, without the file name."""


class ChangedSinceRead(WriteFailed):
    """The file on disk is no longer the text the fix was computed from."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def write_atomic(path: str, data: bytes, expected: Optional[bytes] = None, must_exist: bool = False) -> None:
    """Replace ``path`` with ``data`` (bytes), atomically; raise WriteFailed and change nothing when
    that cannot be done. ``expected``: the bytes the caller read from ``path`` (the write is refused
    when the file now holds anything else). ``must_exist``: the path names a user's file, which is
    never created, and is refused when it is read-only (the user said it must not change)."""
    # A symbolic link stays a link: its target is what gets the new text.
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        original = os.stat(target)
    except FileNotFoundError:
        if must_exist:
            raise WriteFailed("the file no longer exists") from None
        original = None
    except OSError as error:
        raise WriteFailed(_reason(error)) from None
    if original is not None and not stat_module.S_ISREG(original.st_mode):
        if must_exist:
            raise WriteFailed("not a regular file")
        # ``-o /dev/stdout``, a FIFO: a stream, not a file to replace; written as it is.
        try:
            with open(target, "wb") as handle:
                handle.write(data)
            return
        except OSError as error:
            raise WriteFailed(_reason(error)) from None
    if original is not None and must_exist and _read_only(target, original.st_mode):
        raise WriteFailed("the file is read-only")
    try:
        folder_mode = os.stat(folder).st_mode
    except OSError as error:
        raise WriteFailed(f"cannot reach its folder: {_reason(error)}") from None
    if _read_only(folder, folder_mode):
        # The new text can only arrive by a rename in that folder, which its mode forbids.
        raise WriteFailed("its folder is read-only")
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=TEMP_SUFFIX)
    except OSError as error:
        raise WriteFailed(f"cannot create a file in its folder: {_reason(error)}") from None
    try:
        try:
            with os.fdopen(fd, "wb") as handle:
                if original is not None:
                    # mkstemp makes the file 0600; the new text keeps the mode the file had, and
                    # its owner where we may give it (the super-user fixing someone else's file).
                    if (original.st_uid, original.st_gid) != (os.geteuid(), os.getegid()):
                        try:
                            os.fchown(handle.fileno(), original.st_uid, original.st_gid)
                        except OSError:
                            pass
                    os.fchmod(handle.fileno(), stat_module.S_IMODE(original.st_mode))
                else:
                    umask = os.umask(0)
                    os.umask(umask)
                    os.fchmod(handle.fileno(), 0o666 & ~umask)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if expected is not None and _current_bytes(target) != expected:
                raise ChangedSinceRead("the file changed on disk since it was read; it was left as it is")
            os.replace(temporary, target)
        except OSError as error:
            raise WriteFailed(_reason(error)) from None
    except BaseException:  # also KeyboardInterrupt: no half-written temporary file stays behind
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _read_only(path: str, mode: int) -> bool:
    """Read-only for us, or for everyone by its mode: the super-user may write anything, but a
    file or folder its owner made read-only is not ours to rewrite either."""
    return not os.access(path, os.W_OK) or not mode & (stat_module.S_IWUSR | stat_module.S_IWGRP | stat_module.S_IWOTH)


def _current_bytes(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def prepare_output_path(path: str) -> None:
    """Make the folders an output file (``-o``) goes into; raise WriteFailed when the path is a
    folder or its folder cannot be made."""
    if os.path.isdir(path):
        raise WriteFailed("it is a directory")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise WriteFailed(f"cannot create its folder: {_reason(error)}") from None
