"""Insight banks: what agents learn from their own games, with provenance and measured effect.

``bank`` (the append-only, hash-chained log), ``state`` (its replay), ``inject`` (choosing and
quoting insights for a seat's briefing), ``reflect`` (turning one seat's trajectory into
proposed operations), ``guard`` (the privacy check on proposals), ``evidence`` (checks before
use, recorded heads). See docs/memory.md.
"""

from arena.memory.bank import Bank, Draft, Verification, open_bank
from arena.memory.model import Effect, Evidence, Insight, Namespace, Op
from arena.memory.state import BankError, BankSnapshot

__all__ = [
    "Bank",
    "BankError",
    "BankSnapshot",
    "Draft",
    "Effect",
    "Evidence",
    "Insight",
    "Namespace",
    "Op",
    "Verification",
    "open_bank",
]
