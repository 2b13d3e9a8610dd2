"""What a render worker does first: end as soon as the build that forked it is gone."""

from __future__ import annotations

import os
import time


def leave_with(parent: int) -> None:
    """In each worker: end as soon as the parent is gone. A parent ended by a signal
    (SIGTERM, SIGHUP, SIGKILL) left its workers waiting for ever on a queue whose
    other end they hold themselves, reparented to init, and holding the build lock; a
    thread that looks at the parent five times a second ends them."""
    import threading  # in the worker only: a run that forks none never loads it here

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="kgen-parent-watch", daemon=True).start()
