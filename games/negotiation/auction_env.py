"""``arena/Auction-v0`` — a single-item auction with private values (negotiation.md §4.2).

| | |
|---|---|
| Import | `import arena; pettingzoo.make("aec", "arena/Auction-v0", **rules)` |
| Agents | `player_0`..`player_{n-1}`; each its own team `p<i>` |
| Actions | talk turns (text, `pass`, `{"choice": "to:<seat>", "text": ...}` with `allow_private`), then sealed `bid:B` / `no_bid` or clock ticks `stay` / `drop` (simultaneous) |
| Observation | `Dict(text=Text, legal=Box(0, 1, (K,), int8))` |
| Rewards | the winner v − price, everyone else 0 |
| Rule flags | `n_bidders`, `value_range`, `format` (`sealed_second`/`sealed_first`/`ascending`), `reserve_price`, `increment`, `pre_bid_talk_rounds`, `talk_each_tick`, `allow_private`, `allow_talk`, `max_message_chars` |
| Outcomes | `sale`, `no_sale` |
| Private facts | `private_value` `value` per seat |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.negotiation.auction import AuctionEngine


def env(**kwargs: Any) -> ArenaEnv:
    return ArenaEnv(AuctionEngine, **kwargs)
