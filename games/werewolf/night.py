"""The night (spec §5): wolf discussion and decision, protectors, Witch, Seer, dawn."""

from __future__ import annotations

from collections import Counter

from arena.events import Visibility
from arena.types import Action, Decision, Option
from games.werewolf.base import WerewolfBase
from games.werewolf.config import WOLF


class NightMixin(WerewolfBase):
    # -- N1: wolf discussion ---------------------------------------------------------
    def _next_night(self) -> None:
        self.night += 1
        self.phase = f"night_{self.night}"
        self.ev("phase", f"Night {self.night} falls.", {"phase": "night", "number": self.night})
        self.wolf_target: int | None = None
        self.protected: dict[int, int] = {}
        self.inspections: dict[int, int] = {}
        self.healed = False
        self.poisoned: list[int] = []
        self.night_victims: list[int] = []
        wolves = self.alive_wolves()
        rounds = self.rules.wolf_discussion_rounds
        if rounds > 0 and len(wolves) >= 2:
            self.discuss_order = wolves * rounds
            self.discuss_idx = 0
            self.seq("wolf_discuss", self.discuss_order[0])
        else:
            self._begin_night_actions()

    def _d_wolf_discuss(self, seat: int) -> Decision:
        partners = ", ".join(self.n(w) for w in self.alive_wolves() if w != seat)
        return Decision.trusted(
            kind="wolf_discuss",
            prompt=f"Night {self.night}: talk privately with your fellow wolves ({partners}) "
            "about whom to attack, or pass.",
            options=[Option.of("pass")],
            free_text=True,
            max_chars=self.rules.max_message_chars,
            silent_option="pass",
            menu=self.wolf_talk_menu(seat),
            meta=self.meta(round=self.discuss_idx // max(1, len(self.alive_wolves())) + 1),
        )

    def _on_wolf_discuss(self, seat: int, action: Action) -> None:
        if action.text:
            self.emit_speech(
                "wolf_message",
                seat,
                action.text,
                visibility=self.wolf_channel(),
                payload={"seat": seat, "text": action.text},
            )
        self.discuss_idx += 1
        if self.discuss_idx < len(self.discuss_order):
            self.seq("wolf_discuss", self.discuss_order[self.discuss_idx])
        else:
            self._begin_night_actions()

    # -- N1/N2/N4: simultaneous night choices ------------------------------------------
    def _begin_night_actions(self) -> None:
        kinds: dict[int, str] = {}
        wolves = self.alive_wolves()
        if self.rules.wolf_decision == "single_random":
            kinds[self.rng.choice(wolves)] = "wolf_target"
        else:
            kinds.update({w: "wolf_target" for w in wolves})
        for role, kind in (("doctor", "protect"), ("guard", "guard"), ("seer", "inspect")):
            for s in self.alive_with_role(role):
                if self._night_targets(s, kind):
                    kinds[s] = kind
        self.night_kinds = kinds
        self.consensus_left = self.rules.consensus_retries
        self.sim("night", list(kinds))

    def _night_targets(self, seat: int, kind: str) -> list[int]:
        r = self.rules
        alive = self.alive_seats()
        if kind == "wolf_target":
            if r.wolf_targets == "non_wolves":
                return [s for s in alive if self.role[s] != WOLF]
            return [s for s in alive if s != seat]
        if kind in ("protect", "guard"):
            self_ok = r.doctor_self_protect if kind == "protect" else r.guard_self_protect
            repeat_ok = r.doctor_repeat_target if kind == "protect" else r.guard_repeat_target
            last = self.last_protect.get(seat)
            return [
                s
                for s in alive
                if (self_ok or s != seat) and (repeat_ok or last is None or s != last)
            ]
        if kind == "inspect":
            done = self.inspected.get(seat, set())
            return [
                s for s in alive if s != seat and (self.rules.seer_repeat_target or s not in done)
            ]
        raise ValueError(kind)

    def _d_night(self, seat: int) -> Decision:
        kind = self.night_kinds[seat]
        opts = self.seat_options(self._night_targets(seat, kind))
        prompts = {
            "wolf_target": "Choose the player the wolves should attack tonight.",
            "protect": "Choose one player to protect from the wolves tonight.",
            "guard": "Choose one player to guard tonight.",
            "inspect": "Choose one player to inspect tonight.",
        }
        if kind == "wolf_target" and self.rules.wolf_may_skip:
            opts.append(Option.of("no_kill", "no kill"))
        simultaneous = kind != "wolf_target" or self.rules.wolf_decision != "single_random"
        return Decision.trusted(
            kind=kind,
            prompt=f"Night {self.night}: {prompts[kind]}",
            options=opts,
            simultaneous=simultaneous,
            meta=self.meta(),
        )

    def _resolve_night(self, answers: dict[int, Action]) -> None:
        wolf_votes = {
            s: (None if a.choice == "no_kill" else int(a.choice or 0))
            for s, a in answers.items()
            if self.night_kinds[s] == "wolf_target"
        }
        if not self._decide_wolf_target(wolf_votes):
            return  # consensus re-vote: the wolves are pending again
        self.last_protect = {}
        for s, a in answers.items():
            kind = self.night_kinds[s]
            if kind in ("protect", "guard"):
                target = int(a.choice or 0)
                self.protected[s] = target
                self.last_protect[s] = target
                self.ev(
                    "protect",
                    f"You ({self.n(s)}) protect {self.n(target)} tonight.",
                    {"seat": s, "role": self.role[s], "target": target},
                    Visibility.private(s),
                    actor=s,
                )
            elif kind == "inspect":
                target = int(a.choice or 0)
                self.inspections[s] = target
                self.inspected.setdefault(s, set()).add(target)
        self.witch_queue = [w for w in self.alive_with_role("witch") if self._witch_has_potion(w)]
        self._next_witch()

    def _decide_wolf_target(self, votes: dict[int, int | None]) -> bool:
        """Set ``wolf_target`` from the wolves' choices; False when a consensus re-vote starts."""
        r = self.rules
        vis = self.wolf_channel()
        for s, t in votes.items():
            self.ev(
                "wolf_vote",
                f"[wolves] {self.n(s)} votes to attack {self.n(t)}.",
                {"seat": s, "target": t},
                vis,
                actor=s,
            )
        target: int | None
        if r.wolf_decision == "single_random":
            target = next(iter(votes.values()))
        elif r.wolf_decision == "consensus":
            if len(set(votes.values())) == 1:
                target = next(iter(votes.values()))
            elif self.consensus_left > 0:
                self.consensus_left -= 1
                tally = Counter(votes.values())
                self.ev(
                    "wolf_retry",
                    "[wolves] No consensus; vote again ("
                    + ", ".join(f"{self.n(t)}: {c}" for t, c in tally.items())
                    + ").",
                    {"tally": {str(t): c for t, c in tally.items()}, "left": self.consensus_left},
                    vis,
                )
                for s in votes:
                    self.answers.pop(s, None)
                return False
            else:
                target = None
        else:
            tally = Counter(votes.values())
            top = max(tally.values())
            tied = [t for t, c in tally.items() if c == top]
            if len(tied) == 1:
                target = tied[0]
            elif r.wolf_tie == "no_kill":
                target = None
            elif r.wolf_tie == "lowest_seat":
                target = votes[min(votes)]
            else:
                order = sorted(tied, key=lambda t: -1 if t is None else t)
                target = self.rng.choice(order)
        self.wolf_target = target
        self.ev(
            "wolf_target",
            f"[wolves] The wolves will attack {self.n(target)}.",
            {"target": target},
            vis,
        )
        return True

    # -- N3: the Witch ---------------------------------------------------------------
    def _witch_has_potion(self, w: int) -> bool:
        return self.heal_left.get(w, False) or self.poison_left.get(w, False)

    def _heal_offered(self, w: int) -> bool:
        if not self.heal_left.get(w, False):
            return False
        if not self.rules.witch_sees_victim:
            return True
        v = self.wolf_target
        return v is not None and (v != w or self.rules.witch_self_heal)

    def _poison_offered(self, w: int) -> bool:
        if not self.poison_left.get(w, False):
            return False
        return not (self.witch_heal_now and not self.rules.witch_both_same_night)

    def _next_witch(self) -> None:
        while self.witch_queue:
            w = self.witch_queue.pop(0)
            self.witch = w
            self.witch_heal_now = False
            self.witch_poison_now: int | None = None
            if self.rules.witch_sees_victim:
                v = self.wolf_target
                self.ev(
                    "witch_info",
                    f"Tonight the wolves attack {self.n(v)}."
                    if v is not None
                    else "Tonight the wolves attack nobody.",
                    {"victim": v},
                    Visibility.private(w),
                )
            if self._heal_offered(w):
                self.seq("witch_heal", w)
                return
            if self._poison_offered(w):
                self.seq("witch_poison", w)
                return
        self._dawn()

    def _d_witch_heal(self, seat: int) -> Decision:
        return Decision.trusted(
            kind="witch_heal",
            prompt="Use your healing potion on tonight's victim? (one use per game)",
            options=[Option.of("heal"), Option.of("skip")],
            meta=self.meta(victim=self.wolf_target if self.rules.witch_sees_victim else None),
        )

    def _on_witch_heal(self, seat: int, action: Action) -> None:
        if action.choice == "heal":
            self.heal_left[seat] = False
            self.witch_heal_now = True
            v = self.wolf_target
            if v is not None and (v != seat or self.rules.witch_self_heal):
                self.healed = True
        if self._poison_offered(seat):
            self.seq("witch_poison", seat)
        else:
            self._witch_done(seat)

    def _d_witch_poison(self, seat: int) -> Decision:
        opts = self.seat_options(self.alive_others(seat))
        return Decision.trusted(
            kind="witch_poison",
            prompt="Poison a player tonight? (one use per game) Choose a player or none.",
            options=[*opts, Option.of("none")],
            meta=self.meta(),
        )

    def _on_witch_poison(self, seat: int, action: Action) -> None:
        if action.choice != "none":
            target = int(action.choice or 0)
            self.poison_left[seat] = False
            self.witch_poison_now = target
            self.poisoned.append(target)
        self._witch_done(seat)

    def _witch_done(self, seat: int) -> None:
        heal, poison = self.witch_heal_now, self.witch_poison_now
        self.ev(
            "witch_action",
            f"You used: heal={'yes' if heal else 'no'}, poison={self.n(poison)}.",
            {"heal": heal, "poison": poison},
            Visibility.private(seat),
            actor=seat,
        )
        self._next_witch()

    # -- dawn (§5.3) -----------------------------------------------------------------
    def _dawn(self) -> None:
        r = self.rules
        shield = set(self.protected.values())
        dead: dict[int, str] = {}
        w = self.wolf_target
        if w is not None and w not in shield and not self.healed:
            dead[w] = "wolves"
        for z in self.poisoned:
            if z in dead or (r.protect_blocks_poison and z in shield):
                continue
            dead[z] = "poison"
        victims = sorted(dead)
        for s in victims:
            self.kill(s, dead[s])
        for seer, target in sorted(self.inspections.items()):
            if self.alive[seer] or r.seer_result_if_killed:
                self._seer_result(seer, target)
        reveals = self.announce_deaths(victims, r.night_death_reveal)
        names = ", ".join(self.n(s) for s in victims)
        line = (
            f"Dawn: {names} {'was' if len(victims) == 1 else 'were'} found dead."
            if victims
            else ("Dawn: nobody died tonight.")
        )
        self.ev(
            "dawn",
            line + self.reveal_text(reveals),
            {"dead": victims, "reveals": reveals},
        )
        self.mark_observed_until_now(victims)
        self.night_victims = victims
        hunters = [
            s
            for s in victims
            if self.role[s] == "hunter" and (dead[s] == "wolves" or r.hunter_shoots_if_poisoned)
        ]
        self.run_hunters(hunters, "after_dawn", r.night_death_reveal)

    def _seer_result(self, seer: int, target: int) -> None:
        if self.rules.seer_result == "role":
            result = self.role[target]
            said = f"a {result}"
        else:
            result = "wolf" if self.role[target] == WOLF else "not_wolf"
            said = "a wolf" if result == "wolf" else "not a wolf"
        self.seer_results.setdefault(seer, {})[target] = result
        self.ev(
            "seer_result",
            f"Your inspection: {self.n(target)} is {said}.",
            {"target": target, "result": result},
            Visibility.private(seer),
        )

    def _next_after_dawn(self) -> None:
        if not self.check_win():
            self._continue("day")
