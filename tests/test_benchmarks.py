"""The dev-set builders and the quality harness in a tiny smoke form (the full sets run in
benchmarks/run.py): extraction on small real-shaped sources, then baselines and mindex
scored side by side on a three-query set over the fixture code."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_quality  # noqa: E402
import devset_more  # noqa: E402

TS = b"""import { x } from './x';

/**
 * Emits only the first value. Then completes.
 * @param n how many
 */
export function first<T>(n: number): T;
export function first<T>(n: number, d: T): T;
export function first<T>(n: number, d?: T): T {
  return d as T;
}

/** Too short. */
function tiny() {}
"""

GO = b"""package cmd

// Execute runs the command tree and returns the first error.
func Execute(args []string) error {
	return nil
}

// helper is undocumented in spirit
func helper() {}
"""


def test_typescript_queries_span_overloads_and_comments_are_removed() -> None:
    found, stripped = devset_more.typescript_functions(TS)
    assert found == [("first", "Emits only the first value.", 7, 11)]
    assert b"Emits" not in stripped and stripped.count(b"\n") == TS.count(b"\n")


def test_go_queries_drop_the_leading_name() -> None:
    found, stripped = devset_more.go_functions(GO)
    assert found == [("Execute", "runs the command tree and returns the first error.", 4, 6)]
    assert b"runs the command" not in stripped and stripped.count(b"\n") == GO.count(b"\n")


def test_markdown_questions_and_links_resolve_against_the_docs_root() -> None:
    lines = ["# Guide", "", "## How to pin versions", "See [versions](../config/pins.md#lock) and [/cli](/cli/about.md).",
             "", "***Q***: Can I skip it?", "***A***: Yes, see [x](other.md)."]
    questions = devset_more.markdown_questions("how-to/pins.md", lines)
    assert [q[1] for q in questions] == ["Guide", "How to pin versions", "Can I skip it?"]
    assert devset_more._resolve("how-to/pins.md", "../config/pins.md#lock") == "config/pins.md#lock"
    assert devset_more._resolve("how-to/pins.md", "/cli/about.md") == "cli/about.md"
    assert devset_more._resolve("how-to/pins.md", "https://example.org/x.md") is None


def test_issue_text_drops_trailers_templates_and_file_names() -> None:
    message = ("Fix pool reset on checkin (#123)\n\n<!-- template -->\nFixed issue in :func:`_orm.joinedload` where "
               "lib/sqlalchemy/orm/strategies.py reset the pool.\n\nFixes: #9\nChange-Id: Iabc\n"
               "Co-authored-by: A <a@b>\n### Checklist\n- [x] tests")
    assert devset_more.issue_text(message) == ("Fix pool reset on checkin\n\nFixed issue in _orm.joinedload where "
                                               " reset the pool.")


def test_the_harness_scores_baselines_and_mindex_on_a_tiny_set(tmp_path: Path) -> None:
    queries = [
        {"qid": "1", "query": "clamp a number between a low and a high bound",
         "relevant": [{"path": "sample.lua", "start_line": 3, "end_line": 5}]},
        {"qid": "2", "query": "distance between two points",
         "relevant": [{"path": "sample.jl", "start_line": 14, "end_line": 16}]},
        {"qid": "3", "query": "free the memory of a buffer",
         "relevant": [{"path": "sample.c", "start_line": 21, "end_line": 23}]},
    ]
    (tmp_path / "smoke.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    spec = bench_quality.DevSet("smoke", "code", "symbols", corpus=Path(__file__).parent / "fixtures" / "code",
                                queries=tmp_path, work=tmp_path / "work")
    report, facts = bench_quality.evaluate(spec, fresh=True, modes=("keyword", "hybrid"))
    assert set(report) == {"bm25s", "minilm", "bm25s+minilm rrf", "mindex keyword", "mindex hybrid"}
    assert facts["queries"] == 3 and facts["baseline chunks"] > 10
    assert all(0.0 <= m["ndcg@10"] <= 1.0 for m in report.values())
    assert report["mindex hybrid"]["recall@10"] == pytest.approx(1.0)
    table = bench_quality.table(spec, report, facts)
    assert "| mindex hybrid |" in table and "vs best baseline" in table


def test_the_speed_benchmark_times_commands_and_compares_grep_with_rg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os
    import subprocess

    import bench_speed

    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none"}
    imports = bench_speed.startup(tmp_path, env, repeat=1)
    assert set(imports) == {"--help", "keyword search"} and all(ms > 0 for ms in imports.values())
    tree = Path(__file__).parent / "fixtures" / "code"
    db = tmp_path / "tree.db"
    subprocess.run(bench_speed.mindex("--db", str(db), "add", str(tree), "--kind", "code"), env=env, check=True)
    subprocess.run(bench_speed.mindex("--db", str(db), "index", "-q"), env=env, check=True)
    bench_speed.GREP_PATTERNS = [r"func \w+", r"def \w+\("]
    bench_speed.peers(tree, db, env, repeat=1)
    printed = capsys.readouterr().out
    assert "| `mindex --help` |" in printed and "| `mindex search --mode keyword` |" in printed
    assert printed.count("| yes |") == 2, printed  # the same lines as rg for both patterns


def test_the_superseding_set_reads_pins_from_pre_commit_requirements_pyproject_and_workflows() -> None:
    import devset_supersede

    pre_commit = ("repos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.7.0\n"
                  "  - repo: local\n    rev: ignored\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n"
                  "    rev: 'v0.5.1'\n")
    assert devset_supersede.pins(pre_commit, ".pre-commit-config.yaml") == {"mypy": "v1.7.0", "ruff": "v0.5.1"}
    assert devset_supersede.pins("-e .\nchardet==5.2.0\nCoverage[toml]==7.10.6  # tests\nhttpx>=0.27\n",
                                 "requirements.txt") == {"chardet": "5.2.0", "coverage": "7.10.6"}
    assert devset_supersede.pins("dependencies = [\n  'pydantic-core==2.48.0',\n  'typing>=4',\n]\n",
                                 "pyproject.toml") == {"pydantic-core": "2.48.0"}
    assert devset_supersede.pins("    steps:\n      - uses: actions/checkout@v4\n      - uses: astral-sh/setup-uv@v6\n",
                                 ".github/workflows/test.yml") == {"checkout": "v4", "setup-uv": "v6"}


def test_test_files_are_told_apart_in_the_which_file_sets() -> None:
    import devset_loctests

    for path in ("tests/test_a.py", "pkg/test/helpers.ts", "mux_test.go", "src/a.spec.ts", "conftest.py"):
        assert devset_loctests.is_test(path), path
    for path in ("starlette/testclient.py", "pkg/contest.go", "src/latest.ts"):
        assert not devset_loctests.is_test(path), path


def test_newest_first_counts_a_question_only_when_the_newest_answer_beats_every_older_one() -> None:
    from mindex.evaluate import Judgement, Query, QueryRun, Ranked

    def query(qid: str) -> Query:
        return Query(qid, "which mypy", (Judgement("j.md", 10, 10),),
                     {"superseded": [{"path": "j.md", "start_line": 5, "end_line": 5}]})

    def ranked(*lines: int) -> tuple[Ranked, ...]:
        return tuple(Ranked(f"j.md:{n}", "j.md", n, n, 1.0) for n in lines)

    queries = [query("won"), query("lost"), query("missing")]
    runs = {"won": QueryRun("won", ranked(1, 10, 5)), "lost": QueryRun("lost", ranked(5, 10)),
            "missing": QueryRun("missing", ranked(1, 2))}
    assert bench_quality.newest_first(queries, runs) == pytest.approx(1 / 3)
