"""The records of an insight bank: namespaces, insights, evidence, measured effect, log entries.

A bank is a log of operations; these models are what the log holds (``Op``) and what replaying
it yields (``Insight``). Everything here is plain data with a canonical JSON form, because the
hash chain and ``bank.at(version)`` compare bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

OpKind = Literal["add", "edit", "retire", "merge", "restore", "support", "effect", "reject", "fold"]
Status = Literal["active", "retired", "merged"]

MAX_TEXT = 400  # characters of one insight: a directive, not a transcript
WILDCARD = "*"
_NS_PART = re.compile(r"^[A-Za-z0-9_.:@+*-]{1,64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def canonical(data: Any) -> str:
    """The one JSON form hashed and compared: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def normalise_text(text: str) -> str:
    """Text as stored: NFC, control characters and line breaks folded to single spaces."""
    text = unicodedata.normalize("NFC", text)
    return " ".join(_CONTROL.sub(" ", text).split())


def text_hash(text: str) -> str:
    """Exact-duplicate key: the hash of the case-folded, whitespace-normalised text."""
    return hashlib.sha256(normalise_text(text).casefold().encode("utf-8")).hexdigest()


class Namespace(BaseModel):
    """Where an insight applies: (game, role) and optionally an opponent class.

    ``role`` ``*`` applies to every role of the game (e.g. negotiation games without roles).
    The string form is ``game/role`` or ``game/role/opponent``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: str
    role: str = WILDCARD
    opponent: str | None = None

    @field_validator("game", "role", "opponent")
    @classmethod
    def _part(cls, v: str | None) -> str | None:
        if v is not None and not _NS_PART.match(v):
            raise ValueError(f"namespace part {v!r} must be 1-64 characters of [A-Za-z0-9_.:@+*-]")
        return v

    @classmethod
    def parse(cls, value: str | dict[str, Any] | Namespace) -> Namespace:
        if isinstance(value, Namespace):
            return value
        if isinstance(value, dict):
            return cls.model_validate(value)
        return _parse_namespace(value)

    @classmethod
    def _from_text(cls, value: str) -> Namespace:
        parts = value.split("/")
        if not 1 <= len(parts) <= 3 or not all(parts):
            raise ValueError(f"namespace {value!r}: use game, game/role or game/role/opponent")
        return cls(
            game=parts[0],
            role=parts[1] if len(parts) > 1 else WILDCARD,
            opponent=parts[2] if len(parts) > 2 else None,
        )

    def key(self) -> str:
        return "/".join(p for p in (self.game, self.role, self.opponent) if p is not None)

    def covers(self, other: Namespace) -> bool:
        """True when an insight filed under ``self`` applies to a seat in ``other``."""
        if self.game != other.game:
            return False
        if self.role not in (WILDCARD, other.role):
            return False
        return self.opponent is None or self.opponent == other.opponent

    def __str__(self) -> str:
        return self.key()


@functools.lru_cache(maxsize=4096)
def _parse_namespace(value: str) -> Namespace:
    return Namespace._from_text(value)  # namespaces are frozen: one parse per distinct string


class Evidence(BaseModel):
    """Where an insight was drawn from: one seat of one match, and the event span it read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str = ""
    match_id: str
    seat: int
    turns: tuple[int, int] | None = None  # first and last event seq the reflector cited


class Effect(BaseModel):
    """A measured effect of an insight: the paired difference (with - without) and its CI."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str  # "win_rate" | "score"
    delta: float
    lo: float
    hi: float
    n: int = Field(ge=0)
    level: float = 0.95
    run_id: str = ""


class Insight(BaseModel):
    """One insight as the log's replay leaves it at a given bank version."""

    model_config = ConfigDict(extra="forbid")

    id: str
    namespace: str
    text: str
    text_hash: str
    version: int = 1  # revision of this insight: +1 per edit
    parent: int | None = None  # bank version that held the previous revision (None: original)
    created: int  # bank version of the add
    updated: int  # bank version of the last change
    status: Status = "active"
    reason: str | None = None  # why retired / merged
    merged_into: str | None = None
    provenance: list[Evidence] = Field(default_factory=list)
    created_by: str = ""  # reflector name or "import" / "user"
    support: int = 1
    effect: Effect | None = None

    def brief(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "support": self.support,
            "effect": self.effect.model_dump() if self.effect else None,
        }


class Op(BaseModel):
    """One row of the log. ``hash = sha256(prev_hash ‖ canonical(body))``; ``ts`` is
    informational and outside the chain, so a rerun of the same updates yields the same chain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    op: OpKind
    namespace: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str
    ts: float = 0.0

    def body(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "op": self.op,
            "namespace": self.namespace,
            "payload": self.payload,
        }


GENESIS = "0" * 64


def chain_hash(prev_hash: str, body: dict[str, Any]) -> str:
    return hashlib.sha256((prev_hash + "\n" + canonical(body)).encode("utf-8")).hexdigest()


def insight_id(prev_hash: str, namespace: str, text: str) -> str:
    """Ids are derived from the chain position and content: the same updates give the same ids."""
    digest = hashlib.sha256(f"{prev_hash}\x1f{namespace}\x1f{text}".encode()).hexdigest()
    return "in_" + digest[:12]
