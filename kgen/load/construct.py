"""Plain values from a composed YAML node graph, with the position of each: the loader's
rules on what is acceptable (core-schema tags only, scalars that are what their tags
say, plain string keys, no merge keys, no duplicates, bounded depth)."""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kgen.errors import DataPath, Problem
from kgen.load.document import Document, Origin
from kgen.load.limits import MAX_DEPTH
from kgen.load.refusals import LoadError, at_mark, too_deep
from kgen.load.scalars import REFUSED, ScalarError, tagged_value
from kgen.rules.secret_names import secret_place

_TAG = "tag:yaml.org,2002:"
# A node's properties, where its mark points: an optional anchor, then the tag.
_WRITTEN_TAG = re.compile(r"(?:&\S+\s+)?(!\S*)")


def _origin(doc: Document, key: Node | None, value: Node) -> Origin:
    vm = value.start_mark
    km = key.start_mark if key is not None else vm
    return Origin(doc.file, vm.line + 1, vm.column + 1, km.line + 1, km.column + 1)


class Constructor:
    """Plain values from a node graph the budget has already measured."""

    def __init__(self, doc: Document, text: str) -> None:
        self.doc, self.text = doc, text
        self.siblings: tuple[DataPath, dict[str, Any]] = ((), {})

    def value(self, node: Node, path: DataPath, *, depth: int) -> Any:
        if depth > MAX_DEPTH:
            mark = node.start_mark
            raise LoadError(
                too_deep(self.doc.file, mark.line + 1, mark.column + 1, MAX_DEPTH)
            )
        if isinstance(node, ScalarNode):
            value = self.scalar(node, path)
            if type(value) in (int, float) and node.value != str(value):
                origin = self.doc.positions.get(path)
                if origin is not None:
                    # With its tag: `!!float 5` is the number 5.0 only by it.
                    tag = self.written_tag(node)
                    self.doc.written[origin] = (
                        f"{tag} {node.value}" if tag else node.value
                    )
            return value
        if isinstance(node, SequenceNode):
            self.check_tag(node, "seq")
            items = []
            for index, item in enumerate(node.value):
                item_path = (*path, index)
                self.doc.positions[item_path] = _origin(self.doc, None, item)
                items.append(self.value(item, item_path, depth=depth + 1))
            return items
        if isinstance(node, MappingNode):
            self.check_tag(node, "map")
            return self.mapping(node, path, depth=depth)
        raise LoadError(self.problem(node, "unsupported YAML node"))  # pragma: no cover

    def mapping(
        self, node: MappingNode, path: DataPath, *, depth: int
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        doc = self.doc
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise LoadError(
                    self.problem(key_node, "mapping keys must be plain strings")
                )
            if key_node.tag == _TAG + "merge":
                raise LoadError(
                    self.problem(
                        key_node,
                        "YAML merge keys (<<) are not supported",
                        hint="put shared settings in an overlay instead",
                    )
                )
            key = str(key_node.value)
            key_path = (*path, key)
            if key in out:
                first = doc.positions[key_path]
                raise LoadError(
                    self.problem(
                        key_node,
                        f"duplicate key '{key}'",
                        hint=f"'{key}' is first set at line {first.key_line}; keep one",
                        code="yaml-duplicate-key",
                    )
                )
            doc.positions[key_path] = _origin(doc, key_node, value_node)
            self.siblings = (path, out)  # a scalar's error may not quote a secret
            out[key] = self.value(value_node, key_path, depth=depth + 1)
        return out

    def check_tag(self, node: Node, expected: str) -> None:
        if node.tag != _TAG + expected:
            raise LoadError(self.bad_tag(node))

    def bad_tag(self, node: Node) -> Problem:
        return self.problem(
            node,
            f"YAML tag '{node.tag}' is not allowed",
            hint="kgen reads plain YAML only: strings, numbers, booleans, lists and maps",
            code="yaml-tag",
        )

    def scalar(self, node: ScalarNode, path: DataPath = ()) -> Any:
        tag = node.tag
        if tag != _TAG + "str" and self.non_specific(node):
            # `! 010`: the non-specific tag makes a scalar a string (YAML 1.2,
            # section 6.9.2), though libyaml reports it as plain, to be resolved.
            tag = _TAG + "str"
        try:
            value = tagged_value(tag, node.value)
        except ScalarError as exc:
            message, hint = exc.wording(
                explicit=self.tagged(node), secret=self.secret(path)
            )
            raise LoadError(
                self.problem(node, message, hint=hint, code=exc.code)
            ) from None
        if value is REFUSED:
            raise LoadError(self.bad_tag(node))
        return value

    def secret(self, path: DataPath) -> bool:
        """Whether the value at `path` sits under a secret's name (its key, or the
        `name` or `key` before it in its mapping)."""
        at, out = self.siblings

        def beside(where: DataPath) -> object:
            return out.get(str(where[-1])) if where[:-1] == at else None

        return secret_place(path, beside) is not None

    def tagged(self, node: Node) -> bool:
        """Whether the node is written with a tag."""
        return self.written_tag(node) is not None

    def non_specific(self, node: Node) -> bool:
        return self.written_tag(node) == "!"

    def written_tag(self, node: Node) -> str | None:
        """The tag as written before the node (after its anchor, if any)."""
        found = _WRITTEN_TAG.match(self.text, node.start_mark.index)
        return found.group(1) if found else None

    def problem(
        self,
        node: Node,
        message: str,
        *,
        hint: str | None = None,
        code: str = "yaml-syntax",
    ) -> Problem:
        return at_mark(node.start_mark, self.doc.file, message, hint=hint, code=code)
