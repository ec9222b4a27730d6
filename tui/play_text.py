"""What a person at the play screen reads, in words rather than in the agents' protocol.

An observation is written for programs too: its decision block lists raw option ids
(``propose:0-0-2``) and games' prompts tell a language model which JSON object to answer with.
A person picks from a list instead, so the play screen shows the seat's view without that
block, each option by its label, and the prompt without answer-format instructions. Pure
functions: the screens and their tests share them.
"""

from __future__ import annotations

import re

from arena import registry
from arena.types import Decision, Observation, Option, PrivateFact

#: the header of the decision block that ends a seat's view (``arena.engine.compose_view``)
DECISION_HEADER = "\n\nYour decision:\n"

#: a person's answer to a belief report, per other seat: (probability, words)
BELIEF_LEVELS: tuple[tuple[float, str], ...] = (
    (0.0, "no"),
    (0.25, "unlikely"),
    (0.5, "can't tell"),
    (0.75, "likely"),
    (1.0, "yes"),
)

# an option id with arguments spelled as a grammar ("propose:a-b-c", "bid:B", "merlin:<seat>"):
# words addressed to a program that answers with ids, meaningless next to a list of labels
_ID_GRAMMAR = re.compile(r"\b[a-z_]+:(?:[A-Za-z](?:-[A-Za-z])+\b|[A-Z]\b|<)")
_ANSWER_VERB = re.compile(r"^\W*(answer|reply|respond)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=;)\s+|\s+(?=;)")
_PAREN = re.compile(r"\s*\([^()]*\)")


def seat_view(obs: Observation) -> str:
    """The seat's view (briefing, transcript, status) without the trailing decision block:
    the screen shows the decision itself, with its options as a list of labels."""
    text = obs.text
    cut = text.rfind(DECISION_HEADER)
    return text if cut < 0 else text[:cut]


def option_text(option: Option, obs: Observation | None = None) -> str:
    """An option as a person reads it: the game's words for people (``people_labels`` of its
    registration), else its label, else the id in words.

    A seat option ("3", label "Kemi") reads "Kemi (seat 3)": players are also referred to by
    seat. An id of the form ``verb:args`` whose label lacks the verb gets it in front."""
    words = registry.people_labels(obs.game) if obs is not None else None
    said = words(option.id, obs) if words is not None and obs is not None else None
    if said:
        return said
    label = option.label.strip()
    verb, sep, args = option.id.partition(":")
    if label and label != option.id:
        if option.id.isdigit():
            return f"{label} (seat {option.id})"
        if sep and not label.lower().startswith(verb.replace("_", " ").lower()):
            return f"{_words(verb)}: {label}"
        return label[:1].upper() + label[1:]
    return f"{_words(verb)} {args}" if sep else _words(option.id)


def _words(token: str) -> str:
    text = token.replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def people_prompt(prompt: str) -> str:
    """``prompt`` without what only an agent answering in JSON or ids needs: sentences that
    ask for a JSON object ("Answer {...}; ..."), JSON templates elsewhere, and option-id
    grammars ("propose:a-b-c means ...", "(keep:a-b-c in item order ...)")."""
    kept: list[str] = []
    for sentence in _SENTENCE_END.split(prompt.strip()):
        if "{" in sentence and _ANSWER_VERB.match(sentence):
            continue  # the whole sentence is the answer format
        for clause in _CLAUSE_END.split(sentence):
            clause = _PAREN.sub(lambda m: "" if _is_protocol(m.group(0)) else m.group(0), clause)
            if "{" in clause:
                clause = _drop_json(clause)
            if _ID_GRAMMAR.search(clause) or not clause.strip(" .;,:"):
                continue
            kept.append(clause.strip())
    text = re.sub(r"\s+([.;,:])", r"\1", " ".join(kept)).strip().rstrip(";,:")
    return text + "." if text and text[-1] not in ".!?)" else text


def _is_protocol(text: str) -> bool:
    return "{" in text or bool(_ID_GRAMMAR.search(text))


def _drop_json(clause: str) -> str:
    """``clause`` without its JSON templates (balanced braces) and the word that introduced
    them ("as {...}", ": {...}")."""
    out: list[str] = []
    depth = 0
    for char in clause:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    text = "".join(out)
    return re.sub(r"(,?\s+as|:)\s*(?=[.;]|$)", "", text.rstrip()).rstrip()


def belief_seats(obs: Observation) -> list[int]:
    """The seats a belief report is about: every other player."""
    return [s for s in range(len(obs.names)) if s != obs.seat]


def belief_level_text(level: int | None) -> str:
    if level is None:
        return "— (not reported)"
    p, words = BELIEF_LEVELS[level]
    return f"{words} ({p:.0%})"


def decision_hint(decision: Decision) -> str:
    """How to answer, in keys."""
    parts = []
    if decision.belief_only:
        parts.append(
            "up/down picks a player, left/right (or 1-5) sets how likely, ctrl+s sends the report"
        )
        if decision.silent_option:
            parts.append("or choose the option below to skip it")
        return "; ".join(parts)
    if decision.options and decision.max_choices > 1:
        want = (
            str(decision.max_choices)
            if decision.min_choices == decision.max_choices
            else f"{decision.min_choices}-{decision.max_choices}"
        )
        parts.append(f"choose {want}: a key or enter toggles an option, ctrl+s submits")
    elif decision.options:
        parts.append("a key (or arrows + enter) chooses")
    if decision.free_text:
        with_choice = " (or goes with the option you choose)" if decision.options else ""
        parts.append(f"type a message, enter sends it{with_choice}; tab moves focus")
    return "; ".join(parts)


def fact_line(fact: PrivateFact, seat: int, names: list[str]) -> str:
    """One private fact as the side panel shows it (the seat's own facts as "you").

    A fact whose value is a table (``{"book": 0, "hat": 5}``) reads ``book 0, hat 5``."""
    who = (
        "you"
        if fact.owner == seat
        else (names[fact.owner] if 0 <= fact.owner < len(names) else f"seat {fact.owner}")
    )
    label = fact.kind if fact.key in (fact.kind, "") else f"{fact.kind} {fact.key}"
    if isinstance(fact.value, dict):
        return f"{who}: {label}: " + ", ".join(f"{k} {v}" for k, v in fact.value.items())
    return f"{who}: {label} = {fact.value}"


def _covered(fact: PrivateFact, facts: list[PrivateFact]) -> bool:
    """True when a table fact of the same owner and kind already holds this one's value
    (a game states ``val:book = 0`` and also ``valuation = {"book": 0, ...}``)."""
    entry = fact.key.rpartition(":")[2]
    return any(
        isinstance(t.value, dict)
        and t is not fact
        and (t.owner, t.kind) == (fact.owner, fact.kind)
        and entry in t.value
        and t.value[entry] == fact.value
        for t in facts
    )


def fact_lines(facts: list[PrivateFact], seat: int, names: list[str]) -> list[str]:
    """The panel's lines: each fact once, a value a table fact already shows not again."""
    lines = [fact_line(f, seat, names) for f in facts if not _covered(f, facts)]
    return list(dict.fromkeys(lines))
