"""User-facing errors: one message per problem, naming the field."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError


class ConfigError(Exception):
    """A configuration problem; ``problems`` holds one message per problem."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


# The names pydantic puts in an error's location for the branch of a union it tried
# ("str", "dict[str,int]", "literal['pairs']", "function-after[...]"): not field names.
_SCALAR_TAGS = {"str", "int", "float", "bool", "none", "bytes", "any", "is-instance"}
_TAG = re.compile(r"^[a-z][a-z_-]*\[.*\]$")


def _is_union_tag(part: Any) -> bool:
    return isinstance(part, str) and (part in _SCALAR_TAGS or _TAG.match(part) is not None)


def _tag_name(tag: str) -> str:
    return tag if len(tag) <= 24 else tag.split("[", 1)[0]


def describe_validation(err: ValidationError, prefix: str = "") -> list[str]:
    """Pydantic errors as 'field.path: message' lines.

    The errors of the branches of one union (pydantic reports every branch it tried) become
    one line naming the accepted forms, not one line per branch."""
    out: list[str] = []
    unions: dict[str, list[str]] = {}
    for e in err.errors():
        loc = list(e["loc"])
        cut = next((i for i, part in enumerate(loc) if _is_union_tag(part)), None)
        if cut is not None:
            path = _path(prefix, loc[:cut])
            tags = unions.setdefault(path, [])
            if not tags:
                out.append(path)  # placeholder, filled in below (keeps the order)
            name = _tag_name(str(loc[cut]))
            if name not in tags:
                tags.append(name)
            continue
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        out.append(f"{_path(prefix, loc)}: {msg}")
    return [
        f"{line}: does not have any accepted form ({', '.join(unions[line])})"
        if line in unions
        else line
        for line in out
    ]


def _path(prefix: str, loc: list[Any]) -> str:
    dotted = ".".join(str(p) if str(p) else "''" for p in loc)
    path = f"{prefix}.{dotted}" if prefix and dotted else (prefix or dotted)
    return path or "(config)"
