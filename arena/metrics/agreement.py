"""Ranking quality and rater agreement as pure functions (metrics.md §D14, §B11).

- :func:`auroc` / :func:`auprc`: area under the ROC and precision–recall curves from scores of
  positives and negatives. Scores may be any mutually comparable values (floats, or tuples for a
  lexicographic cascade score). Ties count ½ in AUROC (Mann–Whitney); AUPRC is the average
  precision with tied scores grouped into one threshold (the step-wise sum
  Σ_k (R_k − R_{k−1})·P_k over distinct thresholds, highest first).
- :func:`cohen_kappa` and :func:`gwet_ac1` for two raters over the same items; ``None`` labels
  are missing: the item is dropped from both and counted, never scored.
  κ   = (p_o − p_e) / (1 − p_e),  p_e = Σ_k p_{A,k}·p_{B,k}
  AC1 = (p_o − p_e) / (1 − p_e),  p_e = 1/(Q−1) · Σ_k π_k(1 − π_k),  π_k = (p_{A,k} + p_{B,k})/2
  with Q the number of categories (given, else the labels seen). Undefined (p_e = 1, fewer than
  two categories, no items) → ``None``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any


def _ranks(values: Sequence[Any]) -> list[float]:
    """Mid-ranks (1-based) with ties averaged."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mid = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = mid
        i = j + 1
    return ranks


def auroc(pos: Sequence[Any], neg: Sequence[Any]) -> float | None:
    """P(score of a random positive > that of a random negative) + ½·P(tie)."""
    n1, n0 = len(pos), len(neg)
    if n1 == 0 or n0 == 0:
        return None
    r = _ranks([*pos, *neg])
    u = sum(r[:n1]) - n1 * (n1 + 1) / 2
    return u / (n1 * n0)


def auprc(pos: Sequence[Any], neg: Sequence[Any]) -> float | None:
    """Average precision over distinct thresholds (ties grouped), highest score first."""
    n1 = len(pos)
    if n1 == 0 or not neg:
        return None
    items = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg], key=lambda x: x[0],
                   reverse=True)  # fmt: skip
    tp = fp = prev_tp = 0
    total = 0.0  # Σ (new positives × precision), divided by n1 once: each term is at most its
    i = 0  # integer count of positives, so the sum rounds to at most n1 and the area to at most 1
    while i < len(items):
        j = i
        while j < len(items) and items[j][0] == items[i][0]:
            tp += items[j][1]
            fp += 1 - items[j][1]
            j += 1
        total += (tp - prev_tp) * (tp / (tp + fp))
        prev_tp = tp
        i = j
    return total / n1


def _pairs(
    a: Sequence[Hashable | None], b: Sequence[Hashable | None]
) -> tuple[list[tuple[Hashable, Hashable]], int]:
    if len(a) != len(b):
        raise ValueError(f"raters labelled different numbers of items ({len(a)} vs {len(b)})")
    kept = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    return kept, len(a) - len(kept)


def _marginals(kept: list[tuple[Hashable, Hashable]], cats: list[Hashable]) -> tuple[float, ...]:
    n = len(kept)
    ca, cb = Counter(x for x, _ in kept), Counter(y for _, y in kept)
    po = sum(x == y for x, y in kept) / n
    return po, *(ca[k] / n for k in cats), *(cb[k] / n for k in cats)


def _categories(kept: list[tuple[Hashable, Hashable]], categories: Iterable[Hashable] | None
                ) -> list[Hashable]:  # fmt: skip
    seen = {x for pair in kept for x in pair}
    if categories is None:
        return sorted(seen, key=repr)
    cats = list(dict.fromkeys(categories))
    unknown = seen - set(cats)
    if unknown:
        raise ValueError(f"labels outside the categories: {sorted(unknown, key=repr)}")
    return cats


def cohen_kappa(a: Sequence[Hashable | None], b: Sequence[Hashable | None],
                categories: Iterable[Hashable] | None = None) -> float | None:  # fmt: skip
    kept, _ = _pairs(a, b)
    if not kept:
        return None
    cats = _categories(kept, categories)
    po, *m = _marginals(kept, cats)
    q = len(cats)
    pe = sum(m[k] * m[q + k] for k in range(q))
    return None if pe >= 1.0 else (po - pe) / (1 - pe)


def gwet_ac1(a: Sequence[Hashable | None], b: Sequence[Hashable | None],
             categories: Iterable[Hashable] | None = None) -> float | None:  # fmt: skip
    kept, _ = _pairs(a, b)
    if not kept:
        return None
    cats = _categories(kept, categories)
    q = len(cats)
    if q < 2:
        return None
    po, *m = _marginals(kept, cats)
    pi = [(m[k] + m[q + k]) / 2 for k in range(q)]
    pe = sum(p * (1 - p) for p in pi) / (q - 1)
    return None if pe >= 1.0 else (po - pe) / (1 - pe)


def agreement(a: Sequence[Hashable | None], b: Sequence[Hashable | None],
              categories: Iterable[Hashable] | None = None) -> dict[str, Any]:  # fmt: skip
    """κ, AC1 and raw agreement with the counts of scored and missing items."""
    cats = None if categories is None else list(categories)
    kept, missing = _pairs(a, b)
    return {
        "n": len(kept),
        "missing": missing,
        "observed_agreement": sum(x == y for x, y in kept) / len(kept) if kept else None,
        "cohen_kappa": cohen_kappa(a, b, cats),
        "gwet_ac1": gwet_ac1(a, b, cats),
    }


JUDGE_LEVELS = (0.0, 0.5, 1.0)


def judge_agreement(judge: Any, items: Sequence[tuple[Any, str, float | None]],
                    other: Any = None) -> dict[str, Any]:  # fmt: skip
    """Agreement of an adjudicator (``judge(secret, message, idx) -> level | None``) with hand
    labels ``items = [(SecretSpec, message, level)]`` — or, with ``other``, between two
    adjudicators on the same items (§D14). A failed judgement is missing, never 0."""
    a = [judge.judge(s, msg, []) for s, msg, _ in items]
    b = [other.judge(s, msg, []) if other is not None else lab for s, msg, lab in items]
    out = agreement(a, b, JUDGE_LEVELS)
    out["against"] = "judge" if other is not None else "labels"
    out["judge_failed"] = sum(x is None for x in a)
    return out
