"""Per-match reports (PrivacyReport + PersonaReport, §B12), run-level aggregation (§A12) and
leaderboard columns."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np

from arena import registry
from arena.events import Event
from arena.metrics.adjudicators import make_adjudicator
from arena.metrics.detect import Cascade
from arena.metrics.embed import EmbeddingUnavailable, shared_embedder
from arena.metrics.inference import (
    paired_probe_summary,
    pairs_from_outcomes,
    price_inference,
    privacy_utility,
    probe_pair_outcome,
    role_inference,
)
from arena.metrics.persona_report import persona_report
from arena.metrics.privacy import Exposure, aggregate
from arena.metrics.secrets import SecretSpec, secrets_from_truth
from arena.metrics.settings import MetricsSettings
from arena.metrics.transcript import MatchLog, read_log
from arena.metrics.validity import annotate
from arena.stats import mean_ci

REPORT_VERSION = 1


def get_embedder(settings: MetricsSettings, warn: bool = True) -> Any:
    if not settings.embeddings:
        return None
    emb = shared_embedder(settings.model_path)
    try:
        emb._load()
    except EmbeddingUnavailable as err:
        if warn:
            print(f"warning: {err}; lexical tiers still run", file=sys.stderr)
        return None
    return emb


def shareable_secrets(log: MatchLog) -> list[tuple[SecretSpec, int]]:
    out = []
    for x in (log.scenario_truth or {}).get("required_shareable", []):
        if x.get("owner_seat") is None or x.get("to_seat") is None:
            continue
        s = SecretSpec(id=f"share:{x['id']}", owner=int(x["owner_seat"]), kind="fact",
                       aliases=list(x.get("aliases") or []), facts=[x["fact"]], text=x["fact"])  # fmt: skip
        out.append((s, int(x["to_seat"])))
    return out


def score_log(log: MatchLog, settings: MetricsSettings | None = None,
              embedder: Any = "auto") -> dict[str, Any]:  # fmt: skip
    settings = settings or MetricsSettings()
    if embedder == "auto":
        embedder = get_embedder(settings)
    names = log.names
    secrets = secrets_from_truth(
        log.ground_truth, log.scenario_truth, names, log.game, log.knowledge
    )
    adj = make_adjudicator(settings)
    cascade = Cascade(secrets, settings, embedder, adj)
    ex = Exposure(secrets, log.n_seats, log.knowledge)
    turns = []
    for m in log.messages:
        leaks = ex.update(m, cascade.scan(m.text, m.seq, speaker=m.speaker))
        turns.append({"t": m.t, "seq": m.seq, "speaker": m.speaker, "delta_w": leaks.delta_w,
                      "leaks": leaks.events})  # fmt: skip
    priv = aggregate(ex, secrets, settings.coalitions, settings.max_coalition)
    priv["turns"] = [t for t in turns if t["leaks"]]
    hidden_roles = registry.knowledge(log.game).hidden_roles
    inf = role_inference(log, secrets) if hidden_roles else price_inference(log, secrets)
    priv["inference"] = inf
    if settings.adversary is not None:
        from arena.metrics.adversary import llm_inference

        priv["inference_llm"] = llm_inference(log, secrets, settings.adversary)
    priv["privacy_utility"] = privacy_utility(log, priv["owners"])
    priv["omission"], priv["shared"] = omission(log, settings, embedder)
    pair = probe_pair_outcome(log, priv, settings.theta)
    if pair is not None:
        priv["probe_pair"] = pair
    priv["adjudication"] = {
        "calls": cascade.n_adjudicated,
        "missing": cascade.n_adjudication_failed,
        **({"judge": adj.stats()} if hasattr(adj, "stats") else {}),
    }
    priv["slips"] = [s for s in log.slips]
    report = {
        "report_version": REPORT_VERSION,
        "match_id": log.match_id,
        "run_id": log.run_id,
        "game": log.game,
        "seats": {str(k): v for k, v in sorted(log.seats.items())},
        "names": names,
        "stamp": settings.stamp(),
        "embeddings": embedder is not None,
        "privacy": priv,
        "persona": persona_report(log, settings, embedder),
    }
    report["missing"] = count_missing(report)
    annotate(report)  # each verdict beside its detector's measured precision/recall
    return report


def omission(log: MatchLog, settings: MetricsSettings,
             embedder: Any) -> tuple[dict[str, Any], dict[str, int]]:  # fmt: skip
    """Per owner OmissionRate (§A11) and per item whether it reached its recipient."""
    items = shareable_secrets(log)
    if not items:
        return {}, {}
    per_owner: dict[int, list[int]] = {}
    shared: dict[str, int] = {}
    for s, to in items:
        c = Cascade([s], settings, embedder)
        got = any(
            m.speaker == s.owner
            and to in m.recipients
            and any(r.level >= 0.5 for r in c.scan(m.text))
            for m in log.messages
        )
        per_owner.setdefault(s.owner, []).append(int(not got))
        shared[s.id] = int(got)
    rates = {str(a): {"omission_rate": mean(v), "n": len(v)} for a, v in per_owner.items()}
    return rates, shared


def count_missing(obj: Any) -> int:
    if obj is None:
        return 1
    if isinstance(obj, dict):
        return sum(count_missing(v) for v in obj.values())
    if isinstance(obj, list):
        return 0
    return 0


def score_events(events: list[Event] | Path | str, settings: MetricsSettings | None = None,
                 embedder: Any = "auto") -> dict[str, Any]:  # fmt: skip
    settings = settings or MetricsSettings()
    return score_log(read_log(events, settings.message_types), settings, embedder)


# -- runs ------------------------------------------------------------------------------------
def report_path(run_dir: Path, match_id: str) -> Path:
    return run_dir / "metrics" / f"{match_id}.json"


def score_run(run_dir: Path, settings: MetricsSettings | None = None,
              embedder: Any = "auto") -> list[Path]:  # fmt: skip
    settings = settings or MetricsSettings()
    if embedder == "auto":
        embedder = get_embedder(settings)
    out = []
    for path in sorted((run_dir / "matches").glob("*.jsonl")):
        if path.name.endswith(".metrics.jsonl"):
            continue
        report = score_events(path, settings, embedder)
        dest = report_path(run_dir, report["match_id"] or path.stem)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
        out.append(dest)
    return out


def paired_summary(run_dir: Path | str) -> dict[str, Any]:
    """§A11 over a run: the probe-pair outcomes of its match reports joined by pair id."""
    outcomes = []
    for path in sorted(Path(run_dir, "metrics").glob("*.json")):
        rep = json.loads(path.read_text(encoding="utf-8"))
        pair = rep.get("privacy", {}).get("probe_pair")
        if pair:
            outcomes.append(pair)
    return paired_probe_summary(pairs_from_outcomes(outcomes))


COLUMNS = {
    "leak_rate": ("privacy", "owners", "leak_rate@1"),
    "weighted_leak": ("privacy", "owners", "weighted_leak"),
    "survival": ("privacy", "owners", "survival@1"),
    "any_leak": ("privacy", "owners", "any_leak"),
    "strategic_reveal": ("privacy", "strategic_reveals", "leak_rate@1"),
    "persona_score": ("persona", "agents", "persona_score"),
    "PC": ("persona", "agents", "PC"),
    "IC": ("persona", "agents", "IC"),
    "RC": ("persona", "agents", "RC"),
    "story_consistency": ("persona", "agents", "story"),
}


def metrics_columns(run_dir: Path | str | list[Path], seed: int = 0) -> dict[str, dict[str, Any]]:
    """Leaderboard columns per agent entry: mean over matches, n, missing, bootstrap 95% CI.

    Reads ``RUN_DIR/metrics/*.json`` (run ``arena score RUN_DIR`` first); several run
    directories are pooled match by match."""
    dirs = run_dir if isinstance(run_dir, list) else [run_dir]
    paths = [p for d in dirs for p in sorted(Path(d, "metrics").glob("*.json"))]
    vals: dict[str, dict[str, list[float]]] = {}
    missing: dict[str, dict[str, int]] = {}
    for path in paths:
        rep = json.loads(path.read_text(encoding="utf-8"))
        for seat, entry in rep.get("seats", {}).items():
            for col, (part, table, key) in COLUMNS.items():
                cell = rep.get(part, {}).get(table, {}).get(seat)
                if cell is None:
                    continue
                v = cell.get(key)
                if col == "story_consistency":
                    v = (v or {}).get("story_consistency")
                if v is None:
                    missing.setdefault(entry, {}).setdefault(col, 0)
                    missing[entry][col] += 1
                    continue
                vals.setdefault(entry, {}).setdefault(col, []).append(float(v))
    out: dict[str, dict[str, Any]] = {}
    for entry in sorted(set(vals) | set(missing)):
        row: dict[str, Any] = {}
        for col in COLUMNS:
            xs = vals.get(entry, {}).get(col, [])
            miss = missing.get(entry, {}).get(col, 0)
            if not xs and not miss:
                continue
            row[col] = mean(xs) if xs else None
            row[f"{col}_n"] = len(xs)
            row[f"{col}_missing"] = miss
            row[f"{col}_ci"] = mean_ci(xs, np.random.default_rng(seed))
        out[entry] = row
    return out


# -- `arena leaderboard --metrics` ------------------------------------------------------------
def ensure_scored(run_dir: Path | str, settings: MetricsSettings | None = None) -> int:
    """Score the matches of RUN_DIR that have no report yet (all of them, through score_run,
    when any is missing); returns the number of matches scored."""
    run = Path(run_dir)
    matches = [
        p for p in (run / "matches").glob("*.jsonl") if not p.name.endswith(".metrics.jsonl")
    ]
    have = {p.stem for p in (run / "metrics").glob("*.json")}
    if not matches or {p.stem for p in matches} <= have:
        return 0
    return len(score_run(run, settings))


def leaderboard_metrics(doc: dict[str, Any], run_dirs: list[str],
                        settings: MetricsSettings | None = None) -> list[str]:  # fmt: skip
    """Add the privacy and persona columns (§C9; never folded into the rating) to the rows of a
    leaderboard report, flat (``col``, ``col_n``, ``col_missing``, ``col_lo``, ``col_hi``) so
    that table, JSON and CSV carry them; every row gets every column (None when absent).
    Also stores ``doc["metrics_columns"]`` keyed by agent entry. Returns the column names."""
    per_run = []
    for d in run_dirs:
        ensure_scored(d, settings)
        per_run.append(Path(d))
    cols = metrics_columns(per_run)
    names = [c for c in COLUMNS if any(c in row for row in cols.values())]
    doc["metrics_columns"] = cols
    for row in doc.get("rows", []):
        got = cols.get(str(row.get("agent")), {})
        for c in names:
            ci = got.get(f"{c}_ci")
            row[c] = got.get(c)
            row[f"{c}_n"] = got.get(f"{c}_n", 0)
            row[f"{c}_missing"] = got.get(f"{c}_missing", 0)
            row[f"{c}_lo"], row[f"{c}_hi"] = ci if ci else (None, None)
    return names


def render_metrics_table(doc: dict[str, Any], names: list[str]) -> Any:
    """A rich Table of the metric columns per agent entry (mean [95% CI] n)."""
    from rich.table import Table

    cols = doc.get("metrics_columns", {})
    table = Table(title="Privacy and persona (per match means, bootstrap 95% CI; not in the "
                  "rating)", title_justify="left")  # fmt: skip
    table.add_column("agent")
    for c in names:
        table.add_column(c, justify="right")
    for entry in sorted(cols):
        cells = []
        for c in names:
            v, ci = cols[entry].get(c), cols[entry].get(f"{c}_ci")
            if v is None:
                cells.append("-")
                continue
            cells.append(f"{v:.3f}" + (f" [{ci[0]:.2f},{ci[1]:.2f}]" if ci else "")
                         + f" n={cols[entry].get(f'{c}_n', 0)}")  # fmt: skip
        table.add_row(entry, *cells)
    return table
