"""Named tokens of the shared HTTP server: the file's checks, the rights of each token, and
`mindex new-token` (the server itself is tested on PostgreSQL in test_postgres.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mindex.errors import ConfigError
from mindex.serve.tokens import _printable, check_call, digest, load_tokens, new_token, outcome

SOURCE_TOOLS = {"search_docs", "search_code", "grep"}


def test_new_token_writes_a_block_the_loader_reads_with_the_secret_only_hashed(tmp_path: Path) -> None:
    secret, block = new_token("ci-bot", write=False, sources=["api", "docs"])
    assert secret not in block and digest(secret) in block
    path = tmp_path / "tokens.toml"
    path.write_text(block + "\n" + new_token("alice", write=True)[1])
    ci, alice = load_tokens(path)
    assert (ci.name, ci.access, ci.sources, ci.digest) == ("ci-bot", "read", ("api", "docs"), digest(secret))
    assert (alice.access, alice.sources) == ("write", ())
    run = subprocess.run([sys.executable, "-m", "mindex", "new-token", "bob", "--write", "--source", "api"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0
    printed = tomllib.loads(run.stdout)["token"][0]
    assert printed["name"] == "bob" and printed["access"] == "write" and printed["sources"] == ["api"]
    shown = run.stderr.split("(shown once): ")[1].split()[0]
    assert digest(shown) == printed["sha256"]
    as_json = json.loads(subprocess.run([sys.executable, "-m", "mindex", "new-token", "eve", "--json"],
                                        capture_output=True, text=True, timeout=60, check=True).stdout)
    assert digest(as_json["secret"]) in as_json["toml"]


@pytest.mark.parametrize(("text", "complaint"), [
    ("[[token]]\nsha256 = '%s'\n" % ("a" * 64), "has no name"),
    ("[[token]]\nname = 'x'\nsha256 = 'secret'\n", "64 hex digits"),
    ("[[token]]\nname = 'x'\nsha256 = '%s'\naccess = 'admin'\n" % ("a" * 64), "use \"read\" or \"write\""),
    ("[[token]]\nname = 'x'\nsha256 = '%s'\nsources = 'api'\n" % ("a" * 64), "not a list of source names"),
    ("[[token]]\nname = 'x'\nsha256 = '%s'\n[[token]]\nname = 'x'\nsha256 = '%s'\n" % ("a" * 64, "b" * 64),
     "named twice"),
    ("name = 'x'\n", "holds no [[token]] table"),
    ("[[token]\n", "not valid TOML"),
])
def test_a_bad_tokens_file_is_refused_naming_the_token(tmp_path: Path, text: str, complaint: str) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        load_tokens(path)


def test_rights_read_write_and_sources() -> None:
    reader = load_tokens_from("reader", "read", ())
    writer = load_tokens_from("writer", "write", ())
    one = load_tokens_from("one", "read", ("api",))
    two = load_tokens_from("two", "write", ("api", "docs"))
    assert check_call(reader, "search_docs", {}, SOURCE_TOOLS) is None
    assert "read-only" in (check_call(reader, "memory_save", {}, SOURCE_TOOLS) or "")
    assert check_call(writer, "memory_save", {}, SOURCE_TOOLS) is None
    arguments: dict[str, object] = {"query": "x"}
    assert check_call(one, "search_docs", arguments, SOURCE_TOOLS) is None and arguments["source"] == "api"
    assert "may not read the source 'docs'" in (check_call(one, "grep", {"source": "docs"}, SOURCE_TOOLS) or "")
    assert "name one in `source`" in (check_call(two, "grep", {}, SOURCE_TOOLS) or "")
    assert check_call(two, "grep", {"source": "docs"}, SOURCE_TOOLS) is None
    assert "not limited to a source" in (check_call(two, "memory_list", {}, SOURCE_TOOLS) or "")


def load_tokens_from(name: str, access: str, sources: tuple[str, ...]):  # type: ignore[no-untyped-def]
    from mindex.serve.tokens import Token

    return Token(name, digest(name), access, sources)


def test_the_access_log_counts_results_from_json_or_event_stream_answers() -> None:
    answer = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "# three hits"}],
                                                    "structuredContent": {"query": "x", "results": [{}, {}, {}]}}}
    assert outcome(json.dumps(answer).encode()) == "results=3"
    streamed = f"event: message\ndata: {json.dumps(answer)}\n\n".encode()
    assert outcome(streamed) == "results=3"
    failed = {"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "no"}], "isError": True}}
    assert outcome(json.dumps(failed).encode()) == "error"
    single = {"jsonrpc": "2.0", "id": 5, "result": {"structuredContent": {"id": "m1", "saved": True}}}
    assert outcome(json.dumps(single).encode()) == "results=1"
    assert outcome(b"not json") == "" and outcome(b"data: {broken") == ""


def test_a_clients_words_stay_one_field_of_one_log_line() -> None:
    assert _printable("search_docs") == "search_docs"
    assert _printable("a b\nX\t1\r") == "a\\x20b\\nX\\t1\\r"
    assert _printable("é😀\u2028") == "\\xe9\\U0001f600\\u2028"
    assert _printable("x" * 300) == "x" * 200 + "..."
