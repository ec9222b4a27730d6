"""The persona dialogue rules engine (spec persona_dialogue.md §2–§7, §10)."""

from __future__ import annotations

from typing import Any

from arena.engine import RulesEngine
from arena.events import Visibility
from arena.types import Action, Decision, InvalidAction, Option, Outcome, PrivateFact
from games.persona_dialogue import probes, scoring, truth, views
from games.persona_dialogue.actions import Effect, plan
from games.persona_dialogue.cast import Cast, build_cast, stage1_slots
from games.persona_dialogue.config import PersonaDialogueRules


class PersonaDialogueEngine(RulesEngine[PersonaDialogueRules]):
    game = "persona_dialogue"
    Rules = PersonaDialogueRules

    # -- setup ---------------------------------------------------------------------------
    def _setup(self) -> None:
        self.cast: Cast = build_cast(self.rules)
        n = len(self.cast.characters)
        self._names = self.cast.names
        self.present = [True] * n
        self.turn = 0  # turns taken (ticks in free_for_all)
        self.own_turns = [0] * n
        self.silent = 0  # consecutive silent turns (silent ticks in free_for_all)
        self.agreed: dict[str, list[int]] = {}
        self.queue: list[int] = []
        self.start = self.rng.randrange(n) if self.rules.start == "random" else 0
        self.buffer: dict[int, list[Effect]] = {}
        self.probe_queue: list[probes.PendingProbe] = []
        self.end_reason: str | None = None
        self.finished = False
        self.result: Outcome | None = None
        self.qa_index = 0  # interrogation: questions asked
        self.interrogation = self.rules.interrogation
        subject = self.cast.characters[-1].persona
        self.m = min(self.rules.interrogation_m, len(stage1_slots(subject))) if subject else 0
        # The stage stays out of event phases: the subject must not learn it is being retested.
        self.stage = "get_to_know" if self.interrogation else ""
        self.phase = "interview" if self.interrogation else "dialogue"
        c = self.cast
        self.emit(
            "scenario",
            f"Scenario: {c.title}. {c.setting.situation} ({c.setting.place}, {c.setting.time})",
            scenario=c.scenario_id,
            characters=c.names,
            turn_mode=c.turn_mode,
            max_turns=c.max_turns,
            allow_private=c.allow_private,
        )
        for ch in c.characters:
            self.emit(
                "briefing",
                actor=ch.seat,
                visibility=Visibility.private(ch.seat),
                character=ch.name,
                persona=ch.persona.model_dump(mode="json", by_alias=True) if ch.persona else None,
                goal=ch.goal.text if ch.goal else None,
                secrets=[s.model_dump(mode="json") for s in ch.secrets],
            )
        # Briefing lines are fixed at setup, so what they tell is computed once per game.
        self.told = truth.told_in_briefings(c, {s: self.briefing(s) for s in range(n)})
        truths = truth.ground_truth(c, self.told, self.rules.probe_label)
        self.emit("scenario_truth", visibility=Visibility.god(), **truths)
        if self.interrogation:
            self.emit("stage", visibility=Visibility.god(), stage="get_to_know", m=self.m,
                      q=self.rules.interrogation_q)  # fmt: skip
        for pr in c.probes:
            if "at_start" in pr.schedule:
                for s in probes.targets(pr, c.seat_of, n, set()):
                    self.probe_queue += probes.expand(pr, s, "at_start", 0)
        self.probe_queue.sort(key=lambda p: p.seat)

    # -- seats ---------------------------------------------------------------------------
    @property
    def n_seats(self) -> int:
        return len(self.cast.characters)

    def teams(self) -> dict[int, str]:
        return {c.seat: c.pid for c in self.cast.characters}

    def roles(self) -> dict[int, str]:
        return {c.seat: c.role for c in self.cast.characters}

    def max_options(self) -> int:
        return 4 + len(self.cast.propositions) + self.n_seats

    def private_facts(self) -> list[PrivateFact]:
        return truth.private_facts(self.cast, self.told)

    # -- whose turn ----------------------------------------------------------------------
    def pending(self) -> list[int]:
        if self.finished:
            return []
        if self.probe_queue:
            return [self.probe_queue[0].seat]
        if self.cast.turn_mode == "free_for_all":
            return [s for s in range(self.n_seats) if self.present[s] and s not in self.buffer]
        return [self._current()]

    def _current(self) -> int:
        while True:
            if not self.queue:
                self.queue = self._new_round()
            if self.present[self.queue[0]]:
                return self.queue[0]
            self.queue.pop(0)

    def _new_round(self) -> list[int]:
        n = self.n_seats
        if self.cast.turn_mode == "random_order":
            seats = [s for s in range(n) if self.present[s]]
            self.rng.shuffle(seats)
            return seats
        return [(self.start + i) % n for i in range(n) if self.present[(self.start + i) % n]]

    def decision(self, seat: int) -> Decision:
        if seat not in self.pending():
            raise KeyError(seat)
        limit = self.rules.max_message_chars
        if self.probe_queue:
            pr = self.probe_queue[0]
            return Decision(
                kind="probe",
                prompt=f"{self.rules.probe_label} asks you (off the record, no one else hears "
                f"this): {pr.probe.question}",
                options=[Option(id="pass", label="decline to answer")],
                free_text=True,
                silent_option="pass",
                max_chars=limit,
                meta={"probe_id": pr.probe.id, "question": pr.probe.question},
            )
        role = self.cast.characters[seat].role
        if role == "interrogator":
            return Decision(kind="ask", prompt="Ask your next question.", free_text=True,
                            max_chars=limit)  # fmt: skip
        if role == "subject":
            return Decision(
                kind="answer",
                prompt="Answer the interviewer's question.",
                options=[Option(id="pass", label="say nothing")],
                free_text=True,
                silent_option="pass",
                max_chars=limit,
            )
        opts = [Option(id="pass", label="stay silent"), Option(id="leave", label="leave")]
        opts.append(Option(id="act", label="a non-verbal action (with text)"))
        opts += [Option(id=f"agree:{p.id}", label=p.text) for p in self.cast.propositions]
        n_to = 0
        if self.cast.allow_private:
            for c in self.cast.characters:
                if c.seat != seat and self.present[c.seat]:
                    opts.append(Option(id=f"to:{c.pid}", label=f"privately to {c.name}"))
                    n_to += 1
        return Decision(
            kind="turn",
            prompt="Your turn: speak (free text), or choose an action.",
            options=opts,
            max_choices=max(1, n_to),
            free_text=True,
            silent_option="pass",
            max_chars=limit,
            simultaneous=self.cast.turn_mode == "free_for_all",
        )

    # -- applying ------------------------------------------------------------------------
    def _apply(self, seat: int, action: Action) -> None:
        if self.probe_queue:
            self._answer_probe(seat, action)
            return
        role = self.cast.characters[seat].role
        if role != "character":
            effects = self._qa_effects(seat, action)
        else:
            effects = plan(self.cast, self.present, seat, action, self.rules.max_message_chars)
        self._record_slip(seat, action)
        if self.cast.turn_mode == "free_for_all":
            self.buffer[seat] = effects
            if all(s in self.buffer for s in range(self.n_seats) if self.present[s]):
                self._resolve_tick()
            return
        self._deliver(seat, effects)
        self.queue.pop(0)
        self.turn += 1
        self._after_turn([seat], silent=all(e.kind == "pass" for e in effects))

    def _qa_effects(self, seat: int, action: Action) -> list[Effect]:
        if action.choice == "pass":
            return [Effect("pass")]
        text = (action.text or "").strip()
        if not text:
            raise InvalidAction("empty message")
        if len(text) > self.rules.max_message_chars:
            raise InvalidAction(f"message too long ({len(text)} > {self.rules.max_message_chars})")
        return [Effect("speak", text)]

    def _resolve_tick(self) -> None:
        order = sorted(self.buffer)
        self.rng.shuffle(order)
        order.sort(key=lambda s: any(e.kind == "leave" for e in self.buffer[s]))  # stable
        silent = all(e.kind == "pass" for s in order for e in self.buffer[s])
        for s in order:
            self._deliver(s, self.buffer[s])
        self.buffer = {}
        self.turn += 1
        self._after_turn(order, silent=silent)

    def _deliver(self, seat: int, effects: list[Effect]) -> None:
        me = self.names[seat]
        for e in effects:
            if e.kind == "pass":
                self.emit("pass", actor=seat, visibility=Visibility.god(), turn=self.turn)
            elif e.kind == "speak":
                self._speak(seat, e)
            elif e.kind == "act":
                rec = self._recipients(seat, ())
                self.emit_speech("act", seat, e.text, label="action", message=e.text,
                                 turn=self.turn, **rec)  # fmt: skip
            elif e.kind == "agree":
                self.agreed.setdefault(e.proposition, [])
                if seat not in self.agreed[e.proposition]:
                    self.agreed[e.proposition].append(seat)
                text = next(p.text for p in self.cast.propositions if p.id == e.proposition)
                self.emit("agree", f"[{me} agrees: {e.proposition} — {text}]", actor=seat,
                          proposition=e.proposition, proposition_text=text, turn=self.turn)  # fmt: skip
            elif e.kind == "leave":
                self.present[seat] = False
                self.emit("leave", f"[{me} leaves the conversation.]", actor=seat, turn=self.turn)

    def _recipients(self, seat: int, to: tuple[int, ...]) -> dict[str, Any]:
        seats = list(to) or [s for s in range(self.n_seats) if self.present[s] and s != seat]
        return {"recipient_seats": seats, "recipients": [self.names[s] for s in seats]}

    def _speak(self, seat: int, e: Effect) -> None:
        rec = self._recipients(seat, e.to)
        role = self.cast.characters[seat].role
        kind = {"interrogator": "question", "subject": "answer"}.get(role, "speak")
        extra: dict[str, Any] = {}
        if role == "interrogator":
            extra["qa"] = self.qa_index
        elif role == "subject":
            extra["qa"] = self.qa_index - 1
        if e.to:
            names = [self.names[s] for s in e.to]
            vis = Visibility.private(seat, *e.to)
            self.emit_speech("utterance", seat, e.text, visibility=vis, channel="private",
                             kind=kind, message=e.text, to=names, turn=self.turn, **rec,
                             **extra)  # fmt: skip
        else:
            self.emit_speech("utterance", seat, e.text, channel="public", kind=kind,
                             message=e.text, to=[], turn=self.turn, **rec, **extra)  # fmt: skip
        if role == "interrogator":
            self.emit("qa", visibility=Visibility.god(), index=self.qa_index, stage=self.stage,
                      question=e.text, retest_of=self._retest_of(self.qa_index))  # fmt: skip
            self.qa_index += 1

    def _retest_of(self, index: int) -> int | None:
        first = self.m + self.rules.interrogation_q
        return index - first if index >= first else None

    def _record_slip(self, seat: int, action: Action) -> None:
        slip = (action.meta or {}).get("slip")
        if slip:
            fields = {("slip_type" if k == "type" else str(k)): v for k, v in dict(slip).items()}
            self.emit("slip", actor=seat, visibility=Visibility.god(), character=self.names[seat],
                      turn=self.turn, own_turn=self.own_turns[seat] + 1, **fields)  # fmt: skip

    def _after_turn(self, seats: list[int], silent: bool) -> None:
        self.silent = self.silent + 1 if silent else 0
        for s in seats:
            self.own_turns[s] += 1
            for pr in self.cast.probes:
                due = "every_k_own_turns" in pr.schedule and self.own_turns[s] % pr.k == 0
                if due and s in probes.targets(pr, self.cast.seat_of, self.n_seats, set()):
                    self.probe_queue += probes.expand(pr, s, "every_k_own_turns", self.own_turns[s])
        if self.interrogation:
            self._advance_stage()
        reason = self._end_condition()
        if reason is not None:
            self._begin_end(reason)

    def _advance_stage(self) -> None:
        m, q = self.m, self.rules.interrogation_q
        answered = self.own_turns[1]
        stage = "get_to_know" if answered < m else ("main" if answered < m + q else "retest")
        if stage != self.stage and self.own_turns[0] == answered:
            self.stage = stage
            self.emit("stage", visibility=Visibility.god(), stage=stage, m=m, q=q)

    def _end_condition(self) -> str | None:
        if self.interrogation and self.own_turns[1] >= 2 * self.m + self.rules.interrogation_q:
            return "script_done"
        if self.turn >= self.cast.max_turns:
            return "max_turns"
        if sum(self.present) < 2:
            return "everyone_left"
        if not self.interrogation:
            default = 2 if self.cast.turn_mode == "free_for_all" else sum(self.present)
            if self.silent >= (self.cast.stale_limit or default):
                return "stale"
        if self.rules.goal_stop and self._goals_settled():
            return "goal_stop"
        return None

    def _goals_settled(self) -> bool:
        play = self._play()
        scored = [scoring.rule_score(play, c.seat)[0] for c in self.cast.characters]
        return any(s is not None for s in scored) and all(s in (None, 1.0) for s in scored)

    def _begin_end(self, reason: str) -> None:
        self.end_reason = reason
        for pr in self.cast.probes:
            if "at_end" in pr.schedule:
                for s in probes.targets(pr, self.cast.seat_of, self.n_seats, set()):
                    self.probe_queue += probes.expand(pr, s, "at_end", self.own_turns[s])
        self._maybe_finish()

    def _maybe_finish(self) -> None:
        if self.end_reason is None or self.probe_queue or self.finished:
            return
        self.phase = "end"
        self.emit("end", f"The conversation ends ({self.end_reason}).", reason=self.end_reason,
                  turns=self.turn)  # fmt: skip
        self.result = self._score()
        self.finished = True

    def _answer_probe(self, seat: int, action: Action) -> None:
        pr = self.probe_queue.pop(0)
        answer = None if action.choice == "pass" else (action.text or "").strip()
        value, status = probes.score(pr.probe, answer, self.cast.characters[seat].persona)
        self.emit("probe", actor=seat, visibility=Visibility.god(), channel="side",
                  character=self.names[seat], probe_id=pr.probe.id, point=pr.point,
                  own_turn=pr.own_turn, sample=pr.sample, question=pr.probe.question,
                  label=self.rules.probe_label, answer=answer, score=value, judge_status=status,
                  fallback=action.fallback)  # fmt: skip
        self._maybe_finish()

    # -- ending --------------------------------------------------------------------------
    def _score(self) -> Outcome:
        mode = self.rules.goal_scoring
        rewards, details = scoring.goal_scores(self._play(), mode, self.rules.judge)
        self.emit("goal_result", visibility=Visibility.god(), scoring=mode, goals=details)
        return Outcome(label=self.end_reason or "finished", rewards=rewards, reason=self.end_reason)

    def _play(self) -> scoring.Play:
        return scoring.Play(cast=self.cast, log=self.log, agreed=self.agreed)

    def _is_over(self) -> bool:
        return self.finished

    def _outcome(self) -> Outcome | None:
        return self.result

    # -- views ---------------------------------------------------------------------------
    def state(self, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "phase": self.phase,
            "turn": self.turn,
            "max_turns": self.cast.max_turns,
            "present": [n for i, n in enumerate(self.names) if self.present[i]],
            "turn_mode": self.cast.turn_mode,
            "allow_private": self.cast.allow_private,
        }
        if seat is not None:
            out["you"] = self.names[seat]
            out["own_turns"] = self.own_turns[seat]
            out["character"] = self.cast.characters[seat].pid
        if self.interrogation and seat in (0, None):
            subject = self.cast.characters[1].persona
            out["stage"] = self.stage
            out["question_index"] = self.qa_index
            out["m"] = self.m
            out["q"] = self.rules.interrogation_q
            out["stage1_slots"] = stage1_slots(subject)[: self.m] if subject else []
            out["subject"] = self.names[1]
        if seat is None:
            out["end_reason"] = self.end_reason
            out["agreed"] = self.agreed
        return out

    def observers(self) -> frozenset[int] | None:
        """A character who left stops observing; public lines reach the characters present."""
        if all(self.present):
            return None
        return frozenset(s for s in range(self.n_seats) if self.present[s])

    def briefing(self, seat: int) -> str:
        return views.briefing(self.cast, seat, self.turn)
