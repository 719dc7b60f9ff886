"""`mindex locate` with a stack trace: the indexed files its frames name come first,
innermost frame first, each with the chunk of the frame's line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mindex import Index
from mindex.locate import frames, traced
from mindex.serve.cli import cli

PYTHON_TRACE = '''Traceback (most recent call last):
  File "/home/u/app/main.py", line 3, in <module>
    run()
  File "/usr/lib/python3/site-packages/shop/cart.py", line 6, in checkout
    return charge(total)
  File "/usr/lib/python3/site-packages/shop/billing.py", line 9, in charge
    raise ValueError("negative amount in the refund ledger")
ValueError: negative amount in the refund ledger
'''


def test_frames_of_each_language_innermost_first() -> None:
    assert frames(PYTHON_TRACE) == [("/usr/lib/python3/site-packages/shop/billing.py", 9),
                                    ("/usr/lib/python3/site-packages/shop/cart.py", 6), ("/home/u/app/main.py", 3)]
    node = ("TypeError: x is undefined\n    at render (/app/src/view.js:12:5)\n"
            "    at Object.<anonymous> (C:\\app\\src\\index.ts:3:1)\n")
    assert frames(node) == [("/app/src/view.js", 12), ("/app/src/index.ts", 3)]
    go = "goroutine 1 [running]:\nmain.handler(...)\n\t/home/u/svc/handler.go:41 +0x1d\n"
    java = "java.lang.IllegalStateException\n\tat com.shop.Cart.add(Cart.java:27)\n"
    assert frames(go) == [("/home/u/svc/handler.go", 41)] and frames(java) == [("Cart.java", 27)]
    assert frames("no trace here, version 3.12 and ratio 1:2") == []
    # pasted text is untrusted: a long run of path characters once cost quadratic time
    # (6.8 s for 20 KB of `a.`); walked back from each `.ext:N`, it is read once
    hostile = "a." * 100_000 + " /x" * 50_000 + " at f (/srv/app/main.js:7:1)"
    assert frames(hostile) == [("/srv/app/main.js", 7)]


def test_a_frame_names_the_file_its_longest_tail_matches_and_a_bare_name_only_when_unique() -> None:
    paths = [("s", "src/shop/billing.py"), ("s", "old/shop2/billing.py"), ("s", "a/Cart.java"), ("s", "b/Cart.java"),
             ("s", "src/view.js")]
    found = traced(PYTHON_TRACE + "\n  at x (/srv/src/view.js:4:2)\n  at Cart.add(Cart.java:27)\n", paths)
    assert found == {("s", "src/shop/billing.py"): [9], ("s", "src/view.js"): [4]}


def test_locate_puts_the_files_of_a_stack_trace_first_with_the_frames_chunks(index: Index, tmp_path: Path) -> None:
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "shop" / "cart.py").write_text(
        "from shop.billing import charge\n\n\n"
        "def checkout(items):\n    total = sum(items)\n    return charge(total)\n")
    (root / "shop" / "billing.py").write_text(
        "def audit():\n    return True\n\n\n\n\n\n"
        "def charge(amount):\n    raise ValueError('negative')\n")
    (root / "docs" / "ledger.md").write_text(
        "# The refund ledger\n\nA negative amount in the refund ledger is a ValueError; the refund ledger "
        "keeps every negative amount of the ledger.\n")
    index.add_source(root, name="shop", kind="code")
    index.index()
    plain = index.locate("ValueError: negative amount in the refund ledger", limit=3)
    assert plain.files[0].path == "docs/ledger.md" and not plain.files[0].frames
    found = index.locate(PYTHON_TRACE, limit=3)
    assert [(f.path, f.frames) for f in found.files][:2] == [("shop/billing.py", (9,)), ("shop/cart.py", (6,))]
    billing = found.files[0]
    assert billing.chunks[0].start_line <= 9 <= billing.chunks[0].end_line and billing.chunks[0].text
    assert "charge" in billing.symbols
    done = CliRunner().invoke(cli, ["--db", str(index.db_path), "locate", "-", "--json", "-n", "3"], input=PYTHON_TRACE)
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [(f["path"], f["frames"]) for f in data["files"]][:2] == [("shop/billing.py", [9]), ("shop/cart.py", [6])]
    text = CliRunner().invoke(cli, ["--db", str(index.db_path), "locate", "-", "-n", "2"], input=PYTHON_TRACE)
    assert "stack trace: line 9" in text.output
