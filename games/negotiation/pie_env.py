"""``arena/PieDivision-v0`` — n parties divide a pie; private outside options (negotiation.md
§4.1).

| | |
|---|---|
| Import | `import arena; pettingzoo.make("aec", "arena/PieDivision-v0", **rules)` |
| Agents | `player_0`..`player_{n-1}`; each its own team `p<i>` |
| Actions | the proposer writes `allocate: a0, ..., a{n-1}` (+ message on the next line) or `pass`; discussion: text or `pass` (`{"choice": "to:<seat>", "text": ...}` with `allow_private`); votes `accept` / `reject` (simultaneous) |
| Observation | `Dict(text=Text, legal=Box(0, 1, (K,), int8))` |
| Rewards | share × δ^(round−1) when a proposal passes, else the outside option |
| Rule flags | `n_parties`, `pie`, `outside_option_range`, `quota`, `max_rounds`, `discount`, `discussion_passes`, `allow_private`, `allow_talk`, `max_message_chars` |
| Outcomes | `agreement`, `no_deal` (rounds exhausted) |
| Private facts | `outside_option` `outside` per seat |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.negotiation.pie import PieDivisionEngine


def env(**kwargs: Any) -> ArenaEnv:
    return ArenaEnv(PieDivisionEngine, **kwargs)
