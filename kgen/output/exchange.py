"""Exchange two names in one step: Linux renameat2(RENAME_EXCHANGE), called through
ctypes (the os module has no renameat2), for kgen.output.atomic's swap."""

from __future__ import annotations

import errno
import os

_RENAME_EXCHANGE = 2


def exchange(a_dir: int, a: str, b_dir: int, b: str) -> bool:
    """Exchange `a` in folder `a_dir` with `b` in `b_dir`; False where the call is
    missing (another OS or file system), OSError if it fails."""
    # Imported here: only a swap needs it, not a build that writes a few files in
    # place or none (1-2 ms of a one-spec rebuild).
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    if renameat2(a_dir, os.fsencode(a), b_dir, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), b)
