"""Research over code: a question that needs several lookups, answered from evidence the
search and the code graph gather (and, with a chat model, written up with citations)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.index import Index
    from mindex.research import Research


def research(index: Index, question: str, budget: int | None = None, time_budget: float | None = None,
             source: str | None = None, path: str | None = None, model: bool = True) -> Research:
    """Gather evidence for the question and, when `research.base_url` names a chat model (and
    `model` is on), let it look up more and answer with citations."""
    from mindex.config import STATE_DIR, ResearchSettings, load_settings
    from mindex.research import research as run

    where = getattr(index, "location", None)
    home = where.parent.parent if isinstance(where, Path) and where.parent.name == STATE_DIR else None
    settings = load_settings(cwd=home).research if model else ResearchSettings()
    return run(index, question, settings, budget, time_budget, source, path)


_VIEWS = "mindex.serve.researchviews"

OPERATIONS = (
    Operation(
        name="research", tool="research_code",
        help="Answer a question that needs several lookups: search, read, follow callers and callees, search "
             "again, within a token and time budget. With research.base_url set (an OpenAI-compatible chat "
             "model) the model plans the lookups and writes an answer citing path:start-end; without one, the "
             "evidence is printed, ranked and deduplicated.\n\nQUESTION is the question (several words are "
             "joined; `-` reads it from stdin).",
        agent_help="Research a question about the code that needs several lookups (\"how does a request get its "
                   "timeout, from the public API down to the socket?\"): searches, reads the chunks it finds, "
                   "follows callers and callees, searches again for what is missing, within a budget. Returns the "
                   "evidence (chunks with path:start-end and how each was found), ranked and deduplicated, and, "
                   "when the user configured a chat model, an answer whose citations were checked against it.",
        run="mindex.ops.research:research", markdown=f"{_VIEWS}:research_markdown", text=f"{_VIEWS}:print_research",
        schema="mindex.serve.mcp_models:ResearchOut", missing="evidence",
        params=(Param("question", str, "The question.", argument=True, rest=True, blank=False,
                      agent_help="the question, in words"),
                Param("budget", int, "Tokens (chars/4) of evidence to gather (default research.budget_tokens).",
                      default=None, ge=200, le=200_000, agent_help="tokens of evidence to gather (default 8000)"),
                Param("time_budget", float, "Seconds the run may take (default research.time_budget).", default=None,
                      ge=1, le=3600, flags=("--time",), agent_help="seconds the run may take"),
                Param("source", str, "Only this source.", default=None, agent_help="only this source"),
                Param("path", str, "Only files matching GLOB.", default=None, metavar="GLOB",
                      agent_help="only files matching this glob"),
                Param("model", bool, "Ask the configured chat model (off: the evidence alone).", default=True,
                      flags=("--model/--no-model",), agent_help="ask the configured chat model (false: evidence only)")),
        examples=('mindex research "how does a search get its results fused, from the CLI down to the store?"',
                  'mindex research "where is the journal lock taken and released" --budget 3000 --json',
                  'mindex research "what calls Memory.save" --no-model --path "src/**"')),
)
