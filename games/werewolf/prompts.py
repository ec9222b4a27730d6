"""Werewolf role briefings for LLM agents (the system prompt of :class:`LLMAgent`).

A briefing is built only from what the seat knows: its observation (own role, fellow wolves,
names) and the public rule flags. It states the rules of the active variant, the seat's role
and private knowledge, and the answer format; strategy hints only when an agent entry sets
``strategy_hints: true``. Every piece is a template that an entry can override through
``params.templates`` (keys of :data:`TEMPLATES`), because prompt variants are what self-play
evolves.
"""

from __future__ import annotations

from typing import Any

from arena.types import Observation
from games.briefing import sections
from games.werewolf.texts import ROLE_HELP, wolf_win

TEMPLATES: dict[str, str] = {
    "intro": "You are {name} (seat {seat}) playing Werewolf with {n} players: {players}.",
    "role": "Your role: {role} (team {team}). {role_help}",
    "wolves": "Your fellow wolves: {partners}. Only wolves see the wolves' night channel.",
    "composition": "Roles in play: {composition}.",
    "win": "The village wins when no wolf is alive; {wolf_win}.",
    "rules": "Active rules: {rules}.",
    "format": "Each turn you are shown the transcript you have seen and one decision. "
    "Answer exactly in the JSON format requested; ids are player seat numbers unless "
    "the options say otherwise.",
    "hints": "Hints: villagers should compare claims and voting patterns; wolves should "
    "blend in and avoid defending each other too openly; the seer's knowledge is most useful "
    "once shared at the right moment.",
}


def _rules(rules: dict[str, Any] | None) -> Any:
    from games.werewolf.config import WerewolfRules

    data = {k: v for k, v in (rules or {}).items() if k != "preset"}
    try:
        return WerewolfRules(**data)
    except Exception:
        return WerewolfRules()


def briefing(
    obs: Observation,
    *,
    rules: dict[str, Any] | None = None,
    templates: dict[str, str] | None = None,
    strategy_hints: bool = False,
    names: list[str] | None = None,
) -> str:
    """A Werewolf seat's system prompt: the players, its role (and, as a wolf, its partners),
    the composition, the win conditions and the active rule flags."""
    r = _rules(rules)
    names = names or list(obs.state.get("names") or [])
    n = len(names) or r.n_players
    players = ", ".join(f"{i}={nm}" for i, nm in enumerate(names)) or f"{n} seats"
    role = "unknown"
    partners: list[str] = []
    for f in obs.private:
        if f.kind == "role" and f.owner == obs.seat:
            role = str(f.value)
        elif f.kind == "role" and str(f.value) == "werewolf" and f.owner != obs.seat:
            partners.append(f"{names[f.owner] if f.owner < len(names) else f.owner} "
                            f"(seat {f.owner})")  # fmt: skip
    team = "wolves" if role == "werewolf" else "village"
    values = {
        "name": obs.name,
        "seat": obs.seat,
        "n": n,
        "players": players,
        "role": role,
        "team": team,
        "role_help": ROLE_HELP.get(role, ""),
        "partners": ", ".join(partners) or "none",
        "composition": ", ".join(f"{c} {name}" for name, c in r.composition().items()),
        "wolf_win": wolf_win(r),
        "rules": r.summary(),
    }
    order = ["intro", "role"]
    if role == "werewolf":
        order.append("wolves")
    order += ["composition", "win", "rules", "format"]
    lines = sections(
        TEMPLATES,
        templates,
        order,
        values,
        role=role,
        strategy_hints=strategy_hints,
        render=_format,
    )
    return "\n".join(lines)


def _format(template: str, values: dict[str, Any]) -> str:
    # Werewolf's templates are ``str.format`` strings: ``{{`` and ``}}`` are literal braces.
    return template.format(**values)
