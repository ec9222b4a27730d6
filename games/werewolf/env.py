"""Werewolf (Mafia) — PettingZoo AEC environment ``arena/Werewolf-v0``.

| | |
|---|---|
| Import | ``import arena, pettingzoo; pettingzoo.make("aec", "arena/Werewolf-v0", **rules)`` or ``games.werewolf.env.env(**rules)`` |
| Actions | Text: an option id or label, an option index, a JSON object ``{"choice": ..., "text": ..., "belief": {...}}``, or free text for speech |
| Parallel API | No (AEC; simultaneous phases are stepped seat by seat and resolved together) |
| Manual control | No |
| Agents | ``player_0`` .. ``player_{N-1}``, N = ``n_players`` (5..15, default 8) |
| Action space | ``Text(1..4096, Unicode)`` |
| Observation space | ``Dict(text=Text(0..200000, Unicode), legal=Box(0, 1, (N+4,), int8))`` |
| Observation values | ``text``: briefing + the seat's visible transcript + the pending decision; ``legal``: 1 for each option index of the pending decision |
| Rewards | at the end only: ``pm1`` +1 winners / −1 losers / 0 all on a draw; ``zero_one`` 1 / 0 / 0.5. Dead players get their team's reward |
| Teams | ``wolves`` (role ``werewolf``) and ``village`` (``villager``, ``seer``, ``doctor``, ``witch``, ``guard``, ``hunter``) |

Decisions (``info["decision"]`` of the selected agent): ``wolf_discuss``, ``wolf_target``,
``protect``, ``guard``, ``witch_heal``, ``witch_poison``, ``inspect``, ``speak``, ``bid``,
``async_tick``, ``poll``, ``vote``, ``revote``, ``last_words``, ``hunter_shot``, ``belief``.
Targets are seat ids as strings (labels are names); speech answers free text or ``pass``/``wait``.

Variants (``games/catalog.py``; any flag of :class:`games.werewolf.config.WerewolfRules` can be
given directly, explicit flags override a ``preset``):

| Variant | Rules |
|---|---|
| ``classic8`` (default) | 8 players: 2 wolves, Seer, Doctor, 4 villagers; round-robin day; simultaneous named vote; parity; 10 days |
| ``werewolf_arena`` | single random wolf picks; seer learns roles; bidding discussion (8 turns); vote polls; strict majority |
| ``secret_mafia`` | ¼·N wolves (round half even); doctor cannot self-protect; random order ×3; sequential public votes; tie random |
| ``secret_mafia6`` | ``secret_mafia`` as TextArena's SecretMafia plays it: 6 players (2 wolves, Seer, Doctor, 2 villagers), no wolf talk, no belief reports |
| ``agentscope9`` | 9 players: 3 wolves, Seer, Witch, Hunter, 3 villagers; 3 wolf rounds; last words first night + exiled; 30 days |
| ``comm_games7`` | 7 players: 2 wolves, Seer, Witch, Guard, 2 villagers; wolf consensus; sequential votes; side elimination (villagers) |
| ``duskmire`` | 6 players: 2 wolves, Seer, Witch, 2 villagers; one potion per night; tie random |
| ``async_day`` | classic8 with an asynchronous "decide when to speak" day |

Invalid actions are re-asked (``invalid_retries``, default 2) with the error in the observation
and ``infos``, then replaced by ``fallback`` (``random_legal``, ``abstain`` or ``forfeit``).
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.werewolf.rules import WerewolfEngine


def env(**kwargs: Any) -> ArenaEnv:
    """A Werewolf AEC environment; keyword arguments are rule flags and ArenaEnv options."""
    return ArenaEnv(WerewolfEngine, **kwargs)
