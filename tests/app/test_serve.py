"""`arena serve` as a real subprocess (stops by itself) and `arena agents test` against it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from arena.llm.server import free_port


def start_server(*extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            "serve",
            "--port",
            str(port),
            "--max-seconds",  # a safety net against a leaked server; the test terminates it
            "600",
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            httpx.get(url + "/models", timeout=5)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("arena serve did not come up")


def write_config(tmp_path: Path, url: str, model: str = "scripted") -> Path:
    cfg = {
        "game": "werewolf",
        "agents": [
            {
                "name": "probe",
                "kind": "llm",
                "params": {"backend": {"base_url": url, "model": model}},
            },
            {"name": "rnd", "kind": "random"},
        ],
    }
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_agents_test_reports_a_valid_answer_with_latency(tmp_path: Path) -> None:
    proc, url = start_server("--latency", "const:0.05")
    try:
        models = httpx.get(url + "/models", timeout=30).json()
        assert models["data"][0]["id"] == "scripted"
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "app.cli",
                "agents",
                "test",
                str(write_config(tmp_path, url)),
                "probe",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
        report = json.loads(out.stdout)
        assert out.returncode == 0 and report["valid"] is True
        assert report["answer"]["choices"][0] in ("red", "blue", "green")
        assert report["latency_s"] >= 0.05 and report["calls"][0]["tokens_in"] > 0
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_agents_test_fails_clearly_on_a_wrong_model(tmp_path: Path) -> None:
    proc, url = start_server()
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "app.cli",
                "agents",
                "test",
                str(write_config(tmp_path, url, model="nope")),
                "probe",
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert out.returncode == 1
        assert "INVALID" in out.stdout and "not served here" in out.stdout
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_serve_stops_by_itself_after_max_seconds() -> None:
    port = free_port()
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--max-seconds", "1"],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0


def choices(url: str, style: str, n: int = 16) -> list[str]:
    """The served choice between low and high for ``n`` different decisions under ``style``."""
    schema = {
        "type": "object",
        "properties": {"choice": {"enum": ["low", "high"]}},
        "required": ["choice"],
    }
    out = []
    for i in range(n):
        body = {
            "model": "scripted",
            "messages": [
                {"role": "system", "content": f"You play a toy game.\nStyle: {style}"},
                {"role": "user", "content": f"Decision {i}: low or high?"},
            ],
            "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
        }
        reply = httpx.post(url + "/chat/completions", json=body, timeout=30).json()
        out.append(json.loads(reply["choices"][0]["message"]["content"])["choice"])
    return out


def test_serve_context_follows_the_style_line_and_context_null_ignores_it() -> None:
    proc, url = start_server("--engine", "context", "--seed", "1")
    try:
        assert choices(url, "Prefer high.") == ["high"] * 16
        assert choices(url, "Avoid high.") == ["low"] * 16
        neutral = choices(url, "Be polite.")
        assert set(neutral) == {"low", "high"}  # no directive: the seeded hash picks
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    proc, url = start_server("--engine", "context-null", "--seed", "1")
    try:
        preferred = choices(url, "Prefer high.")
        assert set(preferred) == {"low", "high"}  # the directive changes nothing expected
        assert preferred == choices(url, "Prefer high.")  # deterministic
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def serve_help() -> str:
    out = subprocess.run([sys.executable, "-m", "app.cli", "serve", "--help"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "COLUMNS": "2000"})  # fmt: skip
    assert out.returncode == 0, out.stderr
    return " ".join(out.stdout.split())


def test_serve_help_states_the_model_each_engine_serves_and_loads() -> None:
    """What ``--help`` says is served (and loaded) without ``--model``/``--model-path`` is
    what a real server lists in ``/v1/models`` and what the transformers engine loads."""
    from arena.llm.config import bundled
    from arena.llm.local_model import bundled_gguf
    from arena.llm.server import TransformersEngine

    text = serve_help()
    said = re.search(r"default: '([^']+)' with --engine transformers, '([^']+)' with the others",
                     text)  # fmt: skip
    assert said is not None, "the help states the default model name per engine"
    local, scripted = said.groups()
    for engine in ("directives",):  # the help once said "the engine's name": it is not
        proc, url = start_server("--engine", engine)
        try:
            listed = httpx.get(url + "/models", timeout=30).json()["data"]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        assert [m["id"] for m in listed] == [scripted]
    from app.commands.serve import served_name

    assert served_name("transformers", None) == local
    loads = TransformersEngine().config  # what the engine loads at start, not loaded here
    assert bundled(loads)
    try:
        path = bundled_gguf()
    except Exception:  # pragma: no cover - depends on the install
        return
    assert path.name in text and "SmolLM2-135M-Instruct" in text
