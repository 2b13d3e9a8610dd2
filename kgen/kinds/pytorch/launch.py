"""`kgen import`: how many processes a container's command line starts torchrun with,
as teams write it: `torchrun --nproc_per_node=4 train.py`, `python -m
torch.distributed.run ...` (or the older `torch.distributed.launch`), or either inside a
shell's `-c` string (`bash -c "pip install ... && torchrun --nproc-per-node 4 ..."`).

torchrun's `--nproc_per_node` wins over the PET_NPROC_PER_NODE the operator or the
torch runtime sets (torch/distributed/run.py: each option's default is its PET_
variable), so a count on the command line is the job's process count. A script run by
a shell (`sh run.sh`, `bash -lc ./run.sh`) hides the line that starts torchrun: import
says it could not look, rather than leaving it to a default in silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

# The shells a command names to run a string or a script.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash"})
# The modules `python -m` starts torchrun as (torch 1.10+: run; before: launch).
MODULES = ("torch.distributed.run", "torch.distributed.launch")
COUNT_FLAGS = ("--nproc_per_node", "--nproc-per-node")
# The counts torchrun takes besides a number (torch/distributed/run.py
# determine_local_world_size).
NAMED_COUNTS = ("auto", "cpu", "gpu", "xpu")
# What ends one command of a shell string.
_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})


class Launch(NamedTuple):
    """What a command line says of torchrun: whether it starts it where kgen can see,
    the count it passes (None: none, the operator's or runtime's applies), a count it
    passes that is no number kgen can read (`$GPUS`), and a script a shell runs whose
    lines kgen cannot see."""

    torchrun: bool = False
    nproc: str | None = None
    unread: str | None = None
    script: str | None = None


def launch(words: Iterable[object]) -> Launch:
    """What the command line `words` (a container's command, then its args) says."""
    line = [word for word in words if isinstance(word, str)]
    if not line:
        return Launch()
    program = line[0].rsplit("/", 1)[-1]
    if program in SHELLS:
        return _shell(line[1:])
    if program.endswith(".sh"):
        return Launch(script=line[0])
    return _scan(line)


def _shell(rest: list[str]) -> Launch:
    """A shell's arguments: `-c STRING` (any option cluster holding `c`: -c, -lc,
    -ec), else the script it runs."""
    for index, word in enumerate(rest):
        if word.startswith("-") and not word.startswith("--"):
            if "c" in word[1:] and index + 1 < len(rest):
                return _string(rest[index + 1])
            continue
        if word.startswith("--"):
            continue
        return Launch(script=word)
    return Launch()


def _string(text: str) -> Launch:
    try:
        tokens = shell_words(text)
    except ValueError:  # an unclosed quote: the shell would refuse it too
        return Launch(script="its shell command")
    found = _scan(tokens)
    if found.torchrun or not tokens:
        return found
    program = tokens[0].rsplit("/", 1)[-1]
    if program in SHELLS or program.endswith(".sh") or program in (".", "source"):
        target = tokens[1] if program in (".", "source") and len(tokens) > 1 else None
        return Launch(script=target or tokens[0])
    return found


# A shell string's tokens: blanks, a run of operator characters, a comment, a word (a
# `#` inside one is no comment), or what opens a quote the text never closes.
_QUOTED = r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\."""
_TOKEN = re.compile(
    r"(?P<blank>[ \t\r\n]+)|(?P<operator>[();<>|&]+)|(?P<comment>#[^\n]*)"
    rf"|(?P<word>(?:{_QUOTED}|[^ \t\r\n();<>|&'\"\\#])"
    rf"(?:{_QUOTED}|[^ \t\r\n();<>|&'\"\\]+)*)|(?P<open>.)",
    re.DOTALL,
)
_PART = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)""", re.DOTALL)
_IN_DOUBLE_QUOTES = re.compile(r'\\([\\"])')


def shell_words(text: str) -> list[str]:
    """`text`'s words as a POSIX shell splits them (quotes and backslashes removed,
    each run of `;&|<>()` a word of its own), in time linear in its length:
    shlex.shlex took 27 s for a string of 900,000 semicolons. ValueError: a quote
    left open, or a backslash that ends the text."""
    words: list[str] = []
    quoted: list[int] = []  # unquoted once the whole text is known to close
    for token in _TOKEN.finditer(text):
        kind = token.lastgroup
        if kind == "open":
            raise ValueError(f"a quote or backslash at {token.start()} is not closed")
        if kind in ("operator", "word"):
            words.append(token.group())
        if kind == "word" and any(c in words[-1] for c in "'\"\\"):
            quoted.append(len(words) - 1)
    for index in quoted:
        words[index] = _PART.sub(_unquoted, words[index])
    return words


def _unquoted(part: re.Match[str]) -> str:
    single, double, escaped = part.groups()
    if double is not None:
        return _IN_DOUBLE_QUOTES.sub(r"\1", double)
    return single if single is not None else escaped


def _scan(tokens: list[str]) -> Launch:
    """torchrun or `python -m torch.distributed.run` anywhere among `tokens`, and the
    count among its own options (those before the script it starts)."""
    for index in range(len(tokens)):
        start = _launcher_end(tokens, index)
        if start is not None:
            return _count(tokens[start:])
    return Launch()


def _launcher_end(tokens: list[str], index: int) -> int | None:
    """Where torchrun's own options start, if a launcher starts at `index`."""
    program = tokens[index].rsplit("/", 1)[-1]
    if program == "torchrun":
        return index + 1
    if program.startswith("python"):
        rest = tokens[index + 1 : index + 3]
        if rest[:1] == ["-m"] and rest[1:] and rest[1] in MODULES:
            return index + 3
        if rest[:1] and rest[0] in tuple(f"-m{m}" for m in MODULES):
            return index + 2
    return None


def _count(options: list[str]) -> Launch:
    for index, option in enumerate(options):
        if option in _SEPARATORS or option.endswith(".py") or option in ("-m", "--"):
            break
        name, equals, value = option.partition("=")
        if name not in COUNT_FLAGS:
            continue
        if not equals:
            value = options[index + 1] if index + 1 < len(options) else ""
        # ASCII digits: str.isdigit() also takes '²' and '٣', which torchrun refuses;
        # and at most 10 of them, as int32 (int() refuses past 4,300).
        digits = value.isascii() and value.isdigit() and len(value) <= 10
        if digits or value in NAMED_COUNTS:
            return Launch(torchrun=True, nproc=value)
        return Launch(torchrun=True, unread=value)
    return Launch(torchrun=True)


def command_line(command: object, args: object) -> list[object]:
    """A container's command and args as one line (either may be left out or null)."""
    return [
        *(command if isinstance(command, list) else []),
        *(args if isinstance(args, list) else []),
    ]
