"""`python -m kgen` and the `kgen` command.

`kgen --version` is answered before the command line is imported: scripts call it to
find kgen, and start-up is a benchmark target (click alone is a third of it). The
command ends without the interpreter's teardown (kgen.cli_exit).
"""

from __future__ import annotations

import errno
import gc
import os
import sys
import types

from kgen import __version__

VERSION_FLAGS = (["--version"], ["-V"])
# pydantic's own spelling of "no plugins" (pydantic/plugin/_loader.py, v2.6 to v2.14).
PLUGINS_OFF = ("__all__", "1", "true")


def main() -> int:
    if sys.argv[1:] in VERSION_FLAGS:
        return _version()
    # No cyclic garbage collection in a run. A run allocates millions of objects and
    # leaves almost no cycles (a cold build of 1,000 jobs: about 1,300 objects, the
    # same peak memory), while each collection walks every young object: 16 ms of a
    # one-spec `validate`, 30 ms of an up-to-date `build --check`, mostly over what
    # imports create. Reference counting frees everything else as before.
    gc.disable()
    # No pydantic plugins: what else is installed must not change how a spec validates,
    # and looking for them reads every installed package's metadata (8-12 ms a run).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] in PLUGINS_OFF:
        _no_plugin_loader()
    from kgen.cli_quick import quick_command

    quick = quick_command(sys.argv[1:])
    if quick is not None:  # a plain `kgen validate [PATHS]`: no click to load
        code = quick()
    else:
        from kgen.cli import main as cli_main

        code = cli_main()
    # Everything still alive is about to be freed anyway: the collection the interpreter
    # runs on exit would walk all of it (a tenth of a second for one `validate`).
    gc.freeze()
    return code


def run() -> None:
    """The `kgen` command: main(), and out with its exit code (kgen.cli_exit)."""
    from kgen.cli_exit import arm, leave
    from kgen.cli_stdout import watch_stdout

    watch_stdout()
    arm()
    code = main()
    leave(code)
    sys.exit(code)


def _version() -> int:
    """Exactly what click's version option prints. A stdout closed or full ends it as
    it ends every other command (kgen.cli_guard), not in a traceback."""
    try:
        sys.stdout.write(f"kgen, version {__version__}\n")
        sys.stdout.flush()
    except (AttributeError, OSError) as exc:  # AttributeError: no stdout at all
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            from kgen.cli_stdout import closed_pipe

            closed_pipe()
        from kgen.cli_guard import ended_by

        return ended_by(exc)
    return 0


def _no_plugin_loader() -> None:
    """pydantic imports its plugin loader at its first validator even with plugins off,
    and the loader imports importlib.metadata (15-20 ms here) before it looks at the
    setting. With plugins off its answer is always "none": so is this stand-in's."""
    name = "pydantic.plugin._loader"
    if name not in sys.modules:
        loader = types.ModuleType(name, "pydantic plugins are off (kgen.__main__)")
        loader.__dict__["get_plugins"] = _no_plugins
        sys.modules[name] = loader


def _no_plugins() -> tuple[()]:
    return ()


if __name__ == "__main__":
    if vars(sys.modules["__main__"]) is globals():
        run()  # `python -m kgen`: the program itself
    raise SystemExit(main())  # run by a program (runpy): the exit is given back
