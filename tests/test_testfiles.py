"""Test files rank below the code they test unless the question is about tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.testfiles import about_tests, is_test_path


@pytest.mark.parametrize("path", [
    "tests/test_client.py", "pkg/tests/unit/helpers.py", "src/conftest.py", "client_test.go", "lib/__tests__/a.js",
    "src/app.test.ts", "src/app.spec.tsx", "src/test/java/org/x/ClientTest.java", "spec/models/user_spec.rb",
    "crate/tests/integration.rs", "testing/fixtures.py", "test_utils/factory.py", "t/mojo/util.t", "xt/author/pod.t",
    "t/lib/TestHelper.pm",
])
def test_test_paths_are_recognised_across_languages(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize("path", [
    "src/client.py", "lib/contest.py", "src/attestation.go", "docs/testing.md/../x.py", "pkg/latest/api.py",
    "src/protester.ts", "src/main/java/org/x/Client.java", "notes.t.md", "src/t/widget.py", "lib/Mojo/Util.pm",
])
def test_code_paths_are_not_tests(path: str) -> None:
    assert not is_test_path(path)


@pytest.mark.parametrize("question", [
    "Fix flaky test_timeout on Windows", "TestClient drops the websocket close code",
    "add a fixture for the temporary database", "branch coverage of the router", "the mock transport leaks",
])
def test_questions_about_tests(question: str) -> None:
    assert about_tests(question)


@pytest.mark.parametrize("question", [
    "Timeouts are ignored when the pool is full", "retry the request after a dropped connection",
    "latest protest attestation",
])
def test_questions_about_code(question: str) -> None:
    assert not about_tests(question)


def _repo(root: Path) -> Path:
    (root / "httpkit").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "httpkit" / "pool.py").write_text(
        "class Pool:\n"
        "    def acquire(self, timeout):\n"
        "        \"\"\"Wait for a free connection until the timeout passes.\"\"\"\n"
        "        return self._wait(timeout)\n")
    # the test holds the question's words as well as the code does, and more of them
    (root / "tests" / "test_pool.py").write_text(
        "from httpkit.pool import Pool\n\n"
        "def test_acquire_waits_for_a_free_connection_until_the_timeout():\n"
        "    pool = Pool()\n"
        "    assert pool.acquire(timeout=0.1) is None\n")
    return root


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_code_comes_before_its_test_unless_the_question_is_about_tests(tmp_path: Path, mode: str) -> None:
    provider = "none" if mode == "keyword" else "onnx"
    with Index(tmp_path / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider=provider)) as index:
        index.add_source(_repo(tmp_path / "repo"), kind="code")
        index.index()
        if mode == "hybrid":
            index.embed()
        question = "acquire waits for a free connection until the pool timeout passes"
        found = index.search(question, mode=mode)
        assert found.hits[0].path == "httpkit/pool.py"
        test_hit = next(h for h in found.hits if h.path == "tests/test_pool.py")
        assert test_hit.explain and "test_file" in test_hit.explain
        files = [f.path for f in index.locate(question, mode=mode).files]
        assert files[0] == "httpkit/pool.py"
        asked = index.search("the acquire test fails: waits for a free connection until the pool timeout", mode=mode)
        assert asked.hits[0].path == "tests/test_pool.py"  # a question about a test finds the test first
        assert all("test_file" not in (h.explain or {}) for h in asked.hits)


def test_the_penalty_is_a_setting_and_zero_turns_it_off(tmp_path: Path) -> None:
    from mindex.config import SearchSettings

    search = SearchSettings(test_penalty=0.0)
    with Index(tmp_path / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"),
               search=search) as index:
        index.add_source(_repo(tmp_path / "repo"), kind="code")
        index.index()
        hits = index.search("acquire waits for a free connection until the pool timeout passes", mode="keyword").hits
        assert all("test_file" not in (h.explain or {}) for h in hits)
        assert "tests/test_pool.py" in [h.path for h in hits[:2]]
