"""Small wording helpers for what the commands print."""

from __future__ import annotations


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``1 match``, ``2 matches``, ``0 matches`` (plural: ``singular + 's'`` unless given)."""
    word = singular if n == 1 else (plural or f"{singular}s")
    return f"{n} {word}"
