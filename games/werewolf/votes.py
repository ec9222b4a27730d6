"""Voting and exile (§7), the Hunter (§8.2), win checks and the end of the game (§9)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.events import Visibility
from arena.types import Action, Decision, Option, Outcome
from games.werewolf.base import WerewolfBase
from games.werewolf.config import SPECIALS, VILLAGER, WOLF


class VoteMixin(WerewolfBase):
    # -- the vote --------------------------------------------------------------------
    def _next_vote(self) -> None:
        self.begin_vote(None, revote=False)

    def begin_vote(self, candidates: list[int] | None, revote: bool) -> None:
        self.vote_candidates = candidates
        self.revote = revote
        self.ballots: dict[int, int | str] = {}
        alive = self.alive_seats()
        if self.rules.vote_mode == "sequential":
            first = self.day_first if self.day_first in alive else alive[0]
            i = alive.index(first)
            self.vote_order = alive[i:] + alive[:i]
            self.seq("vote", self.vote_order[0])
        else:
            self.sim("vote", alive)

    def _d_vote(self, seat: int) -> Decision:
        pool = self.vote_candidates if self.vote_candidates is not None else self.alive_seats()
        targets = [s for s in pool if s != seat or self.rules.allow_self_vote]
        opts = self.seat_options(targets)
        if self.rules.allow_abstain:
            opts.append(Option.of("abstain"))
        what = "Revote among the tied players" if self.revote else "Vote to exile a player"
        known = self.seat_knowledge(seat, targets)
        return Decision.trusted(
            kind="revote" if self.revote else "vote",
            prompt=f"Day {self.day}: {what}." + (f" {known}" if known else ""),
            options=opts,
            simultaneous=self.rules.vote_mode == "simultaneous",
            meta=self.meta(),
        )

    def _ballot(self, seat: int, action: Action) -> int | str:
        return "abstain" if action.choice == "abstain" else int(action.choice or 0)

    def _ballot_event(self, voter: int, target: int | str, vis: Visibility) -> None:
        shown = "abstains" if target == "abstain" else f"votes for {self.n(int(target))}"
        self.ev(
            "ballot",
            f"{self.n(voter)} {shown}.",
            {"voter": voter, "target": target, "revote": self.revote},
            vis,
            actor=voter,
        )

    def _on_vote(self, seat: int, action: Action) -> None:
        target = self._ballot(seat, action)
        self.ballots[seat] = target
        self._ballot_event(seat, target, Visibility.public())
        idx = self.vote_order.index(seat) + 1
        if idx < len(self.vote_order):
            self.seq("vote", self.vote_order[idx])
        else:
            self._count_votes()

    def _resolve_vote(self, answers: dict[int, Action]) -> None:
        for s, a in answers.items():
            self.ballots[s] = self._ballot(s, a)
            self._ballot_event(s, self.ballots[s], Visibility.god())
        self._count_votes()

    def _count_votes(self) -> None:
        r = self.rules
        counts = Counter(t for t in self.ballots.values() if t != "abstain")
        exiled: int | None = None
        tie = False
        if counts:
            top = max(counts.values())
            tied = sorted(int(t) for t, c in counts.items() if c == top)
            base = len(self.ballots) if r.majority_base == "alive_players" else sum(counts.values())
            if r.elimination_rule == "strict_majority" and 2 * top <= base:
                tied = []
            tie = len(tied) > 1
            if len(tied) == 1:
                exiled = tied[0]
            elif tie and r.tie_rule == "random":
                exiled = self.rng.choice(tied)
            elif tie and r.tie_rule == "revote" and not self.revote:
                self._vote_result(counts, None, tie=True)
                self.begin_vote(tied, revote=True)
                return
        self._vote_result(counts, exiled, tie=tie)
        self._exile(exiled)

    def _vote_result(self, counts: Counter[Any], exiled: int | None, tie: bool) -> None:
        payload: dict[str, Any] = {"exiled": exiled, "revote": self.revote, "tie": tie}
        if self.rules.vote_mode == "simultaneous" and self.rules.vote_reveal == "counts_only":
            payload["counts"] = {int(t): c for t, c in sorted(counts.items())}
            shown = ", ".join(f"{self.n(int(t))}: {c}" for t, c in sorted(counts.items()))
        else:
            payload["ballots"] = dict(sorted(self.ballots.items()))
            shown = ", ".join(
                f"{self.n(v)} -> {'abstain' if t == 'abstain' else self.n(int(t))}"
                for v, t in sorted(self.ballots.items())
            )
        outcome = (
            "tie, revote"
            if tie and exiled is None and not self.revote and (self.rules.tie_rule == "revote")
            else f"exiled: {self.n(exiled)}"
        )
        label = "Revote" if self.revote else "Vote"
        self.ev("vote_result", f"{label} result ({shown or 'no votes'}); {outcome}.", payload)

    def _exile(self, seat: int | None) -> None:
        reveal = self.reveal_of(seat, self.rules.exile_reveal) if seat is not None else None
        if seat is not None:
            self.kill(seat, "exile")
            self.announce_deaths([seat], self.rules.exile_reveal)
        line = f"{self.n(seat)} is exiled." if seat is not None else "Nobody is exiled today."
        if reveal:
            line += f" {self.n(seat)} was {reveal}."
        self.ev("exile", line, {"seat": seat, "reveal": reveal})
        self.exiled = seat
        if seat is None:
            self._continue("day_end")
            return
        self.mark_observed_until_now([seat])
        if self.rules.last_words != "none":
            self.run_last_words([seat], "exile_hunter")
        else:
            self._next_exile_hunter()

    def _next_exile_hunter(self) -> None:
        seat = self.exiled
        hunters = [seat] if seat is not None and self.role[seat] == "hunter" else []
        self.run_hunters(hunters, "day_end", self.rules.exile_reveal)

    # -- the Hunter ------------------------------------------------------------------
    def run_hunters(self, hunters: list[int], then: str, reveal_mode: str) -> None:
        self.hunter_queue = list(hunters)
        self.hunter_next = then
        self.hunter_reveal = reveal_mode
        self._next_hunter()

    def _hunter_targets(self, seat: int) -> list[int]:
        return self.alive_others(seat)

    def _next_hunter(self) -> None:
        while self.hunter_queue:
            h = self.hunter_queue.pop(0)
            if self._hunter_targets(h):
                self.seq("hunter_shot", h)
                return
        self._continue(self.hunter_next)

    def _d_hunter_shot(self, seat: int) -> Decision:
        opts = self.seat_options(self._hunter_targets(seat))
        if self.rules.hunter_may_decline:
            opts.append(Option.of("decline"))
        return Decision.trusted(
            kind="hunter_shot",
            prompt="You are the Hunter and you are dying: shoot one player now.",
            options=opts,
            meta=self.meta(),
        )

    def _on_hunter_shot(self, seat: int, action: Action) -> None:
        target = None if action.choice == "decline" else int(action.choice or 0)
        reveal = self.reveal_of(target, self.hunter_reveal) if target is not None else None
        if target is not None:
            self.kill(target, "hunter")
            self.announce_deaths([target], self.hunter_reveal)
        self.role_told.add(seat)  # the public line below names the Hunter
        line = (
            f"{self.n(seat)} (the Hunter) shoots {self.n(target)}."
            if target is not None
            else f"{self.n(seat)} (the Hunter) declines to shoot."
        )
        if reveal:
            line += f" {self.n(target)} was {reveal}."
        self.ev(
            "hunter_shot",
            line,
            {"seat": seat, "target": target, "reveal": reveal},
            actor=seat,
        )
        if target is not None:
            self.mark_observed_until_now([target])
        self._next_hunter()

    # -- end of day, win checks ------------------------------------------------------
    def _next_day_end(self) -> None:
        if self.check_win():
            return
        if self.rules.belief_reports == "end_of_day":
            self.run_beliefs(self.alive_seats(), "cap_check")
        else:
            self._next_cap_check()

    def _next_cap_check(self) -> None:
        if self.day >= self.rules.max_days:
            cap = self.rules.cap_outcome
            label = {"draw": "draw_cap", "wolves": "wolves_win", "village": "village_win"}[cap]
            winners = () if cap == "draw" else (cap,)
            self.end_game(label, winners, f"day cap ({self.rules.max_days} days) reached")
        else:
            self._continue("night")

    def check_win(self) -> bool:
        """Run the §9 checks; on a result start the end of the game and return True."""
        alive = self.alive_seats()
        wolves = [s for s in alive if self.role[s] == WOLF]
        others = [s for s in alive if self.role[s] != WOLF]
        if not wolves:
            self.end_game("village_win", ("village",), "no wolf is alive")
            return True
        r = self.rules
        if r.win_condition == "parity":
            won = len(wolves) >= len(others)
        elif r.win_condition == "full_elimination":
            won = not others
        else:
            won = not others
            start_v = [s for s in range(self.n_seats) if self.role[s] == VILLAGER]
            start_sp = [s for s in range(self.n_seats) if self.role[s] in SPECIALS]
            if start_v and not any(self.alive[s] for s in start_v):
                won = True
            if r.side_elimination_scope == "both" and start_sp:
                won = won or not any(self.alive[s] for s in start_sp)
        if won:
            self.end_game("wolves_win", ("wolves",), f"wolves win by {r.win_condition}")
            return True
        return False

    def end_game(self, label: str, winners: tuple[str, ...], reason: str) -> None:
        self.pending_result = (label, winners, reason)
        mode = self.rules.belief_reports
        if mode == "end":
            self.run_beliefs(list(range(self.n_seats)), "finish")
        elif mode == "end_of_day" and self.belief_asked != (self.day, self.night):
            self.run_beliefs(self.alive_seats(), "finish")
        else:
            self._next_finish()

    def _next_finish(self) -> None:
        label, winners, reason = self.pending_result
        self.phase = "end"
        self.stage = "end"
        self.actor = None
        self.sim_seats = []
        roles = {s: self.role[s] for s in range(self.n_seats)}
        self.ev(
            "game_over",
            f"Game over: {label.replace('_', ' ')} ({reason}). Roles: "
            + ", ".join(f"{self.n(s)}={r}" for s, r in roles.items()),
            {"outcome": label, "winners": list(winners), "roles": roles, "reason": reason},
        )
        self.result = Outcome(
            label=label, winners=winners, rewards=self._rewards(winners), reason=reason
        )

    def _rewards(self, winners: tuple[str, ...]) -> dict[int, float]:
        zero_one = self.rules.reward_scheme == "zero_one"
        out: dict[int, float] = {}
        for s in range(self.n_seats):
            if not winners:
                out[s] = 0.5 if zero_one else 0.0
            elif self.team_of(s) in winners:
                out[s] = 1.0
            else:
                out[s] = 0.0 if zero_one else -1.0
        return out

    # -- belief reports ----------------------------------------------------------------
    def run_beliefs(self, seats: list[int], then: str) -> None:
        self.belief_asked = (self.day, self.night)
        self.belief_next = then
        self.sim("belief", seats)

    def _d_belief(self, seat: int) -> Decision:
        others = ", ".join(f"{s}={self.n(s)}" for s in range(self.n_seats) if s != seat)
        return Decision.trusted(
            kind="belief",
            prompt="Private report (nobody else sees it): for every other player, your "
            'probability that they are a werewolf, as {"belief": {"<seat>": p, ...}}. '
            f"Seats: {others}. Or pass.",
            options=[Option.of("pass")],
            free_text=True,
            belief_only=True,
            silent_option="pass",
            simultaneous=True,
            max_chars=self.rules.max_message_chars,
            meta=self.meta(),
        )

    def _belief_seat(self, key: str) -> int | None:
        key = key.strip()
        if key.isdigit() and int(key) < self.n_seats:
            return int(key)
        low = key.lower()
        for s, name in enumerate(self._names):
            if name.lower() == low:
                return s
        return None

    def _resolve_belief(self, answers: dict[int, Action]) -> None:
        for s, a in answers.items():
            beliefs: dict[int, float] = {}
            for key, p in (a.belief or {}).items():
                t = self._belief_seat(key)
                if t is not None and t != s:
                    beliefs[t] = p
            if beliefs:
                self.ev(
                    "belief",
                    f"[god] {self.n(s)} reports beliefs.",
                    {"seat": s, "beliefs": dict(sorted(beliefs.items()))},
                    Visibility.god(),
                    actor=s,
                )
        self._continue(self.belief_next)
