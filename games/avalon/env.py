"""The Resistance: Avalon — ``arena/Avalon-v0`` (rules: docs/games/avalon.md).

| Import             | `import arena; pettingzoo.make("aec", "arena/Avalon-v0", n_players=7)` |
|--------------------|-------------------------------------------------------------------------|
| Actions            | Text: an option id/label, an option index, comma-separated seat ids for a team, JSON `{"choice": ..., "text": ..., "belief": {...}}`, or free text in discussion |
| Parallel API       | No (AEC; simultaneous votes/cards/belief reports are buffered, none visible before all answered) |
| Agents             | `player_0` … `player_{N-1}`, N = 5..10 (no eliminations; all terminate together) |
| Observation        | `Dict(text=Text, legal=Box(0,1,(N+4,),int8))`: the seat's rendered view and a mask over the current options |
| Decisions          | discuss / confer (free text or `pass`), propose (exactly s(N,q) seat ids), vote (`approve`/`reject`, simultaneous), quest (`success`[/`fail`], simultaneous), lady (seat), assassinate (seat), belief (`{"belief": {"<seat>": P(good)}}` or `skip`) |
| Rewards            | +1 winning side / −1 losing side at the end (`reward_scheme="zero_one"`: 1/0) |
| Outcome labels     | `good_win`, `evil_win_quests`, `evil_win_hammer`, `evil_win_assassination` (`aborted` on forfeit) |
| Teams              | `good` / `evil`; roles: merlin, percival, servant, assassin, morgana, mordred, oberon, minion |
| Main flags         | `n_players`, `role_preset`/`roles`, `fifth_proposal_rule` (hammer/auto_approve), `good_must_succeed`, `knowledge_model`, `evil_see_roles`, `vote_reveal`, `first_leader`, `discussion_pre_rounds`, `discussion_post_rounds`, `max_message_chars`, `assassination_conference`, `conference_rounds`, `lady_of_the_lake`, `belief_reports`, `reveal_roles_at_end`, `reward_scheme`, `preset="avalonbench"` |
| Hidden information | start knowledge private per role; quest cards god-only (only the fail count is public); evil conference on the evil team channel; belief reports god-only |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.avalon.rules import AvalonEngine


def env(**kwargs: Any) -> ArenaEnv:
    """The Avalon AEC env; keyword arguments are env options and rule flags."""
    return ArenaEnv(AvalonEngine, **kwargs)
