"""``arena/Bargaining-v0`` — buyer–seller price bargaining (negotiation.md §3); with
``mode="pie"`` the n-party pie division of §4.1; with ``mode="auction"`` the single-item auction
of §4.2.

| | |
|---|---|
| Import | `import arena; pettingzoo.make("aec", "arena/Bargaining-v0", **rules)` |
| Agents | price: `player_0` (seller), `player_1` (buyer); pie/auction: `player_0`..`player_{n-1}`; each its own team `p<i>` |
| Actions | price: `offer:P` (P on the grid), `accept`, `reject`, `walk_away`, `pass`, JSON `{"choice": id, "text": message}` or plain text (talk). pie: the proposer writes `allocate: a0, ..., a{n-1}` (+ message on the next line) or `pass`; discussion: text, `pass` (`to:<seat>` with `allow_private`); votes `accept` / `reject` (simultaneous). auction: talk turns (text, `pass`, `to:<seat>`), then sealed `bid:B` / `no_bid` or clock ticks `stay` / `drop` (simultaneous) |
| Observation | `Dict(text=Text, legal=Box(0, 1, (K,), int8))` |
| Rewards | raw utility: seller p − r_s, buyer r_b − p, times δ^(round−1); no deal: 0 or the private outside option. pie: share × δ^(round−1), else the outside option. auction: winner v − price, others 0 |
| Rule flags | `mode`; price: `price_range`, `price_step`, `seller_reservation_range`, `zopa_prob`, `zopa_width_range`, `negative_gap_range`, `first_mover`, `max_turns`, `outside_options`, `outside_option_range`, `discount`, `list_price`, `block_irrational_accept`, `allow_talk`, `allow_walk_away`; pie: `n_parties`, `pie`, `outside_option_range`, `quota`, `max_rounds`, `discount`, `discussion_passes`, `allow_private`; auction: `n_bidders`, `value_range`, `format`, `reserve_price`, `increment`, `pre_bid_talk_rounds`, `talk_each_tick`, `allow_private` |
| Outcomes | `agreement`, `walk_away`, `no_deal` (turn cap / rounds exhausted); auction `sale`, `no_sale` |
| Private facts | price: `reservation_price` `reservation` per seat, `outside_option` with `outside_options=private`; pie: `outside_option` per seat; auction: `private_value` `value` per seat |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.negotiation.bargaining import BargainingEngine


def env(**kwargs: Any) -> ArenaEnv:
    return ArenaEnv(BargainingEngine, **kwargs)
