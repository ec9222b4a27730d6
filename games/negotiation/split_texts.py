"""What a seat of the item split (negotiation.md §2) reads and knows: the pool in words, its
private values beside the choice they bear on, its private facts, and option ids in words for a
person. Functions of the scenario's values, not of the engine."""

from __future__ import annotations

from collections.abc import Sequence

from arena.types import Observation, PrivateFact
from games.negotiation.common import parse_vec
from games.negotiation.split_rules import Vec, complement, utility


def describe_pool(items: Sequence[str], vec: Vec) -> str:
    return ", ".join(f"{c} {item}" for item, c in zip(items, vec, strict=True))


def values_text(items: Sequence[str], values: Vec, batna: int) -> str:
    vals = ", ".join(f"{item} {v}" for item, v in zip(items, values, strict=True))
    return f"Your value per item: {vals}. Without a deal you get {batna}."


def choice_knowledge(
    items: Sequence[str], counts: Vec, values: Vec, batna: int, theirs: Vec | None
) -> str:
    """The seat's private values beside the choice they bear on: what walking away gives,
    and what the standing offer ``theirs`` (None: none, or not in the turns stage) is worth to
    it. A small model does not carry its values from the first lines of the transcript to the
    decision at its end (the bundled model walked away on turn 1 with a better offer standing)."""
    worth = ", ".join(f"{item} {v}" for item, v in zip(items, values, strict=True))
    text = f"Your values: {worth}. Walking away (no deal) gives you {batna}. "
    if theirs is not None:
        mine = complement(counts, theirs)
        got = utility(values, mine)
        verdict = "more than" if got > batna else ("the same as" if got == batna else "less than")
        text += (
            f"The offer standing gives you {describe_pool(items, mine)}, worth {got} to you: "
            f"accepting it gets you {got}, {verdict} walking away. "
        )
    return text


def offers_text(
    items: Sequence[str], counts: Vec, mine: Vec | None, theirs: Vec | None, other: str
) -> list[str]:
    """The standing offers in the seat's own terms: what it keeps, and what ``other``'s gives it."""
    parts = []
    if mine:
        parts.append(f"Your standing offer: you keep {describe_pool(items, mine)}.")
    if theirs:
        parts.append(
            f"{other}'s standing offer: you get {describe_pool(items, complement(counts, theirs))}."
        )
    return parts


def split_facts(
    items: Sequence[str], values: Sequence[Vec], batna: Sequence[int], private_batna: bool
) -> list[PrivateFact]:
    """Per seat: a number fact per item value (anchored on the item's name), the whole
    valuation, and the no-deal payoff when it is private."""
    facts: list[PrivateFact] = []
    for s, vals in enumerate(values):
        for item, v in zip(items, vals, strict=True):
            facts.append(
                PrivateFact(
                    owner=s,
                    kind="valuation",
                    key=f"val:{item}",
                    value=v,
                    audience=(s,),
                    numeric=float(v),
                    aliases=(item, f"{item}s"),
                )
            )
        facts.append(
            PrivateFact(
                owner=s,
                kind="valuation",
                key="valuation",
                value=dict(zip(items, vals, strict=True)),
                audience=(s,),
            )
        )
        if private_batna:
            d = batna[s]
            facts.append(
                PrivateFact(owner=s, kind="batna", key="batna", value=d, audience=(s,), numeric=d)
            )
    return facts


def people_label(option_id: str, obs: Observation) -> str | None:
    """``propose:a-b-c`` / ``keep:a-b-c`` in words for a person ("Propose: you keep 2 ball;
    the other gets 3 book, 3 hat"), from the pool in the seat's state; None for other ids."""
    verb = option_id.partition(":")[0]
    items, counts = obs.state.get("items"), obs.state.get("counts")
    if verb not in ("propose", "keep") or not isinstance(items, list) or not counts:
        return None
    try:
        keep = parse_vec(option_id)
        give = complement(tuple(counts), keep)
    except (TypeError, ValueError):
        return None
    if len(keep) != len(items):
        return None

    def pool(v: Vec) -> str:
        return ", ".join(f"{c} {item}" for item, c in zip(items, v, strict=True) if c) or "nothing"

    return f"{verb.capitalize()}: you keep {pool(keep)}; the other gets {pool(give)}"
