"""``arena/DealOrNoDeal-v0`` — multi-issue item split with private valuations (negotiation.md §2).

| | |
|---|---|
| Import | `import arena; pettingzoo.make("aec", "arena/DealOrNoDeal-v0", **rules)` |
| Agents | `player_0`, `player_1` (each its own team `p0`, `p1`) |
| Actions | Text: an option id (`propose:a-b-c` = keep a/b/c of each item type, `accept`, `reject`, `walk_away`, `pass`; selection protocol: `end_dialogue`, `keep:a-b-c`, `no_agreement`), a JSON object `{"choice": id, "text": message}`, or plain text (a message, i.e. `talk`) |
| Observation | `Dict(text=Text, legal=Box(0, 1, (K,), int8))`: the seat's egocentric view and a mask over the current options |
| Rewards | raw utility at the end: Σ items kept × own value on a deal, the no-deal payoff otherwise |
| Rule flags | `item_types`, `count_range`, `total_items_range`, `value_total`, `allow_identical_values`, `no_deal_payoff` (`zero`/`private_batna`), `batna_range`, `protocol` (`proposals`/`selection`), `max_turns`, `first_mover`, `allow_talk`, `allow_walk_away`, `max_message_chars` |
| Outcomes | `agreement`, `walk_away`, `no_deal` (turn cap), `selection_mismatch` |
| Private facts | per seat: `valuation` `val:<item>` (numeric), composite `valuation`; `batna` with `private_batna` |
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.negotiation.dealornodeal import DealOrNoDealEngine


def env(**kwargs: Any) -> ArenaEnv:
    return ArenaEnv(DealOrNoDealEngine, **kwargs)
