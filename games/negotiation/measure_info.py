"""What each negotiation measure is, as ``arena leaderboard --measures`` prints it beside the
value (``GameInfo.measure_info``): a unit and a short definition. Per-seat figures are the
mean over the entry's seats of a match; utilities are the game's points."""

from __future__ import annotations

from arena.ratings.measures import MeasureInfo

SHARE = "share (0-1)"
PER_MATCH = "count per match"

MEASURE_INFO = {
    "agreement_rate": MeasureInfo(SHARE, "matches that ended in a deal (agreement or sale)"),
    "score_all": MeasureInfo("points", "its utility per match; no deal: its disagreement value"),
    "score_agreed": MeasureInfo("points", "its utility in the matches that reached a deal"),
    "norm": MeasureInfo(SHARE, "its gain over no deal as a share of the most it could have gained"),
    "surplus_share": MeasureInfo(
        "share of the ZOPA",
        "price deals: its part of the zone of agreement (outside 0-1 when it took a loss)",
    ),
    "surplus_share_clipped": MeasureInfo(SHARE, "surplus_share clipped to 0-1"),
    "gain_share": MeasureInfo(
        SHARE, "its gain over no deal as a share of every player's gain (deals only)"
    ),
    "pareto_optimal_rate": MeasureInfo(
        SHARE, "deals no other split improves for one player without hurting another"
    ),
    "nash_welfare": MeasureInfo(
        "points^players", "product of the players' gains over no deal (0 without a deal)"
    ),
    "nash_efficiency": MeasureInfo(SHARE, "nash_welfare as a share of the best possible"),
    "walk_away_rate": MeasureInfo(SHARE, "matches it ended by walking away"),
    "proposals": MeasureInfo(PER_MATCH, "offers or proposals it made"),
    "concession_rate": MeasureInfo(
        "points per proposal",
        "mean drop of its own utility from one of its proposals to its next (positive: conceding)",
    ),
    "messages": MeasureInfo(PER_MATCH, "chat messages it sent"),
    "message_chars": MeasureInfo("characters per match", "length of its chat messages"),
    "invalid_actions": MeasureInfo(PER_MATCH, "answers refused as invalid"),
    "fallbacks": MeasureInfo(PER_MATCH, "decisions the fallback policy took in its place"),
    "accepts": MeasureInfo(PER_MATCH, "offers it accepted (pie: accept votes)"),
    "irrational_accepts": MeasureInfo(
        PER_MATCH, "accepts of an offer worth less to it than no deal"
    ),
    "bid_shading": MeasureInfo(
        "share of its value", "sealed bids: (its value - its bid) / its value"
    ),
    "truthful_bid_rate": MeasureInfo(SHARE, "second-price bids within 1 of its value"),
    "win_rate": MeasureInfo(SHARE, "auctions it won"),
}
