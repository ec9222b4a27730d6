"""Avalon role briefings for LLM agents (the system prompt of :class:`LLMAgent`).

A briefing is built only from what the seat knows: its observation (``obs.private`` facts and
``obs.state``, the seat's own view: role, side, the players it sees as evil or good, Percival's
candidates, Lady of the Lake results) and the public rule flags. It states the rules of the
active variant, the seat's role and private knowledge, and the answer format; strategy hints
only when an agent entry sets ``strategy_hints: true``. Every piece is a template that an entry
can override through ``params.templates`` (keys of :data:`TEMPLATES`; ``role:<role>`` replaces
the role line for one role, e.g. ``role:merlin``).
"""

from __future__ import annotations

from typing import Any

from arena.llm.prompt import fill
from arena.types import Observation
from games.avalon.config import ROLE_TITLES
from games.briefing import sections

TEMPLATES: dict[str, str] = {
    "intro": "You are {name} (seat {seat}) playing The Resistance: Avalon with {n} players "
    "({n_good} good, {n_evil} evil): {players}.",
    "role": "Your role: {role_title} (side {side}). {role_help}",
    "knowledge": "What you know privately:\n{knowledge}",
    "composition": "Roles in play: {composition}.",
    "quests": "Five quests. Team sizes per quest: {team_sizes}. Fail cards needed to fail a "
    "quest: {fails_needed}. {cards}",
    "win": "Good wins when three quests succeed{assassin_clause}. Evil wins when three quests "
    "fail{hammer_clause}.",
    "rules": "Active rules: {rules}.",
    "format": "Each turn you are shown the transcript you have seen and one decision with its "
    "legal ids; answer exactly in the JSON format requested. Player ids are seat numbers. "
    "Decisions: {decisions}.",
    "hints": "Hints: good players should compare proposals, votes and quest results to find "
    "evil; evil players should look loyal while getting onto quests; Merlin should guide good "
    "without being obvious, because the Assassin is looking for Merlin.",
}


ROLE_HELP: dict[str, str] = {
    "merlin": "You know who is evil{mordred_hidden}. If good completes three quests, the "
    "Assassin names one player as Merlin; if that is you, evil wins.",
    "percival": "You were shown {percival_view}.",
    "servant": "You have no special knowledge.",
    "assassin": "You know your fellow evil players{oberon_hidden}. If good completes three "
    "quests you name the player you believe is Merlin{conference}; naming Merlin wins for evil.",
    "morgana": "You know your fellow evil players{oberon_hidden}. Percival sees you as a "
    "Merlin candidate and cannot tell you apart from Merlin.",
    "mordred": "You know your fellow evil players{oberon_hidden}. {mordred_view}",
    "oberon": "{oberon_view}",
    "minion": "You know your fellow evil players{oberon_hidden}.",
}


def _rules(obs: Observation, rules: dict[str, Any] | None) -> Any:
    from games.avalon.config import AvalonRules

    if not rules:  # the public setup event carries the flags
        for e in obs.events:
            if e.type == "setup" and isinstance(e.payload.get("rules"), dict):
                rules = e.payload["rules"]
                break
    data = dict(rules or {})
    for attempt in (data, {k: v for k, v in data.items() if k != "preset"}):
        try:
            return AvalonRules.model_validate(attempt)
        except Exception:
            continue
    return AvalonRules.model_validate({"n_players": int(obs.state.get("n_players") or 5)})


def _who(names: list[str], seats: list[int]) -> str:
    return ", ".join(f"{names[s] if s < len(names) else s} (seat {s})" for s in seats)


def _knowledge(st: dict[str, Any], names: list[str], role: str) -> list[str]:
    lines: list[str] = []
    if st.get("known_evil"):
        lines.append(f"- Evil: {_who(names, list(st['known_evil']))}.")
    if st.get("known_good"):
        lines.append(f"- Good: {_who(names, list(st['known_good']))}.")
    for j, r in sorted((st.get("known_roles") or {}).items(), key=lambda x: int(x[0])):
        lines.append(f"- {_who(names, [int(j)])} is {ROLE_TITLES.get(r, r)}.")
    cands = list(st.get("merlin_candidates") or [])
    if len(cands) > 1:
        lines.append(
            f"- Merlin candidates: {_who(names, cands)}; one is Merlin, the other Morgana, "
            "and you cannot tell which."
        )
    for x in st.get("lady_results") or []:
        lines.append(f"- Lady of the Lake: {_who(names, [x['target']])} is {x['side']}.")
    if not lines:
        lines.append("- Nothing beyond your own role." if role else "- Nothing yet.")
    return lines


def _rules_summary(r: Any) -> str:
    parts = [
        "a fifth rejected proposal for one quest makes evil win"
        if r.fifth_proposal_rule == "hammer"
        else "the fifth proposal of a quest is approved automatically",
        "votes are revealed by name" if r.vote_reveal == "named" else "only vote counts are shown",
        f"{r.discussion_pre_rounds} discussion round(s) before each proposal and "
        f"{r.discussion_post_rounds} after it",
        f"messages up to {r.max_message_chars} characters",
        "knowledge: full reveal (Merlin sees every evil player, evil players all see each other)"
        if r.knowledge_model == "full_reveal"
        else "knowledge: standard",
    ]
    if r.evil_see_roles:
        parts.append("evil players also see each other's roles")
    if r.lady_of_the_lake:
        parts.append(
            "Lady of the Lake: after quests 2, 3 and 4 its holder learns one player's side and "
            "passes the Lady to that player (no player holds it twice)"
        )
    if r.belief_reports != "none":
        when = "after each quest and at the end" if r.belief_reports == "after_each_quest" else (
            "at the end")  # fmt: skip
        parts.append(f"belief reports {when}")
    return "; ".join(parts)


def _decisions(r: Any, side: str) -> str:
    out = [
        "discuss = speak to everyone or pass",
        "propose = the leader picks exactly the team size of seat ids (you may pick yourself)",
        "vote = approve or reject the proposed team (everyone votes at once)",
        "quest = a team member secretly plays success or fail"
        + (" (good players may only play success)" if r.good_must_succeed else ""),
    ]
    if r.lady_of_the_lake:
        out.append("lady = the holder picks a player to examine")
    if r.assassination_conference == "evil_team" and side == "evil":
        out.append("confer = before the assassination, speak to the evil team only")
    out.append("assassinate = the Assassin names Merlin")
    if r.belief_reports != "none":
        out.append('belief = report P(good) per other player, or "skip"')
    return "; ".join(out)


def _role_helpers(r: Any, in_play: list[str]) -> dict[str, str]:
    """The variant-dependent clauses of the role lines (:data:`ROLE_HELP`)."""
    full = r.knowledge_model == "full_reveal"
    conference = (
        " after a short conference with the evil team"
        if r.assassination_conference == "evil_team"
        else ""
    )
    return {
        "mordred_hidden": ""
        if full or "mordred" not in in_play
        else " except Mordred, who is hidden from you",
        "oberon_hidden": ""
        if full or "oberon" not in in_play
        else " (except Oberon, who is hidden from you)",
        "percival_view": "Merlin and Morgana as two Merlin candidates; you cannot tell which is "
        "which"
        if "morgana" in in_play
        else "who Merlin is",
        "mordred_view": "In this variant Merlin sees you as evil too."
        if full
        else "Merlin does not see you as evil.",
        "oberon_view": "You and the other evil players see each other in this variant; Merlin "
        "sees you as evil."
        if full
        else "You do not know the other evil players and they do "
        "not know you; Merlin sees you as evil.",
        "conference": conference,
    }


def _own_role(obs: Observation) -> tuple[str, str]:
    """The seat's role (its private role fact first) and side."""
    from games.avalon.config import side_of

    st = obs.state
    role = next(
        (str(f.value) for f in obs.private if f.kind == "role" and f.owner == obs.seat),
        str(st.get("role") or "unknown"),
    )
    side = str(st.get("side") or (side_of(role) if role in ROLE_TITLES else "unknown"))
    return role, side


def _values(obs: Observation, r: Any, names: list[str], n: int) -> dict[str, Any]:
    """The fields the templates fill in."""
    from games.avalon.config import SETUP_TABLE, fails_needed

    st = obs.state
    good, evil, sizes = SETUP_TABLE[n]
    role, side = _own_role(obs)
    in_play = list(st.get("roles_in_play") or r.role_list())
    counts = {x: in_play.count(x) for x in sorted(set(in_play), key=in_play.index)}
    return {
        "name": obs.name,
        "seat": obs.seat,
        "n": n,
        "n_good": good,
        "n_evil": evil,
        "players": ", ".join(f"{i}={nm}" for i, nm in enumerate(names)) or f"{n} seats",
        "role": role,
        "role_title": ROLE_TITLES.get(role, role),
        "side": side,
        "role_help": fill(ROLE_HELP.get(role, ""), _role_helpers(r, in_play)),
        "knowledge": "\n".join(_knowledge(st, names, role)),
        "composition": ", ".join(
            f"{c} {ROLE_TITLES.get(x, x)}" if c > 1 else ROLE_TITLES.get(x, x)
            for x, c in counts.items()
        ),
        "team_sizes": list(st.get("team_sizes") or sizes),
        "fails_needed": list(st.get("fails_needed") or [fails_needed(n, q) for q in range(1, 6)]),
        "cards": "The leader proposes a team, everyone votes; if more than half approve, the team "
        "goes on the quest, otherwise leadership passes to the next seat.",
        "assassin_clause": ", unless the Assassin then names Merlin" if "merlin" in in_play else "",
        "hammer_clause": " or when five proposals in a row for one quest are rejected"
        if r.fifth_proposal_rule == "hammer"
        else "",
        "rules": _rules_summary(r),
        "decisions": _decisions(r, side),
    }


def briefing(
    obs: Observation,
    *,
    rules: dict[str, Any] | None = None,
    templates: dict[str, str] | None = None,
    strategy_hints: bool = False,
    names: list[str] | None = None,
) -> str:
    """An Avalon seat's system prompt: the players, its role and what it was shown, the roles
    in play, the quests and the active rule flags, from its observation and the public flags."""
    r = _rules(obs, rules)
    st = obs.state
    names = names or list(st.get("names") or [])
    n = int(st.get("n_players") or r.n_players)
    values = _values(obs, r, names, n)
    order = ["intro", "role", "knowledge", "composition", "quests", "win", "rules", "format"]
    role = str(values["role"])
    return "\n".join(
        sections(TEMPLATES, templates, order, values, role=role, strategy_hints=strategy_hints)
    )
