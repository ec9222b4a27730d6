"""``arena/PriceBargaining-v0`` — buyer–seller price bargaining with private reservation prices
(negotiation.md §3).

| | |
|---|---|
| Import | `import arena; pettingzoo.make("aec", "arena/PriceBargaining-v0", **rules)` |
| Agents | `player_0` (seller), `player_1` (buyer); each its own team `p0`, `p1` |
| Actions | `offer:P` (P on the grid), `accept`, `reject`, `walk_away`, `pass`, JSON `{"choice": id, "text": message}` or plain text (talk) |
| Observation | `Dict(text=Text, legal=Box(0, 1, (K,), int8))` |
| Rewards | raw utility: seller p − r_s, buyer r_b − p, times δ^(round−1); no deal: 0 or the private outside option |
| Rule flags | `price_range`, `price_step`, `seller_reservation_range`, `zopa_prob`, `zopa_width_range`, `negative_gap_range`, `first_mover`, `max_turns`, `outside_options`, `outside_option_range`, `discount`, `list_price`, `block_irrational_accept`, `allow_talk`, `allow_walk_away`, `max_message_chars` |
| Outcomes | `agreement`, `walk_away`, `no_deal` (turn cap) |
| Private facts | `reservation_price` `reservation` per seat; `outside_option` `outside` with `outside_options=private` |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.negotiation.price import PriceBargainingEngine


def env(**kwargs: Any) -> ArenaEnv:
    return ArenaEnv(PriceBargainingEngine, **kwargs)
