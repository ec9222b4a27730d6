"""Role help and win-condition texts: one source for the engine's briefing (env text view) and
the LLM briefing (``games.werewolf.prompts``), so the two cannot drift apart."""

from __future__ import annotations

from games.werewolf.config import WerewolfRules

ROLE_HELP: dict[str, str] = {
    "werewolf": "Each night the wolves secretly choose one player to attack. "
    "You win when the wolves reach the win condition.",
    "villager": "You have no night action. Find and exile the wolves by voting in the day.",
    "seer": "Each night you inspect one player and privately learn whether they are a wolf "
    "(or their exact role, if the rules say so).",
    "doctor": "Each night you protect one player from the wolves' attack.",
    "witch": "You have one healing potion (saves the wolves' victim) and one poison (kills "
    "any player), each usable once per game.",
    "guard": "Each night you guard one player from the wolves' attack.",
    "hunter": "When you die (killed by the wolves or exiled) you may immediately shoot one player.",
}


def wolf_win(rules: WerewolfRules) -> str:
    """When the wolves win under ``rules`` (the village wins when no wolf is alive)."""
    if rules.win_condition == "parity":
        return "the wolves win when alive wolves are at least as many as everyone else"
    if rules.win_condition == "full_elimination":
        return "the wolves win when no non-wolf is alive"
    both = " or all special roles" if rules.side_elimination_scope == "both" else ""
    return f"the wolves win when all villagers{both} are dead"
