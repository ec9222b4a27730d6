"""``arena selfplay``: optimise an LLM agent's context (system-prompt variant + memory-bank
version) by self-play against an opponent panel, with honest selection and a held-out gate.

One repeat (master seed) runs G generations. Generation g:

1. **play** — every candidate plays fresh *train* and *select* units (common random numbers:
   the same deals, seats and opponents for every candidate of the generation);
2. **rate** — the candidates' paired score means by the run's ``metric`` over every select
   unit so far (ids persist, so σ persists; :mod:`tournaments.selfplay.select`);
3. **gate** — the best candidate by μ − kσ other than the incumbent, if it rates above it,
   plays the frozen *gate* units; it replaces the incumbent only if the one-sided lower bound
   of its paired improvement is > 0 (:mod:`tournaments.selfplay.gate`);
4. **reproduce** — the incumbent and the top elites survive, operators fill the population
   (parents by μ + cσ); rejected contexts go to the tabu log.

Everything is a pure function of the config, the master seed and the games on disk, and every
phase is an ordinary resumable run directory: rerunning the same directory (``--resume``)
skips finished games and folded reflections and reaches the same champion, banks and ratings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena import registry
from arena.memory.bank import open_bank
from arena.results import MatchResult, MatchSpec
from tournaments.executor import SinkFactory
from tournaments.selfplay import candidate as cand
from tournaments.selfplay.budget import Ledger
from tournaments.selfplay.candidate import EXPLORING, Candidate, exploring
from tournaments.selfplay.config import SelfPlayConfig
from tournaments.selfplay.extra_games import (
    feed_buffer,
    replay_states,
    replay_summary,
    replicate_flipped,
)
from tournaments.selfplay.gate import GateDecision, decide
from tournaments.selfplay.phase import Episode, Job, play_phase, run_config, write_json, write_text
from tournaments.selfplay.reproduce import reproduce, tabu_entry
from tournaments.selfplay.select import UnitGame, rank, ratings, unit_games, unit_means
from tournaments.selfplay.state import Context, Played, RepeatState, record_bank_head, score
from tournaments.selfplay.summary import generation_summary, improvement
from tournaments.selfplay.units import Split, Unit, episode_id, make_units

OnGeneration = Callable[[dict[str, Any]], None]


class SelfPlay:
    def __init__(
        self,
        config: SelfPlayConfig,
        root: Path,
        extra_sinks: SinkFactory | None = None,
        on_generation: OnGeneration | None = None,
    ) -> None:
        self.config = config
        self.root = root
        self.extra_sinks = extra_sinks
        self.on_generation = on_generation
        self.ledger = Ledger(config.budget, stop_file=root / "STOP")
        self.ctx = Context(config, self.ledger, root)
        engine_cls = registry.engine_class(config.game)
        self.n_seats = engine_cls(config.rules, seed=0).n_seats
        seats = config.units.seats
        self.seats = None if seats == "all" else list(seats)

    # -- the run ---------------------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        from tournaments.selfplay.report import summarise

        self.root.mkdir(parents=True, exist_ok=True)
        if not (self.root / "config.yaml").exists():  # what --resume and export read
            import yaml

            data = self.config.model_dump(mode="json")
            write_text(self.root / "config.yaml", yaml.safe_dump(data, sort_keys=False))
        budget_path = self.root / "budget.json"
        if budget_path.exists():
            self.ledger.resume_from(json.loads(budget_path.read_text()))
        if self.config.base.kind == "llm":
            from arena.llm.preflight import preflight_entries
            from tournaments.config import AgentEntry

            await preflight_entries([AgentEntry.model_validate(self.config.base.model_dump())])
        repeats = []
        for r in range(self.config.repeats):
            repeats.append(await self.run_repeat(r))
            if self.ledger.stopped:
                break
        self.ledger.finish()
        report = summarise(self.config, repeats, self.ledger.as_dict())
        write_json(self.root / "report.json", report)
        write_json(budget_path, self.ledger.as_dict())
        return report

    async def run_repeat(self, r: int) -> dict[str, Any]:
        rdir = self.root / f"r{r}"
        state = self._start(r, rdir)
        for g in range(self.config.generations):
            await self._generation(state, g, rdir)
            write_json(self.root / "budget.json", self.ledger.as_dict())
            if self.ledger.stopped:
                break
        out = {
            "repeat": r,
            "seed_candidate": state.seed.id,
            "champion": state.incumbent.model_dump(mode="json"),
            "decisions": state.decisions,
            "generations": state.generations,
            "tabu": state.tabu,
            "stopped": self.ledger.stopped,
        }
        out["improvement"] = improvement(state)
        write_json(rdir / "result.json", out)
        return out

    def _start(self, r: int, rdir: Path) -> RepeatState:
        seedc = self.config.seed_context
        bank = open_bank(rdir / "bank.sqlite")
        seed_file = rdir / "seed.json"
        if seed_file.exists():  # a resumed run: the bank has grown since the seed was made
            seed = Candidate.model_validate_json(seed_file.read_text(encoding="utf-8"))
            return RepeatState(r, self.run_id(r), bank, seed, seed, [seed], known={seed.id: seed})
        if bank.head()[0] == 0 and seedc.bank:
            import io

            buf = io.StringIO()
            open_bank(Path(seedc.bank).expanduser()).export(buf)
            bank.import_log(buf.getvalue().split("\n"))  # not splitlines: U+2028 is text
        version = bank.head()[0]
        active = [i.id for i in bank.at(version).insights()]
        seed = cand.make(
            style=seedc.style,
            extra_instructions=seedc.extra_instructions,
            bank=str((rdir / "bank.sqlite").resolve()),
            namespace=seedc.namespace,
            version=version,
            insights=tuple(active) if seedc.insights == "all" else (),
            active=active,
        )
        write_text(seed_file, seed.model_dump_json())
        state = RepeatState(r, self.run_id(r), bank, seed, seed, [seed], known={seed.id: seed})
        record_bank_head(self.ctx, state, "the seed bank's copy")
        return state

    # -- one generation --------------------------------------------------------------------
    def _units(self, r: int, split: Split, g: int, panel: list[str]) -> list[Unit]:
        n = getattr(self.config.units, split)
        start = 0 if split == "gate" else g * n
        units = make_units(
            self.config.game,
            self.config.rules,
            panel,
            self.config.master_seed,
            r,
            split,
            n + start,
            self.seats,
        )
        return [u for u in units if u.index >= start]

    def _panel_entries(self, state: RepeatState) -> list[dict[str, Any]]:
        out = [p.model_dump() for p in self.config.panel]
        if self.config.champions:
            for n, c in enumerate(state.champions):
                out.append(c.agent_entry(self.config.base, name=f"champion-{n}"))
        return out

    def _spec(self, state: RepeatState, eid: str, candidate: str, unit: Unit, index: int) -> Any:
        seats = [unit.panel] * self.n_seats
        seats[unit.seat] = candidate
        return MatchSpec(
            match_id=eid,
            run_id=self.run_id(state.repeat),
            game=self.config.game,
            rules=self.config.rules,
            seed=unit.seed,
            seats=seats,
            index=index,
            repeat=state.repeat,
        )

    def run_id(self, r: int) -> str:
        return f"{self.config.name}-r{r}"

    async def _play(
        self,
        state: RepeatState,
        phase: str,
        g: int,
        jobs: Sequence[tuple[Candidate, Unit] | Job],
        where: Path,
        offset: int = 0,
    ) -> list[tuple[Episode, MatchResult | None]]:
        # the plan index orders a phase's records: generation, then phase, then job
        base = g * 10_000_000 + offset + {"play": 0, "gate": 5_000_000, "replay": 8_000_000}[phase]
        episodes = []
        candidates: dict[str, Candidate] = {}
        explore = self.config.units.train_temperature if phase == "play" else None
        entries: dict[str, dict[str, Any]] = {}
        for i, job in enumerate(jobs):
            j = job if isinstance(job, Job) else Job(*job)
            eid = episode_id(phase, g, j.candidate.id, j.unit, j.replicate)
            name = j.candidate.id
            if explore is not None and j.unit.split == "train":
                name = f"{name}{EXPLORING}"  # the same context, sampling its moves
                entries[name] = exploring(j.candidate.agent_entry(self.config.base, name), explore)
            spec = self._spec(state, eid, name, j.unit, base + i)
            if j.replicate and j.start is None:  # the same deal, fresh agent seeds
                spec = spec.model_copy(update={"replicate": j.replicate})
            episodes.append(
                Episode(spec, j.candidate.id, j.unit, j.replicate, start=j.start, note=j.note)
            )
            candidates[j.candidate.id] = j.candidate
        entries |= {cid: c.agent_entry(self.config.base) for cid, c in candidates.items()}
        panel = self._panel_entries(state)
        config = run_config(
            self.run_id(state.repeat),
            self.config.game,
            self.config.rules,
            [*entries.values(), *panel],
            self.config.concurrency,
            self.config.policy,
        )
        with self.ledger.timed(phase):
            results = await play_phase(
                config,
                where,
                self.run_id(state.repeat),
                episodes,
                self.ledger,
                phase,
                self.extra_sinks,
            )
        out = [(e, results.get(e.spec.match_id)) for e in episodes]
        self._write_units(where, phase, g, out)
        return out

    def _write_units(self, where: Path, phase: str, g: int, played: Played) -> None:
        """``where/units.jsonl``: one row per episode of the phase (what was played, how)."""
        rows = [
            {
                "episode": e.spec.match_id,
                "phase": phase,
                "generation": g,
                "candidate": e.candidate,
                **e.unit.as_dict(),
                "replicate": e.replicate,
                "status": res.status if res else "not played",
                "score": score(self.config.metric, res, e.unit) if res else None,
                **(e.note or {}),
            }
            for e, res in played
        ]
        (where / "units.jsonl").write_text(
            "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows), encoding="utf-8"
        )

    async def _generation(self, state: RepeatState, g: int, rdir: Path) -> None:
        gdir = rdir / f"g{g:03d}"
        if g == 0 and len(state.population) < self.config.population:
            state.population = await reproduce(self.ctx, state, -1, [state.seed.id], {}, gdir)
        panel_names = [p["name"] for p in self._panel_entries(state)]
        train = self._units(state.repeat, "train", g, panel_names)
        select = self._units(state.repeat, "select", g, panel_names)
        jobs = [(c, u) for c in state.population for u in (*train, *select)]
        played = await self._play(state, "play", g, jobs, gdir / "play")
        if self.ledger.stopped:
            return
        replicated = await replicate_flipped(
            self.config, self._play, state, g, select, played, gdir
        )
        if self.ledger.stopped:
            return
        feed_buffer(
            self.config, state, [(played, gdir / "play"), (replicated, gdir / "replicates")]
        )
        played = [*played, *replicated]
        state.train_results = {}  # reflection reads this generation's train games
        for e, res in played:
            if res is not None and e.unit.split != "select":
                state.train_results.setdefault(e.candidate, []).append((e.unit, res, gdir / "play"))
        scored = [
            (e.unit, e.replicate, e.candidate, score(self.config.metric, res, e.unit))
            for e, res in played
            if res is not None and e.unit.split == "select"
        ]
        contests = unit_games(g, scored)
        state.select_units += contests
        table = ratings(state.select_units)
        k = self.config.selection.k
        order = rank([c.id for c in state.population], table, k)
        decision = await self._gate(state, g, order, gdir, contests)
        if self.ledger.stopped:
            return
        replayed: list[tuple[Episode, MatchResult | None]] = []
        if g + 1 < self.config.generations:  # replays feed the next generation's reflection
            replayed = await replay_states(self.config, self._play, state, g, len(jobs), gdir)
            if self.ledger.stopped:
                return
        summary = generation_summary(self.ctx, state, g, table, played, decision, contests)
        summary["replay"] = replay_summary(state, replayed)
        state.generations.append(summary)
        write_json(gdir / "generation.json", summary)
        if self.on_generation is not None:
            self.on_generation(summary)
        if g + 1 < self.config.generations:
            state.population = await reproduce(self.ctx, state, g, order, table, gdir)

    async def _gate(
        self,
        state: RepeatState,
        g: int,
        order: list[str],
        gdir: Path,
        contests: list[UnitGame],
    ) -> GateDecision | None:
        inc = state.incumbent
        # The screen: the first candidate by mu - k*sigma whose paired mean over this
        # generation's select units beats the incumbent's (common random numbers make that a
        # fair comparison; the rating alone lags behind an incumbent's early luck). The gate
        # itself is the statistical test.
        select = unit_means(contests)  # a unit's score: the mean over its replicates
        mine = select.get(inc.id, {})

        def beats(cid: str) -> bool:
            theirs = select.get(cid, {})
            d = [theirs[u] - mine[u] for u in theirs if u in mine]
            d = [x for x in d if math.isfinite(x)]
            return bool(d) and float(np.mean(d)) > 0

        best = next((c for c in order if c != inc.id and c not in state.gated and beats(c)), None)
        if best is None:
            return None
        state.gated.add(best)
        challenger = state.known[best]
        gate_units = self._units(state.repeat, "gate", 0, [p.name for p in self.config.panel])
        jobs = [
            (c, u)
            for c in (challenger, inc)
            for u in gate_units
            if u.key not in state.gate_scores.get(c.id, {})
        ]
        played = await self._play(state, "gate", g, jobs, gdir / "gate")
        for e, res in played:
            if res is not None:
                state.gate_scores.setdefault(e.candidate, {})[e.unit.key] = score(
                    self.config.metric, res, e.unit
                )
        if self.ledger.stopped:
            return None
        return self._decide(state, g, challenger, [u.key for u in gate_units])

    def _decide(
        self, state: RepeatState, g: int, challenger: Candidate, keys: list[str]
    ) -> GateDecision:
        """The gate's test of ``challenger`` against the incumbent on the gate units ``keys``:
        promoted, or into the tabu log."""
        inc = state.incumbent
        a = [state.gate_scores[challenger.id].get(u, math.nan) for u in keys]
        b = [state.gate_scores[inc.id].get(u, math.nan) for u in keys]
        gate = self.config.gate
        alpha = (
            gate.alpha / self.config.generations if gate.correction == "bonferroni" else gate.alpha
        )
        rng = np.random.default_rng([self.config.master_seed, state.repeat, g, 7])
        decision = decide(challenger.id, inc.id, a, b, alpha, rng, gate.resamples)
        state.decisions.append({"generation": g, **decision.as_dict()})
        if decision.promoted:
            state.champions.append(inc)
            state.incumbent = challenger
        else:
            state.tabu.append(
                tabu_entry(
                    challenger,
                    g,
                    f"failed the gate: Δ {decision.mean_delta:+.3f}, "
                    f"lower bound {decision.lower:+.3f}",
                )
            )
        return decision
