"""Learned fusion: the keyword and vector legs combined by a small linear model over features
search already has, instead of reciprocal rank fusion alone.

Each candidate (a chunk either leg found) gets a few numbers: its reciprocal rank in each leg
(what RRF adds up), its BM25 score relative to the query's best, its cosine and its distance
to the best cosine, whether both legs found it, and, for code, how many of the query's words
its text, its heading line and its symbol's name hold (as substrings, so camelCase parts count). The
weights (`ranker.json` beside this file) were fitted by `benchmarks/train_ranker.py` with a
listwise loss on the dev sets, each set weighing the same, and kept because they beat RRF on
sets left out of the fit; the file records how.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from mindex.models import Hit
from mindex.terms import MAX_TERMS
from mindex.terms import identifier_parts

RRF_K = 60
_WORD = re.compile(r"\w+", re.UNICODE)
# Small words that carry no topic in a question ("how do I ..."); more than the keyword
# leg's stopwords, since here they only count coverage.
_FILLER = frozenset(
    """a an and are as at be but by can do does for from how i if in into is it its me my of on or
    so that the their then there these this to was what when where which who why will with you your we
    our should would could use using used get set""".split()
)


def query_words(text: str) -> frozenset[str]:
    """The query's content words, identifier parts split out, lower case: the first
    `MAX_TERMS` of them, as the keyword leg reads a long text."""
    return frozenset(list(dict.fromkeys(w for w in _words(text) if w not in _FILLER))[:MAX_TERMS])


def _words(text: str) -> Iterator[str]:
    return (part for word in _WORD.findall(text) for part in (identifier_parts(word) or [word.lower()]))


@dataclass(frozen=True)
class Ranker:
    """A linear model over named features, with the standardisation it was fitted with."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    about: dict[str, Any]

    def standardized(self, rows: np.ndarray) -> np.ndarray:
        """Rows as the model reads them: standardised, a feature not measured (NaN, see
        `NOT_CODE`) at its mean."""
        standard: np.ndarray = np.nan_to_num((rows - self.mean) / self.scale, nan=0.0)
        return standard

    def score(self, rows: np.ndarray) -> np.ndarray:
        """The model's score of each candidate (a row of `features`)."""
        scores: np.ndarray = self.standardized(rows) @ self.weights
        return scores


@cache
def load_ranker() -> Ranker:
    """The shipped model (`ranker.json`)."""
    data = json.loads((resources.files("mindex") / "ranker.json").read_text(encoding="utf-8"))
    return Ranker(tuple(data["features"]), np.asarray(data["mean"], dtype=np.float64),
                  np.asarray(data["scale"], dtype=np.float64), np.asarray(data["weights"], dtype=np.float64),
                  data.get("about", {}))


KEYWORD_FEATURES = frozenset({"kr", "ks"})
SEMANTIC_FEATURES = frozenset({"sr", "ss", "sgap"})
# The code features of a chunk that is not code (docs, memory, a changelog, a code source's
# prose: `Hit.prose`) are not measured (NaN), and `learned_fusion` counts them as the mean
# code chunk's. They were fitted on sets of code only; as 0, a docs chunk scored as code
# holding none of the query's words (1.3 under the mean code chunk) and fell under code that
# barely matched in one list of code and docs (benchmarks/bench_mixed.py). In a search of one
# kind they move every score alike.
NOT_CODE = {"c_cov": np.nan, "c_tcov": np.nan, "c_scov": np.nan}


def candidate_features(query: str, legs: dict[str, list[Hit]],
                       names: tuple[str, ...]) -> tuple[list[Hit], np.ndarray]:
    """Every candidate of the keyword and semantic legs, once, and its feature row."""
    keyword, semantic = legs.get("keyword", []), legs.get("semantic", [])
    found: dict[str, Hit] = {}
    places: dict[str, dict[str, tuple[int, float]]] = {}
    for leg, hits in (("keyword", keyword), ("semantic", semantic)):
        for rank, hit in enumerate(hits, 1):
            found.setdefault(hit.id, hit)
            places.setdefault(hit.id, {})[leg] = (rank, hit.score)
    best_bm25 = max((h.score for h in keyword), default=1.0) or 1.0
    best_cos = max((h.score for h in semantic), default=0.0)
    wanted = query_words(query)
    rows = []
    for cid, hit in found.items():
        kw, se = places[cid].get("keyword"), places[cid].get("semantic")
        values = {
            "kr": 1 / (RRF_K + kw[0]) if kw else 0.0, "ks": kw[1] / best_bm25 if kw else 0.0,
            "sr": 1 / (RRF_K + se[0]) if se else 0.0, "ss": se[1] if se else 0.0,
            "sgap": se[1] - best_cos if se else -1.0, "both": 1.0 if kw and se else 0.0,
        }
        code = hit.kind == "code" and not hit.prose
        if code and wanted:
            # Substring tests on lower-cased text: camelCase parts are substrings of their
            # name, and this costs a fraction of tokenizing every candidate.
            heading = f"{hit.title} {hit.context}".lower()
            values["c_cov"] = _share(wanted, heading, hit.text.lower())
            values["c_tcov"] = _share(wanted, heading)
            values["c_scov"] = _share(wanted, (hit.symbol or "").lower())
        elif not code:
            values.update(NOT_CODE)
        rows.append([values.get(name, 0.0) for name in names])
    return list(found.values()), np.asarray(rows, dtype=np.float64).reshape(len(found), len(names))


def _share(wanted: frozenset[str], *texts: str) -> float:
    """The share of the words in `wanted` that one of `texts` holds (searched joined by NUL,
    which no query word holds: one substring test a word, not one a text)."""
    joined = "\0".join(texts)
    return len([w for w in wanted if w in joined]) / len(wanted)


def learned_fusion(query: str, legs: dict[str, list[Hit]], weights: dict[str, float],
                   ranker: Ranker | None = None) -> list[Hit]:
    """The legs' candidates ordered by the ranker; a leg's weight scales the contribution of
    its features (weight 0 leaves the leg out). Each hit's `explain` keeps each leg's rank
    and score, and `fused` is the ranker's score."""
    ranker = ranker or load_ranker()
    legs = {leg: found for leg, found in legs.items() if weights.get(leg, 1.0) > 0}
    hits, rows = candidate_features(query, legs, ranker.features)
    if not hits:
        return []
    contributions = ranker.standardized(rows) * ranker.weights
    for column, name in enumerate(ranker.features):
        leg = "keyword" if name in KEYWORD_FEATURES else "semantic" if name in SEMANTIC_FEATURES else None
        if leg is not None:
            contributions[:, column] *= weights.get(leg, 1.0)
    scores = contributions.sum(axis=1)
    order = np.argsort(-scores, kind="stable")
    places = {leg: {h.id: (rank, h.score) for rank, h in enumerate(found, 1)} for leg, found in legs.items()}
    out = []
    for i in order:
        hit = hits[int(i)]
        explain: dict[str, Any] = {leg: {"rank": p[hit.id][0], "score": round(p[hit.id][1], 6)}
                                   for leg, p in places.items() if hit.id in p}
        explain["fused"] = round(float(scores[i]), 6)
        out.append(hit.but(score=float(scores[i]), explain=explain))
    return out
