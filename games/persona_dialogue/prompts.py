"""Persona dialogue briefings for LLM agents (the system prompt of :class:`LLMAgent`).

A briefing is built only from what the seat knows (spec §4): its own card, goal and secrets
(its private ``briefing`` event), the card facts of the others that its relationships grant and
the others' secrets it was told (``obs.private``), the public scenario event, ``obs.state`` and
the public rule flags. The scenario's public parts — setting, public info, propositions — and
the seat's *own* relationships are read from the scenario library by the scenario id in the
flags; nothing else of the library is used (never another character's card, goal or secrets).

It states the scenario, the seat's card, goal and secrets to protect, the others, the turn and
end rules, and the answer format (speech, side messages, act, agree, pass, leave); strategy
hints only when an agent entry sets ``strategy_hints: true``. Every piece is a template that an
entry can override through ``params.templates`` (keys of :data:`TEMPLATES`; ``role:<role>``
replaces the role line for ``character``, ``subject`` or ``interrogator``). Placeholders are
``{name}``; any other braces are kept as written.
"""

from __future__ import annotations

from typing import Any

from arena.llm.prompt import fill
from arena.types import Observation
from games.briefing import sections

TEMPLATES: dict[str, str] = {
    "scenario": "{scenario}",
    "public": "{public_info}",
    "role": "You are {name}. {role_help}",
    "card": "Your persona card:\n{card}",
    "goal": "Your private goal (nobody else knows it): {goal}",
    "secrets": "Your secrets (keep each from everyone who does not already know it):\n{secrets}",
    "known_secrets": "Secrets of others that you were told (keep them too):\n{known_secrets}",
    "others": "The others:\n{others}",
    "propositions": "Propositions you can agree to: {propositions}",
    "rules": "{turns} The conversation ends {endings}.",
    "format": "Each turn you are shown the transcript you have seen (your own lines as You) and "
    "one decision with its legal ids; answer with one JSON object. {actions}",
    "hints": "Hints: pursue your goal through the conversation, stay consistent with your card "
    "and earlier statements, and reveal a secret only if it serves your goal.",
}

ROLE_HELP: dict[str, str] = {
    "character": "Stay in character: speak as {name} would, in the first person, true to your "
    "card and speaking style.",
    "subject": "{asker} interviews you about your life. Answer each question in character, "
    "true to your card.",
    "interrogator": "Ask {subject} one question per turn about their life, following up on "
    "their previous answers.",
}

TURN_MODES = {
    "round_robin": "Characters take turns in a fixed order.",
    "random_order": "Characters take turns; the order is shuffled every round.",
    "free_for_all": "Every present character acts at once each tick; the tick's actions are "
    "delivered together.",
}


def _event(obs: Observation, etype: str, own: bool = False) -> dict[str, Any]:
    for e in obs.events:
        if e.type == etype and (not own or e.actor == obs.seat):
            return dict(e.payload)
    return {}


def _scenario(rules: dict[str, Any]) -> Any | None:
    """The library scenario named by the flags (public parts are read from it), or None."""
    if not rules.get("scenario"):
        return None
    try:
        from personas.loader import load_library

        return load_library(rules.get("library")).scenario(str(rules["scenario"]))
    except Exception:
        return None


def _card(persona: dict[str, Any]) -> str:
    from personas.schema import Persona

    p = Persona.model_validate(persona)
    lines = [f"- About you: {p.render_description()}"]
    if p.pronouns:
        lines.append(f"- pronouns: {p.pronouns}")
    slots: dict[str, list[str]] = {}
    for f in p.all_facts():
        if f.slot != "name":
            slots.setdefault(f.slot.removeprefix("custom:"), []).append(str(f.value))
    lines += [f"- {slot}: {', '.join(vs)}" for slot, vs in slots.items()]
    if p.traits:
        lines.append("- traits: " + ", ".join(p.traits))
    if p.values:
        lines.append("- values: " + ", ".join(p.values))
    if p.big_five is not None:
        b5 = p.big_five.model_dump()
        lines.append("- personality (0-1): " + ", ".join(f"{k} {v:g}" for k, v in b5.items()))
    st = p.speaking_style
    style = f"- speaking style: {st.register_} register, {st.verbosity}, language {st.language}"
    if st.quirks:
        style += "; quirks: " + "; ".join(st.quirks)
    if st.catchphrases:
        style += "; catchphrases: " + " / ".join(st.catchphrases)
    return "\n".join([*lines, style])


def _relations(sc: Any, mine: set[str], keys: list[str], names: list[str]) -> dict[int, str]:
    """This seat's relationship to each other seat (only its own entries in the scenario)."""
    out: dict[int, str] = {}
    for rel in sc.relationships if sc is not None else []:
        a, b = rel.pair
        other = b if a in mine else a if b in mine else None
        for seat, ids in enumerate(zip(keys, names, strict=False)):
            if other is not None and other in ids:
                out[seat] = rel.type + (f" ({rel.description})" if rel.description else "")
    return out


def _endings(obs: Observation, rules: dict[str, Any], sc: Any, max_turns: Any) -> str:
    mode = obs.state.get("turn_mode")
    parts = [f"after {max_turns} turns" + (" (ticks)" if mode == "free_for_all" else "")]
    if rules.get("interrogation"):
        parts.append("when the interview script is done")
        return " or ".join(parts)
    parts.append("when fewer than two characters are present")
    stale = rules.get("stale_limit") or (sc.stale_limit if sc is not None else None)
    if stale:
        parts.append(f"after {stale} silent turns in a row")
    elif mode == "free_for_all":
        parts.append("after 2 silent ticks in a row")
    else:
        parts.append("after a full round in which everyone stays silent")
    return ", ".join(parts[:-1]) + ", or " + parts[-1]


def _actions(role: str, allow_private: bool, props: bool, others: list[str]) -> str:
    if role == "interrogator":
        return 'Ask with {"text": "<your question>"}.'
    if role == "subject":
        return 'Answer with {"text": "<your answer>"}, or {"choice": "pass"} to say nothing.'
    text = (
        '{"text": "..."} speaks to everyone present; {"choice": "act", "text": "..."} is a '
        'non-verbal action; {"choice": "pass"} stays silent; {"choice": "leave"} leaves the '
        'conversation for good (a "text" is said first as parting words)'
    )
    if props:
        text += '; {"choice": "agree:<id>"} agrees to a proposition (a "text" is said first)'
    text += "."
    if allow_private:
        ids = ", ".join(others) or "to:<id> as listed in the decision"
        text += (
            ' Side messages: {"choice": "to:<id>", "text": "..."} (or "choices" with several '
            'ids), or the text "@Name: message", is heard only by the named present characters; '
            f"ids: {ids}."
        )
    return text


def _name(names: list[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"seat {seat}"


def _scenario_text(obs: Observation, sc: Any) -> str:
    """The scenario's title, place, time and situation; under interrogation (no scenario file)
    the public scenario event's text."""
    if sc is None:
        return next((e.text for e in obs.events if e.type == "scenario"), "")
    s = sc.setting
    text: str = f"Scenario: {sc.title}\nPlace: {s.place}. Time: {s.time}.\nSituation: "
    text += s.situation
    return text


def _secret_lines(obs: Observation, own: dict[str, Any], names: list[str]) -> list[str]:
    """The seat's own secrets, each with who else knows it."""
    me, lines = obs.seat, []
    for sec in own.get("secrets") or []:
        fact = next((f for f in obs.private if f.kind == "secret" and f.key == sec["id"]), None)
        knowers = [_name(names, a) for a in (fact.audience if fact else ()) if a != me]
        lines.append(f"- {sec['text']} (known to: {', '.join(knowers) or 'nobody else'})")
    return lines


def _other_lines(obs: Observation, names: list[str], rels: dict[int, str]) -> list[str]:
    """Every other character: its relation to the seat and the persona facts the seat knows."""
    others = []
    for seat in range(len(names)):
        if seat == obs.seat:
            continue
        line = f"- {_name(names, seat)}: {rels.get(seat, 'stranger')}"
        facts = [
            f"{f.key.removeprefix('custom:')}: {f.value}"
            for f in obs.private
            if f.owner == seat and f.kind == "persona_fact" and f.key != "name"
        ]
        others.append(line + ("; you know: " + "; ".join(facts) if facts else ""))
    return others


def briefing(
    obs: Observation,
    *,
    rules: dict[str, Any] | None = None,
    templates: dict[str, str] | None = None,
    strategy_hints: bool = False,
    names: list[str] | None = None,
) -> str:
    """A persona-dialogue seat's system prompt: the scenario, its character card, goal and
    secrets, the other characters as it knows them, and the turn and ending rules."""
    values = _values(obs, dict(rules or {}), names)
    order = ["scenario", "public", "role", "card", "goal", "secrets", "known_secrets", "others"]
    order += ["propositions", "rules", "format"]
    # sections whose content this seat lacks are left out (e.g. no secrets, no propositions)
    order = [k for k in order if values.get(k, True)]
    role = str(values["role"])
    lines = sections(TEMPLATES, templates, order, values, role=role, strategy_hints=strategy_hints)
    return "\n".join(x for x in lines if x.strip())


def _values(obs: Observation, rules: dict[str, Any], names: list[str] | None) -> dict[str, Any]:
    """The fields the templates fill in, from the seat's observation and the rule flags."""
    st = obs.state
    pub = _event(obs, "scenario")
    own = _event(obs, "briefing", own=True)
    names = list(names or pub.get("characters") or [])
    me = obs.seat
    interrogation = bool(rules.get("interrogation"))
    sc = None if interrogation else _scenario(rules)
    keys = list(sc.characters) if sc is not None else list(names)
    my_key = str(st.get("character") or (keys[me] if me < len(keys) else obs.name))
    role = ("interrogator" if me == 0 else "subject") if interrogation else "character"
    rels = _relations(sc, {my_key, obs.name}, keys, names)
    if interrogation:
        rels = {1 - me: "stranger (interviewer and interviewee)"}
    goal = own.get("goal") or next(
        (f.value for f in obs.private if f.kind == "goal" and f.owner == me), None
    )
    props = list(sc.propositions) if sc is not None else []
    allow_private = bool(st.get("allow_private", pub.get("allow_private", False)))
    mode = str(st.get("turn_mode") or pub.get("turn_mode") or "round_robin")
    values: dict[str, Any] = {
        "name": obs.name,
        "seat": me,
        "role": role,
        "scenario": _scenario_text(obs, sc),
        "public_info": "\n".join(f"Known to everyone: {x}" for x in (sc.public_info if sc else [])),
        "card": _card(own["persona"]) if own.get("persona") else "",
        "goal": goal or "",
        "secrets": "\n".join(_secret_lines(obs, own, names)),
        "known_secrets": "\n".join(
            f"- {_name(names, f.owner)}'s secret {f.key}: {f.value}"
            for f in obs.private
            if f.kind == "secret" and f.owner != me
        ),
        "others": "\n".join(_other_lines(obs, names, rels)),
        "propositions": "; ".join(f"{p.id} = {p.text}" for p in props),
        "turns": "Questions and answers alternate." if interrogation else TURN_MODES.get(mode, ""),
        "endings": _endings(obs, rules, sc, st.get("max_turns") or pub.get("max_turns")),
        "asker": _name(names, 0),
        "subject": _name(names, 1),
        "actions": _actions(
            role,
            allow_private,
            bool(props),
            [
                f"to:{k} ({_name(names, i)})"
                for i, k in enumerate(keys)
                if i != me and i < len(names)
            ],
        ),
    }
    values["role_help"] = fill(ROLE_HELP.get(role, ""), values)
    return values
