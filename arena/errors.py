"""User-facing errors: one message per problem, naming the field."""

from __future__ import annotations

from pydantic import ValidationError


class ConfigError(Exception):
    """A configuration problem; ``problems`` holds one message per problem."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


def describe_validation(err: ValidationError, prefix: str = "") -> list[str]:
    """Pydantic errors as 'field.path: message' lines."""
    out = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        path = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        out.append(f"{path or '(config)'}: {msg}")
    return out
