"""The Werewolf rules engine (spec werewolf.md): setup, views, secrets and the outcome.

The phases live in mixins: :mod:`games.werewolf.night` (night and dawn),
:mod:`games.werewolf.day` (discussion modes, polls, last words) and
:mod:`games.werewolf.votes` (votes, exile, Hunter, win checks, belief reports, end).
Event and decision kinds follow the fixed engine/bots contract (docs/games/werewolf.md).
"""

from __future__ import annotations

from typing import Any

from arena.engine import NAME_POOL
from arena.events import Visibility
from arena.facts import with_implications
from arena.types import Option, Outcome, PrivateFact
from games.werewolf.base import Stage
from games.werewolf.config import ROLE_TEAM, WOLF, WerewolfRules
from games.werewolf.day import DayMixin
from games.werewolf.knowledge import IMPLICATIONS
from games.werewolf.night import NightMixin
from games.werewolf.texts import ROLE_HELP, wolf_win
from games.werewolf.votes import VoteMixin


class WerewolfEngine(NightMixin, DayMixin, VoteMixin):
    """Werewolf / Mafia with every rule variant of the spec as a flag."""

    game = "werewolf"
    Rules = WerewolfRules

    def _setup(self) -> None:
        r = self.rules
        n = r.n_players
        self._names = self.rng.sample(NAME_POOL, n)
        self.role: list[str] = list(r.roles or [])
        self.rng.shuffle(self.role)
        self.wolves = [s for s in range(n) if self.role[s] == WOLF]
        self.alive = [True] * n
        self.cause: dict[int, str] = {}
        self.revealed: dict[int, str] = {}
        self.role_told: set[int] = set()  # seats whose role an engine line named publicly
        self.cutoff: dict[int, int] = {}
        self.frozen: dict[int, dict[str, Any]] = {}
        self._observing = frozenset(range(n))
        # Fixed for the whole game, built once: seat options and briefings.
        self._seat_opts = [Option(id=str(s), label=nm) for s, nm in enumerate(self._names)]
        self._briefings: dict[int, str] = {}
        self.day = 0
        self.night = 0
        self.stage = "setup"
        self.actor: int | None = None
        self.sim_seats: list[int] = []
        self.answers = {}
        self.result: Outcome | None = None
        self.night_victims: list[int] = []
        self.last_protect: dict[int, int] = {}
        self.inspected: dict[int, set[int]] = {}
        self.seer_results: dict[int, dict[int, str]] = {}
        self.heal_left = {s: True for s in range(n) if self.role[s] == "witch"}
        self.poison_left = dict(self.heal_left)
        self.rr_start: int | None = None
        self.day_first: int | None = None
        self.belief_asked: tuple[int, int] | None = None
        self.exiled: int | None = None
        composition = r.composition()
        self.ev(
            "setup",
            f"Werewolf with {n} players: "
            + ", ".join(f"{nm} (seat {i})" for i, nm in enumerate(self._names))
            + ". Roles in play: "
            + ", ".join(f"{c} {role}" for role, c in composition.items())
            + ".",
            {"names": list(self._names), "composition": composition, "rules": r.model_dump()},
        )
        for s in range(n):
            self.ev(
                "role",
                f"You are {self._names[s]}; your role is {self.role[s]}.",
                {"seat": s, "role": self.role[s], "team": self.team_of(s)},
                Visibility.private(s),
            )
        self.ev(
            "wolf_team",
            "[wolves] The wolves are: " + ", ".join(self.n(w) for w in self.wolves) + ".",
            {"wolves": list(self.wolves)},
            Visibility.for_team("wolves", self.wolves),
        )
        self._continue(r.first_phase)

    # -- end -------------------------------------------------------------------------
    def _is_over(self) -> bool:
        return self.result is not None

    def _outcome(self) -> Outcome | None:
        return self.result

    # -- seats and secrets -----------------------------------------------------------
    def teams(self) -> dict[int, str]:
        return {s: ROLE_TEAM[self.role[s]] for s in range(self.n_seats)}

    def roles(self) -> dict[int, str]:
        return dict(enumerate(self.role))

    def max_options(self) -> int:
        return self.n_seats + 4

    def private_facts(self) -> list[PrivateFact]:
        """Role and side of every seat with who knows them now, and the Seer's results.

        The wolves know every side (they know who the wolves are) and each other's roles; a
        Seer learns the side (or, with ``seer_result: role``, the role) of each seat it
        inspected; a reveal on death makes the side (and with a role reveal the role) public;
        the Hunter's shot names the Hunter publicly; the end shows every role. Knowing a seat
        is a wolf tells its role (``IMPLICATIONS``), for a team reveal and a Seer alike.

        Built again only when what it depends on changed (a Seer's result, a reveal, a role
        named, the end): most decisions change none of it."""
        over = self.result is not None or self.phase == "end"
        key = (
            over,
            tuple((seer, tuple(sorted(res.items()))) for seer, res in self.seer_results.items()),
            tuple(sorted(self.revealed.items())),
            tuple(sorted(self.role_told)),
        )
        memo = self._memo.get("facts")
        if memo is None or memo[0] != key:
            memo = self._memo["facts"] = (key, self._private_facts(over))
        return list(memo[1])

    def _private_facts(self, over: bool) -> list[PrivateFact]:
        inspected_by: dict[int, set[int]] = {}
        for seer, results in self.seer_results.items():
            for target in results:
                inspected_by.setdefault(target, set()).add(seer)
        role_seen = self.rules.seer_result == "role"
        facts = []
        for s in range(self.n_seats):
            seers = inspected_by.get(s, set())
            wolf = self.role[s] == WOLF
            role_audience = {s, *(self.wolves if wolf else ()), *(seers if role_seen else ())}
            revealed = self.revealed.get(s)
            facts.append(
                PrivateFact(
                    owner=s,
                    kind="role",
                    key="role",
                    value=self.role[s],
                    audience=tuple(sorted(role_audience)),
                    public=over or revealed == self.role[s] or s in self.role_told,
                    aliases=(self._names[s],),
                )
            )
            facts.append(
                PrivateFact(
                    owner=s,
                    kind="side",
                    key="side",
                    value=self.team_of(s),
                    audience=tuple(sorted({s, *self.wolves, *seers})),
                    public=over or revealed is not None,
                    aliases=(self._names[s],),
                )
            )
        for seer, results in sorted(self.seer_results.items()):
            for target, result in sorted(results.items()):
                facts.append(
                    PrivateFact(
                        owner=seer,
                        kind="night_result",
                        key=f"inspect:{target}",
                        value=result,
                        audience=(seer,),
                        public=over,  # the end shows every role, so every result
                        aliases=(self._names[target],),
                    )
                )
        return with_implications(facts, IMPLICATIONS)

    # -- views -----------------------------------------------------------------------
    def observers(self) -> frozenset[int] | None:
        """Without ``dead_observe`` a dead seat stops observing at its death (its own actions
        and events addressed to it still reach it); once the game is over everyone observes."""
        if self.rules.dead_observe or self.phase == "end" or not self.frozen:
            return None
        return self._observing

    def state(self, seat: int | None) -> dict[str, Any]:
        observed = self.rules.dead_observe or seat is None or seat not in self.frozen
        data = self.public_state() if observed else dict(self.frozen[seat])  # type: ignore[index]
        data["stage"] = self.stage if observed else "dead"
        if self.result is not None:
            data["phase"] = "end"
            data["roles"] = {s: self.role[s] for s in range(self.n_seats)}
        if seat is None:
            data["roles"] = {s: self.role[s] for s in range(self.n_seats)}
            data["wolves"] = list(self.wolves)
            data["seer_results"] = {k: dict(v) for k, v in self.seer_results.items()}
            data["potions"] = {w: self._potions(w) for w in self.heal_left}
            return data
        data["me"] = seat
        data["role"] = self.role[seat]
        data["team"] = self.team_of(seat)
        if self.role[seat] == WOLF:
            data["wolves"] = list(self.wolves)
        if self.role[seat] == "seer":
            data["seer_results"] = dict(self.seer_results.get(seat, {}))
        if self.role[seat] == "witch":
            data["potions"] = self._potions(seat)
        if self.role[seat] in ("doctor", "guard"):
            data["last_protected"] = self.last_protect.get(seat)
        return data

    def _potions(self, w: int) -> dict[str, bool]:
        return {"heal": self.heal_left.get(w, False), "poison": self.poison_left.get(w, False)}

    def briefing(self, seat: int) -> str:
        """Who the seat is and the rules; it depends on nothing that changes in a game."""
        found = self._briefings.get(seat)
        if found is None:
            found = self._briefings[seat] = self._briefing(seat)
        return found

    def _briefing(self, seat: int) -> str:
        r = self.rules
        role = self.role[seat]
        lines = [
            f"You are {self._names[seat]} (seat {seat}) in a game of Werewolf with "
            f"{self.n_seats} players.",
            "Players: " + ", ".join(f"{i}={nm}" for i, nm in enumerate(self._names)) + ".",
            f"Your role: {role} (team {self.team_of(seat)}). {ROLE_HELP[role]}",
        ]
        if role == WOLF:
            partners = [w for w in self.wolves if w != seat]
            lines.append(
                "Your fellow wolves: "
                + (", ".join(f"{self.n(w)} (seat {w})" for w in partners) or "none")
                + "."
            )
        lines.append(
            "Roles in play: "
            + ", ".join(f"{c} {name}" for name, c in r.composition().items())
            + "."
        )
        win = wolf_win(r)
        lines.append(f"The village wins when no wolf is alive; {win}.")
        lines.append(f"Rules: {r.summary()}.")
        return "\n".join(lines)


_E = WerewolfEngine
# The dispatch tables of the state machine (see games.werewolf.base): every stage a seat can
# owe a decision in, and every continuation tag a sub-flow hands on to.
WerewolfEngine.STAGES = {
    "wolf_discuss": Stage(_E._d_wolf_discuss, on=_E._on_wolf_discuss),
    "night": Stage(_E._d_night, resolve=_E._resolve_night),
    "witch_heal": Stage(_E._d_witch_heal, on=_E._on_witch_heal),
    "witch_poison": Stage(_E._d_witch_poison, on=_E._on_witch_poison),
    "last_words": Stage(_E._d_last_words, on=_E._on_last_words),
    "speak": Stage(_E._d_speak, on=_E._on_speak),
    "bid": Stage(_E._d_bid, resolve=_E._resolve_bid),
    "async_tick": Stage(_E._d_async_tick, resolve=_E._resolve_async_tick),
    "poll": Stage(_E._d_poll, resolve=_E._resolve_poll),
    "vote": Stage(_E._d_vote, on=_E._on_vote, resolve=_E._resolve_vote),
    "hunter_shot": Stage(_E._d_hunter_shot, on=_E._on_hunter_shot),
    "belief": Stage(_E._d_belief, resolve=_E._resolve_belief),
}
WerewolfEngine.NEXT = {
    "night": _E._next_night,
    "after_dawn": _E._next_after_dawn,
    "witch": _E._next_witch,
    "day": _E._next_day,
    "last_words": _E._next_last_words,
    "discussion": _E._next_discussion,
    "turn": _E._next_turn,
    "after_turn": _E._next_after_turn,
    "bid_round": _E._next_bid_round,
    "async_tick": _E._next_async_tick,
    "after_tick": _E._next_after_tick,
    "vote": _E._next_vote,
    "exile_hunter": _E._next_exile_hunter,
    "hunter": _E._next_hunter,
    "day_end": _E._next_day_end,
    "cap_check": _E._next_cap_check,
    "finish": _E._next_finish,
}
