"""Negotiation briefings for LLM agents: ``dealornodeal`` (item split), ``price_bargaining``
(buyer–seller price) and ``pie_division`` (n-party pie); ``auction`` has no templates yet and
gets the generic briefing. The old id ``bargaining`` gets the briefing of the game its ``mode``
names.

Every game id finds this module through the registry (their engines live in
``games.negotiation``). A briefing is built only from what the seat knows: its observation
(``obs.private``: its own item values, reservation price, outside option or no-deal payoff;
``obs.state`` and the public events) and the public rule flags. It states the rules of the active
variant, the seat's role and private numbers, and the answer format; strategy hints only when an
agent entry sets ``strategy_hints: true``.

Templates are per mode (:data:`TEMPLATES`: ``split``, ``price``, ``pie``) with the same keys;
an agent entry's ``templates`` override the keys of the active mode, and ``role:<role>``
(``role:negotiator``, ``role:seller``, ``role:buyer``, ``role:party``) replaces the role line.
Placeholders are ``{name}``; any other braces are kept as written.
"""

from __future__ import annotations

from typing import Any

from arena.types import Observation
from games.briefing import sections

_FORMAT = (
    "Each turn you are shown the transcript you have seen and one decision with its legal ids; "
    "answer exactly in the JSON format requested."
)

TEMPLATES: dict[str, dict[str, str]] = {
    "split": {
        # the rules come first and name no one: every game's briefing starts with the same
        # text, which a backend with prefix caching computes once (ORDER, below)
        "rules": "You negotiate with one other player over how to split a pool of items. "
        "{protocol}",
        "talk": "{talk}",
        "format": _FORMAT + " {actions}",
        "intro": "This game: you are {name} (seat {seat}); the other player is {other} (seat "
        "{other_seat}){first}. The pool: {pool}.",
        "role": "Your private values per item: {values}. Your values total {value_total} over "
        "the whole pool; {other} has private values of their own with the same total. Your "
        "payoff from a deal is the sum of your values of the items you get.",
        "no_deal": "{no_deal}",
        "hints": "Hints: learn which items matter most to {other} and trade what you value "
        "little for what you value much; a deal usually beats no deal.",
    },
    "price": {
        "intro": "You are {name} (seat {seat}), the {role}, bargaining with {other} (seat "
        "{other_seat}), the {other_role}, over the price of one item.",
        "role": "Your private {limit_name} is {reservation}: {limit_help}. Your payoff from a "
        "deal at price P is {gain}{discount_clause}.",
        "no_deal": "{no_deal}",
        "rules": "Prices {lo}..{hi} in steps of {step}.{list_price} Turns alternate, at most "
        "{max_turns} turns (a round is two turns); {first} moves first. A new offer replaces "
        "your standing offer and clears {other}'s; an offer made on the last turn cannot be "
        "accepted. When the turns run out there is no deal.{block}",
        "talk": "{talk}",
        "format": _FORMAT + ' Answer {"choice": "<id>", "text": "<optional message>"}: '
        "offer:P offers the price P; accept takes {other}'s standing offer; reject clears it; "
        "pass does nothing{walk}.",
        "hints": "Hints: do not reveal your {limit_name}; open with room to concede and make "
        "your concessions smaller over time.",
    },
    "pie": {
        "intro": "You are {name} (seat {seat}), one of {n} parties dividing a pie of {pie}. "
        "Parties in seat order: {players}.",
        "role": "Your private outside option is {outside}: your payoff if no proposal passes. "
        "Every party has its own private outside option between {o_lo} and {o_hi}.",
        "no_deal": "",
        "rules": "Each round one party proposes (the proposer rotates in seat order); then "
        "{discussion}the other parties vote accept or reject at the same time, and the proposer "
        "counts as accepting. A proposal passes with {quota} of {n} accepts; everyone then gets "
        "their share{discount_clause}. At most {rounds} rounds; if no proposal passes, everyone "
        "gets their outside option.",
        "talk": "{talk}",
        "format": _FORMAT + ' As proposer, answer {"text": "allocate: a0, a1, ..."} with one '
        "whole-number share per seat in seat order ({order}), summing to {pie}; a message may "
        'follow on the next line; or {"choice": "pass"} to make no proposal. When commenting, '
        'write a message as "text" or choose "pass"{private}. When voting, choose accept or '
        "reject.",
        "hints": "Hints: a proposal needs {quota} accepts, so offer the cheapest coalition "
        "slightly more than their outside options.",
    },
}


# The item split's briefing states the rules before this game's facts (its names, pool and
# values): the same opening in every game. The others still open with the seat's role.
ORDER: dict[str, list[str]] = {
    "split": ["rules", "talk", "format", "intro", "role", "no_deal"],
    "price": ["intro", "role", "no_deal", "rules", "talk", "format"],
    "pie": ["intro", "role", "no_deal", "rules", "talk", "format"],
}


def mode_of(obs: Observation, rules: dict[str, Any] | None) -> str:
    """``split`` (dealornodeal), else the game's ``state["mode"]`` (``price``, ``pie``,
    ``auction``), else the old id's ``mode`` flag."""
    if obs.game == "dealornodeal" or "items" in obs.state:
        return "split"
    return str(obs.state.get("mode") or (rules or {}).get("mode") or "price")


def _rules(mode: str, rules: dict[str, Any] | None) -> Any:
    """The game's rule flags; flags it does not know (an old full dump with other modes'
    defaults) are dropped and the rest read without re-validation."""
    from games.negotiation.auction_rules import AuctionRules
    from games.negotiation.pie_rules import PieRules
    from games.negotiation.price_rules import PriceRules
    from games.negotiation.split_rules import SplitRules

    classes = {"split": SplitRules, "price": PriceRules, "pie": PieRules, "auction": AuctionRules}
    cls: Any = classes[mode]
    data = {k: v for k, v in (rules or {}).items() if k not in ("preset", "mode")}
    try:
        return cls(**data)
    except Exception:
        base = cls().model_dump()
        known = {k: v for k, v in data.items() if k in base}
        return cls.model_construct(**{**base, **known})


def _names(obs: Observation, names: list[str] | None) -> list[str]:
    if names:
        return list(names)
    if obs.state.get("names"):
        return list(obs.state["names"])
    for e in obs.events:
        if e.type == "game_start" and e.payload.get("names"):
            return list(e.payload["names"])
    return []


def _own(obs: Observation, kind: str, key: str | None = None) -> Any:
    for f in obs.private:
        if f.owner == obs.seat and f.kind == kind and (key is None or f.key == key):
            return f.value
    return None


def _start(obs: Observation) -> dict[str, Any]:
    return next((dict(e.payload) for e in obs.events if e.type == "game_start"), {})


def _talk(r: Any, private: bool = False) -> str:
    if not r.allow_talk:
        return "Talk is disabled: choose actions only."
    text = (
        f'You may add a message ("text", at most {r.max_message_chars} characters) to your '
        "action; a message alone is a turn of talk. Messages are public"
    )
    return text + (" unless sent privately." if private else ".")


def _split_values(obs: Observation, r: Any, nm: list[str]) -> dict[str, Any]:
    st = obs.state
    items = list(st.get("items") or r.item_types)
    counts = list(st.get("counts") or [])
    vals = _own(obs, "valuation", "valuation") or {}
    other = 1 - obs.seat
    o_name = nm[other] if other < len(nm) else f"seat {other}"
    first = st.get("first_mover")
    walk = ", walk_away ends the game with no deal" if r.allow_walk_away else ""
    if r.no_deal_payoff == "private_batna":
        lo, hi = r.batna_range
        no_deal = (
            f"Without a deal you get {_own(obs, 'batna')} (your private no-deal payoff; "
            f"{o_name} has one too, between {lo} and {hi})."
        )
    else:
        no_deal = "Without a deal both players get 0."
    order = "/".join(items)
    if r.protocol == "selection":
        protocol = (
            f"First a dialogue of at most {r.max_turns} turns of messages (end_dialogue ends it "
            "early); then both players privately submit what they keep. A deal needs the two "
            "selections to add up exactly to the pool; otherwise there is no deal."
        )
        actions = (
            f'In the dialogue choose pass or end_dialogue{walk}, with a message as "text". '
            f"In the selection choose keep:a-b-c (what you keep, in item order {order}) or "
            "no_agreement."
        )
    else:
        protocol = (
            f"Turns alternate, at most {r.max_turns} turns. A new proposal replaces your "
            "standing offer and clears the other player's; a proposal made on the last turn "
            "cannot be accepted. When the turns run out there is no deal."
        )
        actions = (
            f"Actions: propose:a-b-c (you keep a/b/c of {order} and the other player gets the "
            f"rest), accept (the other player's standing offer), reject, pass{walk}."
        )
    if first is None or r.protocol == "selection":
        mover = ""
    else:
        mover = "; you move first" if first == obs.seat else ", who moves first"
    return {
        "other": o_name,
        "other_seat": other,
        "first": mover,
        "pool": ", ".join(f"{c} {i}" for i, c in zip(items, counts, strict=False)) or order,
        "values": ", ".join(f"{i} {vals.get(i, '?')}" for i in items),
        "value_total": st.get("value_total", r.value_total),
        "no_deal": no_deal,
        "protocol": protocol,
        "talk": _talk(r),
        "actions": actions,
        "role": "negotiator",
    }


def _price_values(obs: Observation, r: Any, nm: list[str]) -> dict[str, Any]:
    st = obs.state
    roles = st.get("roles") or {"0": "seller", "1": "buyer"}
    role = str(st.get("role") or roles.get(str(obs.seat), "seller"))
    other = 1 - obs.seat
    o_name = nm[other] if other < len(nm) else f"seat {other}"
    res = _own(obs, "reservation_price")
    seller = role == "seller"
    first = _start(obs).get("first_mover")
    lo, hi = r.price_range
    if r.outside_options == "private":
        no_deal = (
            f"Without a deal you get {_own(obs, 'outside_option')} (your private outside "
            f"option; {o_name} has one too)."
        )
    else:
        no_deal = "Without a deal both players get 0."
    disc = (
        f", shrunk by a factor {r.discount:g} per round after the first" if r.discount < 1 else ""
    )
    return {
        "role": role,
        "other": o_name,
        "other_seat": other,
        "other_role": "buyer" if seller else "seller",
        "limit_name": "cost" if seller else "budget",
        "reservation": res,
        "limit_help": "the lowest price you can accept without a loss"
        if seller
        else "the highest price you can pay without a loss",
        "gain": f"P minus {res}" if seller else f"{res} minus P",
        "discount_clause": disc,
        "no_deal": no_deal,
        "lo": lo,
        "hi": hi,
        "step": r.price_step,
        "list_price": f" List price: {r.list_price}." if r.list_price is not None else "",
        "max_turns": r.max_turns,
        "first": nm[first] if isinstance(first, int) and first < len(nm) else r.first_mover,
        "block": " The accept option is only offered when the deal pays you at least your no-deal "
        "payoff."
        if r.block_irrational_accept
        else "",
        "walk": "; walk_away ends the game with no deal" if r.allow_walk_away else "",
        "talk": _talk(r),
    }


def _pie_values(obs: Observation, r: Any, nm: list[str]) -> dict[str, Any]:
    n = r.n_parties
    passes = r.discussion_passes
    o_lo, o_hi = r.outside_option_range
    return {
        "role": "party",
        "n": n,
        "pie": r.pie,
        "players": ", ".join(f"{i}={x}" for i, x in enumerate(nm)) or f"{n} seats",
        "order": ", ".join(f"a{i} for {x}" for i, x in enumerate(nm)) or f"a0..a{n - 1}",
        "outside": _own(obs, "outside_option"),
        "o_lo": o_lo,
        "o_hi": o_hi,
        "discussion": f"the others comment in seat order ({passes} pass(es)); " if passes else "",
        "quota": r.quota_count,
        "discount_clause": f", shrunk by a factor {r.discount:g} per round after the first"
        if r.discount < 1
        else "",
        "rounds": r.rounds,
        "talk": _talk(r, private=r.allow_private),
        "private": ' ({"choice": "to:<seat>", "text": ...} sends a private message)'
        if r.allow_private
        else "",
    }


def briefing(
    obs: Observation,
    *,
    rules: dict[str, Any] | None = None,
    templates: dict[str, str] | None = None,
    strategy_hints: bool = False,
    names: list[str] | None = None,
) -> str:
    """A negotiation seat's system prompt (item split, price or pie): its role and private
    numbers, the no-deal outcome, the rules, talk and the answer format."""
    mode = mode_of(obs, rules)
    if mode not in TEMPLATES:  # a mode without templates yet
        from arena.llm.prompt import generic_briefing

        return generic_briefing(obs)
    r = _rules(mode, rules)
    nm = _names(obs, names)
    build = {"split": _split_values, "price": _price_values, "pie": _pie_values}[mode]
    values = {"name": obs.name, "seat": obs.seat, **build(obs, r, nm)}
    lines = sections(
        TEMPLATES[mode],
        templates,
        ORDER.get(mode, ORDER["price"]),
        values,
        role=str(values["role"]),
        strategy_hints=strategy_hints,
    )
    return "\n".join(x for x in lines if x.strip())
