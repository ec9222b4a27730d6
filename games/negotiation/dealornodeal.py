"""Rules engine of ``arena/DealOrNoDeal-v0``: the multi-issue item split of negotiation.md §2."""

from __future__ import annotations

import functools
import math
from typing import Any

from arena.events import Visibility
from arena.types import Action, Decision, InvalidAction, Outcome, PrivateFact
from games.negotiation.common import (
    NegotiationEngine,
    message_of,
    option_list,
    parse_vec,
    refuse_action_like_text,
    seat_names,
    vec_id,
)
from games.negotiation.split_rules import (
    SplitRules,
    Vec,
    complement,
    count_vectors,
    keep_vectors,
    sample_scenario,
    utility,
)
from games.negotiation.split_texts import (
    choice_knowledge,
    describe_pool,
    offers_text,
    split_facts,
    values_text,
)

FIXED = ("accept", "reject", "walk_away", "pass")


@functools.cache
def _vec_ids(prefix: str, counts: Vec) -> tuple[str, ...]:
    return tuple(vec_id(prefix, x) for x in keep_vectors(counts))


class DealOrNoDealEngine(NegotiationEngine):
    """Two players split a pool of items; each values the items privately."""

    game = "dealornodeal"
    Rules = SplitRules
    rules: SplitRules

    @property
    def n_seats(self) -> int:
        return 2

    # -- setup -------------------------------------------------------------------------
    def _setup(self) -> None:
        r = self.rules
        self._names = seat_names(self.rng, 2)
        self.sc = sample_scenario(self.rng, r)
        self.items = r.item_types
        self.turn = 1
        self.standing: list[Vec | None] = [None, None]
        self.proposals: list[dict[str, Any]] = []
        self.stage = "dialogue" if r.protocol == "selection" else "turns"
        self.selections: dict[int, Vec | None] = {}
        self.result: dict[str, Any] | None = None
        self.phase = "negotiation"
        n = self._names
        self.emit(
            "game_start",
            f"{n[0]} and {n[1]} split a pool of items: {self.describe_pool(self.sc.counts)}. "
            f"Each player's item values total {r.value_total} over the whole pool. "
            f"{n[self.sc.first_mover]} moves first; at most {r.max_turns} turns "
            f"({r.protocol} protocol).",
            items=list(self.items),
            counts=list(self.sc.counts),
            value_total=r.value_total,
            max_turns=r.max_turns,
            first_mover=self.sc.first_mover,
            protocol=r.protocol,
            names=list(n),
        )
        self.tell_privately([self.values_text(s) for s in range(2)])
        self.emit(
            "scenario",
            visibility=Visibility.god(),
            counts=list(self.sc.counts),
            values=[list(v) for v in self.sc.values],
            disagreement=list(self.sc.batna),
            first_mover=self.sc.first_mover,
            value_total=r.value_total,
        )

    def describe_pool(self, vec: Vec) -> str:
        return describe_pool(self.items, vec)

    def values_text(self, seat: int) -> str:
        return values_text(self.items, self.sc.values[seat], self.sc.batna[seat])

    # -- whose turn --------------------------------------------------------------------
    def mover(self, turn: int | None = None) -> int:
        t = self.turn if turn is None else turn
        return self.sc.first_mover if t % 2 == 1 else 1 - self.sc.first_mover

    def pending(self) -> list[int]:
        if self._is_over():
            return []
        if self.stage == "selection":
            return [s for s in range(2) if s not in self.selections]
        return [self.mover()]

    def decision(self, seat: int) -> Decision:
        if seat not in self.pending():
            raise KeyError(seat)
        r = self.rules
        counts = self.sc.counts
        if self.stage == "selection":
            return Decision(
                kind="select",
                prompt="Submit privately what you keep (keep:a-b-c in item order "
                f"{'/'.join(self.items)}), or no_agreement. A deal needs both "
                "selections to add up to the pool.",
                options=list(option_list(("no_agreement", *_vec_ids("keep", counts)))),
                simultaneous=True,
            )
        other = 1 - seat
        ids: list[str] = []
        if self.stage == "dialogue":
            ids.append("end_dialogue")
        elif self.standing[other] is not None:
            ids += ["accept", "reject"]
        if r.allow_walk_away:
            ids.append("walk_away")
        ids.append("pass")
        if self.stage == "turns":
            ids += _vec_ids("propose", counts)
        left = r.max_turns - self.turn
        return Decision(
            kind="negotiate" if self.stage == "turns" else "dialogue",
            prompt=(
                f"Turn {self.turn} of {r.max_turns} ({left} left after this one). "
                + self.choice_knowledge(seat)
                + (
                    f"propose:a-b-c means you keep a/b/c of {'/'.join(self.items)} and "
                    "the other player gets the rest. "
                    if self.stage == "turns"
                    else "end_dialogue moves to the private selection of what you keep. "
                )
                + 'Answer {"choice": <id>, "text": <optional message>}'
                + ("; plain text alone is a message." if r.allow_talk else ".")
            ),
            options=list(option_list(tuple(ids))),
            free_text=True,
            max_chars=r.max_message_chars,
            silent_option="pass",
        )

    def choice_knowledge(self, seat: int) -> str:
        theirs = self.standing[1 - seat] if self.stage == "turns" else None
        s = self.sc
        return choice_knowledge(self.items, s.counts, s.values[seat], s.batna[seat], theirs)

    def max_options(self) -> int:
        r = self.rules
        combos = count_vectors(len(r.item_types), r.count_range, r.total_items_range)
        return max(math.prod(c + 1 for c in v) for v in combos) + len(FIXED) + 1

    def noop(self, seat: int) -> Action:
        """The selection's no-op (§6): no agreement."""
        return Action(seat=seat, choices=("no_agreement",), fallback="no_agreement")

    # -- applying ----------------------------------------------------------------------
    def _apply(self, seat: int, action: Action) -> None:
        if self.stage == "selection":
            self._select(seat, action)
            return
        refuse_action_like_text(action, self.decision(seat).option_ids)
        msg = message_of(action)
        choice = action.choice
        if choice is None and not self.rules.allow_talk:
            raise InvalidAction("talk is disabled in this game: choose an action")
        name, other = self._names[seat], 1 - seat
        if msg:
            self.post_message(seat, msg)
        if choice is None:
            pass  # talk: the message is the whole turn
        elif choice.startswith("propose:"):
            keep = parse_vec(choice)
            self.standing[seat], self.standing[other] = keep, None
            self.proposals.append({"seat": seat, "keep": list(keep), "turn": self.turn})
            give = complement(self.sc.counts, keep)
            self.emit(
                "proposal",
                f"{name} proposes: {name} gets {self.describe_pool(keep)}; "
                f"{self._names[other]} gets {self.describe_pool(give)}.",
                actor=seat,
                keep={str(seat): list(keep), str(other): list(give)},
                turn=self.turn,
            )
        elif choice == "accept":
            theirs = self.standing[other]
            assert theirs is not None
            alloc = [theirs, theirs]
            alloc[seat] = complement(self.sc.counts, theirs)
            self.emit("accept", f"{name} accepts.", actor=seat, turn=self.turn)
            self._end("agreement", "accepted", (alloc[0], alloc[1]))
            return
        elif choice == "reject":
            self.standing[other] = None
            self.emit("reject", f"{name} rejects the offer.", actor=seat, turn=self.turn)
        elif choice == "walk_away":
            self.emit("walk_away", f"{name} walks away.", actor=seat, turn=self.turn)
            self._end("walk_away", "walk_away", None, walker=seat)
            return
        elif choice == "end_dialogue":
            self.emit("end_dialogue", f"{name} ends the dialogue.", actor=seat, turn=self.turn)
            self._start_selection()
            return
        else:  # pass
            kind = "fallback_pass" if action.fallback else "pass"
            self.emit(kind, f"{name} passes.", actor=seat, turn=self.turn)
        self._advance()

    def _advance(self) -> None:
        self.turn += 1
        if self.turn > self.rules.max_turns:
            if self.stage == "dialogue":
                self._start_selection()
            else:
                self._end("no_deal", "turn_cap", None)

    def _start_selection(self) -> None:
        self.stage = "selection"
        self.phase = "selection"
        self.emit("selection_start", "Both players now privately submit what they keep.")

    def _select(self, seat: int, action: Action) -> None:
        choice = action.choice
        self.selections[seat] = None if choice == "no_agreement" else parse_vec(choice or "")
        if len(self.selections) < 2:
            return
        sel = [self.selections[0], self.selections[1]]
        self.emit(
            "selections",
            "Selections: "
            + "; ".join(
                f"{self._names[s]} keeps {self.describe_pool(v) if v else 'no agreement'}"
                for s, v in enumerate(sel)
            ),
            selections={str(s): (list(v) if v else None) for s, v in enumerate(sel)},
        )
        a, b = sel
        if a is not None and b is not None and complement(self.sc.counts, a) == b:
            self._end("agreement", "selections_match", (a, b))
        else:
            self._end("selection_mismatch", "selection_mismatch", None)

    def _end(
        self, label: str, reason: str, alloc: tuple[Vec, Vec] | None, walker: int | None = None
    ) -> None:
        vals, d = self.sc.values, self.sc.batna
        if alloc is None:
            utils = [float(d[0]), float(d[1])]
            text = f"No deal ({reason.replace('_', ' ')})."
        else:
            utils = [float(utility(vals[s], alloc[s])) for s in range(2)]
            text = "Deal: " + "; ".join(
                f"{self._names[s]} gets {self.describe_pool(alloc[s])}" for s in range(2)
            )
        self.result = {
            "label": label,
            "reason": reason,
            "allocation": [list(x) for x in alloc] if alloc else None,
            "utilities": utils,
            "turn": self.turn,
            "walker": walker,
        }
        self.phase = "end"
        self.emit(
            "game_end",
            text,
            label=label,
            reason=reason,
            allocation=self.result["allocation"],
            turn=self.turn,
        )
        for s in range(2):
            self.emit(
                "payoff",
                f"(private to {self._names[s]}) Your payoff: {utils[s]:g}.",
                visibility=Visibility.private(s),
                seat=s,
                utility=utils[s],
            )
        self.emit("result", visibility=Visibility.god(), **self.result)

    # -- end ---------------------------------------------------------------------------
    def _is_over(self) -> bool:
        return self.result is not None

    def norm_score(self, seat: int) -> float:
        """Norm_i of §8.3: gain over the disagreement point relative to the best deal."""
        assert self.result is not None
        d = self.sc.batna[seat]
        top = self.rules.value_total - d
        return (self.result["utilities"][seat] - d) / top if top > 0 else 0.0

    def _outcome(self) -> Outcome | None:
        if self.result is None:
            return None
        utils = self.result["utilities"]
        scores = [self.norm_score(s) for s in range(2)]
        best = max(scores)
        winners = () if scores[0] == scores[1] else (f"p{scores.index(best)}",)
        return Outcome(
            label=self.result["label"],
            winners=winners,
            rewards={s: utils[s] for s in range(2)},
            reason=self.result["reason"],
        )

    # -- seats, secrets, views ---------------------------------------------------------
    def teams(self) -> dict[int, str]:
        return {0: "p0", 1: "p1"}

    def roles(self) -> dict[int, str]:
        return {0: "negotiator", 1: "negotiator"}

    def private_facts(self) -> list[PrivateFact]:
        private_batna = self.rules.no_deal_payoff == "private_batna"
        return split_facts(self.items, self.sc.values, self.sc.batna, private_batna)

    def own_turns(self, seat: int) -> tuple[int, int]:
        """(index of the seat's current or next own turn, its total own turns): j and J."""
        turns = [t for t in range(1, self.rules.max_turns + 1) if self.mover(t) == seat]
        done = sum(1 for t in turns if t < self.turn)
        return min(done + 1, len(turns)), len(turns)

    def state(self, seat: int | None) -> dict[str, Any]:
        r = self.rules
        st: dict[str, Any] = {
            "phase": self.phase,
            "stage": self.stage,
            "turn": self.turn,
            "max_turns": r.max_turns,
            "turns_left": max(0, r.max_turns - self.turn),
            "mover": self.mover() if not self._is_over() else None,
            "items": list(self.items),
            "counts": list(self.sc.counts),
            "value_total": r.value_total,
            "protocol": r.protocol,
            "first_mover": self.sc.first_mover,
            "standing": {
                str(s): (list(x) if x else None) for s in range(2) for x in [self.standing[s]]
            },
            "proposals": [dict(p) for p in self.proposals],
            "no_deal_payoff": r.no_deal_payoff,
        }
        if seat is not None:
            st["seat"] = seat
            st["my_turn"], st["my_turns_total"] = self.own_turns(seat)
        if self.result is not None:
            st["label"] = self.result["label"]
            st["allocation"] = self.result["allocation"]
        return st

    def status_line(self, seat: int) -> str:
        if self._is_over():
            return "The game is over."
        left, other = self.rules.max_turns - self.turn, 1 - seat
        turn = f"Turn {self.turn} of {self.rules.max_turns}; {left} turn(s) remain after this one."
        mine, theirs = self.standing[seat], self.standing[other]
        offers = offers_text(self.items, self.sc.counts, mine, theirs, self._names[other])
        return " ".join([turn, *offers])

    def briefing(self, seat: int) -> str:
        r = self.rules
        other = self._names[1 - seat]
        walk = " You may walk away (no deal)." if r.allow_walk_away else ""
        return (
            f"You are {self._names[seat]} (seat {seat}), negotiating with {other} over how to "
            f"split {self.describe_pool(self.sc.counts)}. Each of you values the items "
            f"privately; each player's values total {r.value_total} over the whole pool. "
            f"{self.values_text(seat)} Your payoff from a deal is the sum of your values of "
            f"the items you get. A new proposal replaces your standing offer and clears "
            f"{other}'s; a proposal made on the last turn cannot be accepted.{walk}"
        )
