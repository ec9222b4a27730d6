"""Maintained parsing libraries against the hand-written number parser, on a validation set's
number secrets: the privacy cascade with each parser in place of ``parse_numbers`` (offline
tiers), one JSON line per parser (recall, precision, CPU seconds).

The libraries are not dependencies of the arena; install them into any directory first:
  pip install --target DIR price-parser text2num pint quantulum3
Run: .venv/bin/python bench/metrics_parsers.py --libs DIR [--set blind1] [--split dev]
     [--baseline-commit REV]   (the hand-written parser as it was at REV, for comparison)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import arena.metrics.detect as D  # noqa: E402
from arena.metrics.numbers import Number  # noqa: E402
from arena.metrics.numbers import parse_numbers as ours  # noqa: E402
from arena.metrics.secrets import secrets_from_truth  # noqa: E402
from bench import metrics_validity as MV  # noqa: E402

Parser = Callable[[str], list[Number]]


def text2num(text: str) -> list[Number]:
    from text_to_num import alpha2digit

    return ours(alpha2digit(text, "en"))


def quantulum(text: str) -> list[Number]:
    from quantulum3 import parser

    try:
        found = parser.parse(text)
    except Exception:  # the library fails on some lines (no unit classifier installed)
        return []
    return [Number(float(q.value), float(q.value), q.span[0], q.span[1],
                   percent=q.unit.name == "percentage") for q in found]  # fmt: skip


def price(text: str) -> list[Number]:
    from price_parser import Price

    out = []
    for m in re.finditer(r"[^.;!?]+", text):
        p = Price.fromstring(m.group())
        if p.amount is not None:
            out.append(Number(float(p.amount), float(p.amount), m.start(), m.end()))
    return out


def union(a: Parser, b: Parser) -> Parser:
    def both(text: str) -> list[Number]:
        got = a(text)
        return got + [n for n in b(text) if not any(abs(n.lo - g.lo) < 1e-9 for g in got)]

    return both


def baseline(rev: str) -> Parser:
    src = subprocess.run(["git", "show", f"{rev}:arena/metrics/numbers.py"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "numbers_baseline.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("numbers_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["numbers_baseline"] = mod
    spec.loader.exec_module(mod)
    return lambda t: [Number(n.lo, n.hi, n.start, n.end, n.percent, n.implied_scale)
                      for n in mod.parse_numbers(t)]  # fmt: skip


def number_cases(set_name: str, split: str) -> list[dict[str, Any]]:
    out = []
    for c in MV.load_cases(MV.privacy_file(set_name), split):
        gt = c["truth"] if c["truth_kind"] == "ground_truth" else None
        st = c["truth"] if c["truth_kind"] == "scenario_truth" else None
        got = secrets_from_truth(gt, st, c["names"], c["game"])
        if any(s.id == c["secret"] and s.kind == "number" for s in got):
            out.append(c)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--libs", help="directory the libraries were installed into (--target)")
    ap.add_argument("--set", default="blind1")
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--baseline-commit", help="also the hand-written parser as of this commit")
    args = ap.parse_args(argv)
    if args.libs:
        sys.path.append(args.libs)
    warnings.filterwarnings("ignore")
    variants: dict[str, Parser] = {
        "hand-written": ours, "text2num": text2num, "quantulum3": quantulum,
        "price-parser": price, "hand-written+text2num": union(ours, text2num),
        "hand-written+quantulum3": union(ours, quantulum),
        "hand-written+price-parser": union(ours, price),
    }  # fmt: skip
    if args.baseline_commit:
        old = baseline(args.baseline_commit)
        variants |= {f"{args.baseline_commit}": old,
                     f"{args.baseline_commit}+text2num": union(old, text2num)}  # fmt: skip
    cases = number_cases(args.set, args.split)
    for name, fn in variants.items():
        setattr(D, "parse_numbers", fn)  # noqa: B010 - the numeric tier reads this name
        t0 = time.process_time()
        preds = MV.privacy_predictions(cases, embeddings=False)
        cpu = time.process_time() - t0
        hit = [(p["levels"]["cascade"] > 0, p["case"]["label"] == "leak") for p in preds]
        tp = sum(h and g for h, g in hit)
        fp = sum(h and not g for h, g in hit)
        fn_ = sum(g and not h for h, g in hit)
        print(json.dumps({"figure": "number_parser", "set": args.set, "split": args.split,
                          "parser": name, "cases": len(cases), "tp": tp, "fp": fp, "fn": fn_,
                          **MV.prf(tp, fp, fn_), "cpu_s": round(cpu, 2)}), flush=True)  # fmt: skip
    setattr(D, "parse_numbers", ours)  # noqa: B010


if __name__ == "__main__":
    main()
