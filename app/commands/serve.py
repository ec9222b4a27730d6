"""CLI commands: ``arena serve`` (OpenAI-compatible server) and ``arena agents test``."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
import time
from typing import Any

from arena.untrusted import printable

# --engine names of the scripted family (deterministic, seeded, with latency and faults):
# module, class, and the settings that make the engine what its name says
SCRIPTED_ENGINES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "scripted": ("arena.llm.fakes.scripted", "ScriptedEngine", {}),
    "directives": ("arena.llm.fakes.directives", "DirectiveEngine", {}),
    "context": ("arena.llm.fakes.context", "ContextEngine", {}),
    "context-null": ("arena.llm.fakes.context", "ContextEngine", {"null": True}),
}


#: The model name served when ``--model`` is not given, per engine: what ``/v1/models`` lists
#: and what a client's ``backend.model`` must say.
SERVED_NAMES: dict[str, str] = {**{name: "scripted" for name in SCRIPTED_ENGINES},
                                "transformers": "local"}  # fmt: skip


def served_name(engine: str, model: str | None) -> str:
    """The model name a server started with ``--engine engine --model model`` serves."""
    return model or SERVED_NAMES[engine]


def add_commands(sub: Any) -> None:
    from arena.llm.local_model import BUNDLED_FILE

    p = sub.add_parser(
        "serve",
        help="OpenAI-compatible server (scripted test engines or the local transformers model)",
        description="Serve /v1/chat/completions and /v1/models. 'scripted' answers legally "
        "and deterministically with optional latency and faults; 'directives', 'context' and "
        "'context-null' are scripted engines whose choices depend on the prompt in a "
        "documented way (docs/llm.md); 'transformers' runs a local model with dynamic "
        "batching across clients: --model-path, else the bundled SmolLM2-135M-Instruct "
        f"({BUNDLED_FILE}, de-quantised once; float32 on CPU, bfloat16 on CUDA).",
    )
    p.add_argument(
        "--engine",
        choices=[*SCRIPTED_ENGINES, "transformers"],
        default="scripted",
        help="directives: choices follow 'prefer X'/'avoid X' in the prompt's insights; "
        "context: in the system prompt's 'Style:' line, then in its insights; context-null: "
        "the same answers in distribution whatever the context (a self-play null)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address (default: %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    p.add_argument(
        "--model",
        help="model name served, which clients must ask for (default: "
        f"'{SERVED_NAMES['transformers']}' with --engine transformers, "
        f"'{SERVED_NAMES['scripted']}' with the others)",
    )
    p.add_argument("--api-key-env", help="require this env variable's value as Bearer key")
    p.add_argument("--seed", type=int, default=0, help="scripted: reply seed")
    p.add_argument("--latency", default="const:0", help="scripted: const:S | uniform:A:B | exp:M")
    p.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="KIND=RATE",
        help="scripted: inject KIND (500, 429, hang, malformed, empty, garbage, fenced) with "
        "probability RATE",
    )
    p.add_argument("--retry-after", type=float, default=1.0, help="scripted: 429 Retry-After s")
    p.add_argument("--hang-s", type=float, default=3600.0, help="scripted: how long a hang lasts")
    p.add_argument(
        "--capacity",
        type=int,
        default=0,
        help="scripted: requests worked on at once (0: no limit); more wait in the server's queue",
    )
    p.add_argument("--model-path", help="transformers: GGUF file or HF model directory")
    p.add_argument("--gguf-file", help="transformers: GGUF file name inside --model-path")
    p.add_argument("--batch-window", type=float, default=0.02, help="transformers: batch wait s")
    p.add_argument("--max-batch", type=int, default=8, help="transformers: batch size")
    p.add_argument("--max-seconds", type=float, help="stop by itself after this many seconds")
    p.set_defaults(func=cmd_serve)
    _add_agents_commands(sub)


def _add_agents_commands(sub: Any) -> None:
    """``arena agents test``."""
    p = sub.add_parser("agents", help="LLM agent utilities")
    asub = p.add_subparsers(dest="agents_command", metavar="SUBCOMMAND")
    t = asub.add_parser(
        "test",
        help="send one probe decision to an agent entry; report latency and validity",
    )
    t.add_argument("config", help="tournament config (YAML)")
    t.add_argument("entry", help="agent entry name")
    t.add_argument("--json", action="store_true", help="as JSON")
    t.set_defaults(func=cmd_agents_test)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_serve(args: argparse.Namespace) -> int:
    import os

    from arena.llm.server import TransformersEngine, make_app

    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            print(f"error: {args.api_key_env} is not set", file=sys.stderr)
            return 2
    engine: Any
    if args.engine in SCRIPTED_ENGINES:
        rates = {}
        for item in args.fault:
            kind, _, rate = item.partition("=")
            rates[kind] = float(rate or 1.0)
        module, name, fixed = SCRIPTED_ENGINES[args.engine]
        cls = getattr(importlib.import_module(module), name)
        try:
            engine = cls(
                **fixed,
                seed=args.seed,
                latency=args.latency,
                fault_rates=rates,
                retry_after_s=args.retry_after,
                hang_s=args.hang_s,
                capacity=args.capacity,
            )
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    else:
        engine = TransformersEngine(
            args.model_path, args.gguf_file, args.batch_window, args.max_batch
        )
    model = served_name(args.engine, args.model)
    return _serve(args, make_app(engine, model, api_key), model)


def _serve(args: argparse.Namespace, app: Any, model: str) -> int:
    """Bind first (a busy port: one error line, exit 2, no banner), then announce and serve."""
    import uvicorn

    from app.startup import listen, report
    from arena.errors import ConfigError

    try:
        sock = listen(args.host, args.port)
    except ConfigError as err:
        return report(err.problems)
    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    )

    async def main() -> None:
        if args.max_seconds:
            loop = asyncio.get_running_loop()
            loop.call_later(args.max_seconds, lambda: setattr(server, "should_exit", True))
        await server.serve(sockets=[sock])

    print(f"arena serve: {args.engine} model {model!r} on http://{args.host}:{args.port}/v1",
          flush=True)  # fmt: skip
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0


def probe_decision() -> Any:
    from arena.types import Decision, Option

    return Decision(
        kind="probe",
        prompt="Probe: pick the option named 'blue'.",
        options=[Option(id="red"), Option(id="blue"), Option(id="green")],
    )


async def run_probe(entry: Any, game: str) -> dict[str, Any]:
    """One probe decision through the full agent path: latency, validity, accounting."""
    from arena.agents import factory
    from arena.agents.base import KeepsCallRecords, MatchContext, Preflights
    from arena.types import InvalidAction, Observation

    agent = factory.build(entry.name, entry.kind, game, entry.params)
    names = ["Probe", "Other"]
    agent.reset(
        MatchContext(
            game=game, match_id="probe", seat=0, name="Probe", names=names, seed=1, team_seed=1
        )
    )
    decision = probe_decision()
    obs = Observation(game=game, seat=0, name="Probe", phase="probe", text=decision.describe())
    started = time.perf_counter()
    out: dict[str, Any] = {"entry": entry.name, "kind": entry.kind}
    try:
        if isinstance(agent, Preflights):
            out["preflight"] = await agent.preflight()
        raw = await agent.act(obs, decision)
        action = decision.parse(raw, 0)
        out.update(valid=True, answer=action.summary())
    except InvalidAction as err:
        out.update(valid=False, error=f"invalid answer: {err}")
    except Exception as err:
        out.update(valid=False, error=f"{type(err).__name__}: {err}")
    out["latency_s"] = round(time.perf_counter() - started, 4)
    if isinstance(agent, KeepsCallRecords):
        out["calls"] = agent.pop_call_records()
    await agent.close()
    return out


def cmd_agents_test(args: argparse.Namespace) -> int:
    from arena.errors import ConfigError
    from tournaments import config as tconfig

    try:
        config = tconfig.load(args.config)
        entry = config.entry(args.entry)
    except ConfigError as err:
        for p in err.problems:
            print(f"error: {p}", file=sys.stderr)
        return 2
    except KeyError:
        print(f"error: no agent entry named {args.entry!r}", file=sys.stderr)
        return 2
    out = asyncio.run(run_probe(entry, config.game))
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        status = "valid" if out["valid"] else "INVALID"
        print(f"{out['entry']} ({out['kind']}): {status} in {out['latency_s']:.3f}s")
        if out.get("preflight"):
            print(f"  preflight: {out['preflight']}")
        # the model's reply and errors are untrusted text: escapes shown, never acted on
        if out.get("answer"):
            print(printable(f"  answer: {out['answer']}", newlines="mark"))
        if out.get("error"):
            print(printable(f"  error: {out['error']}", newlines="mark"))
        for c in out.get("calls", []):
            print(f"  call: tokens {c['tokens_in']}->{c['tokens_out']}, retries {c['retries']}, "
                  f"cost ${c['cost_usd']:.6f}, cache {c['cache']}")  # fmt: skip
    return 0 if out["valid"] else 1
