"""Persona dialogues — ``arena/PersonaDialogue-v0`` (rules: docs/games/persona-dialogue.md).

| Import             | `import arena; pettingzoo.make("aec", "arena/PersonaDialogue-v0", scenario="bakery-loan")` |
|--------------------|---------------------------------------------------------------------------------------------|
| Actions            | Text: free text = speak to everyone; `@Name: text` or `{"choice": ["to:<id>"], "text": ...}` = private message; `{"choice": "act", "text": ...}`; `agree:<proposition>`; `pass`; `leave`. Probe decisions: free text or `pass` |
| Parallel API       | No (AEC; `free_for_all` ticks are buffered and delivered together in engine-RNG order) |
| Agents             | `player_0` … `player_{N-1}`, N = the scenario's characters (2–8); interrogation: `player_0` interviewer, `player_1` subject |
| Observation        | `Dict(text=Text, legal=Box(0,1,(4+P+N,),int8))`: the egocentric view (own card, goal, secrets; others by name; transcript with own lines as "You") and a mask over the decision's options |
| Decisions          | `turn` (speak / private / act / agree / pass / leave), `ask` and `answer` (interrogation), `probe` (off-record question; god-only answer) |
| Rewards            | goal score in [0,1] at the end (`goal_scoring`: none = 0, rule, judge, rule+judge); missing judgements are omitted, never 0 |
| Outcome labels     | `max_turns`, `everyone_left`, `stale`, `goal_stop`, `script_done` (`aborted` on forfeit) |
| Teams              | each character its own team (persona id); roles `character` / `interrogator` / `subject` |
| Main flags         | `scenario`, `characters`, `library`, `turn_mode` (round_robin / random_order / free_for_all), `start`, `max_turns`, `stale_limit`, `allow_private`, `max_message_chars`, `goal_stop`, `goal_scoring`, `judge`, `interrogation`, `subject`, `interrogator_name`, `interrogation_m`, `interrogation_q`, `retest_paraphrase`, `probes`, `extra_probes`, `probe_label` |
| Hidden information | briefing (card, goal, secrets) private per seat; private messages to sender + recipients; passes, probes, slips, stage markers, goal results and the `scenario_truth` record god-only |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.persona_dialogue.rules import PersonaDialogueEngine


def env(**kwargs: Any) -> ArenaEnv:
    """The persona dialogue AEC env; keyword arguments are env options and rule flags."""
    return ArenaEnv(PersonaDialogueEngine, **kwargs)
