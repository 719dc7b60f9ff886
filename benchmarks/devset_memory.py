"""Build the memory-retrieval dev set: REALTALK's ten real 21-day chats as memory journals,
and its memory-probing questions judged by the single messages that hold the evidence.

Origin: REALTALK (Lee, Maharana, Pujara, Ren, Barbieri, 2025, arXiv:2502.13270),
github.com/danny911kr/REALTALK at the commit pinned below; only `data/Chat_*.json` is read
(its `data/locomo/` copy of LoCoMo is never opened: LoCoMo is kept for independent checks).
Licence: the repository states none. Nothing from it is committed here: this script reads a
local clone, checks each file's sha256, and writes the journals and the queries under
`benchmarks/.cache/memory` (git-ignored: `journal/*.md` and `memory.jsonl`); only the script and the scores are in the project.

Each message becomes one journal entry (`.mindex/memory` format): its own time, type `chat`,
tags `chat-N` (the conversation) and the speaker's name (as an agent saving a conversation
would tag it; `--no-speaker` leaves it out, for the ablation in benchmarks/README.md). Each question is
one query; its judgements are the evidence messages (`dia_id`s; ids the data misspells, such
as `D5:3.`, are cleaned; questions left with no evidence are dropped), as line spans of the
journal, so mindex and the baselines are judged alike (turn level, not session level).

    git clone https://github.com/danny911kr/REALTALK /tmp/REALTALK   # at PINNED_COMMIT
    python benchmarks/devset_memory.py --realtalk /tmp/REALTALK [--no-speaker] [--out DIR]
    python benchmarks/devset_memory.py --realtalk /tmp/REALTALK --year    # the 12-month set

`--year` builds the **12-month set** (`.cache/memory-year`, `memory-year.jsonl`): the same
messages and questions, each conversation's times stretched linearly over the 365 days that
end on `YEAR_END` (order and gaps kept, 21 days become a year), so a journal spans a year
and its questions are about any part of it. A date a question names still points at the
chat's original days (December 2023 to February 2024), outside the stretched year: the date
reading finds nothing there and searches every date, as a user's wrong date would.

Each query line carries `"filter": {"tags": ["chat-N"]}`, so `mindex eval` scopes it the same
way: `mindex --db DB eval benchmarks/.cache/memory/memory.jsonl --kind memory --compare
keyword,semantic,hybrid+nodecay,hybrid` on an index of `benchmarks/.cache/memory/journal` added
with `--kind memory`.

The output is deterministic.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))

from mindex.memory import journal  # noqa: E402

PINNED_COMMIT = "b903e06"  # "feat: data analysis", the newest commit of github.com/danny911kr/REALTALK
FILES = {  # data/<name>: sha256
    "Chat_1_Emi_Elise.json": "4e947998a751a1ba2c3710fc873b90fbcbc234fda7a5e4e75db2b762e0f25a36",
    "Chat_2_Kevin_Elise.json": "4ac6e319c206731aa9a025c93325eb1edb43686cf39473f058c87ae7deb2d62a",
    "Chat_3_Kevin_Paola.json": "10c9208016538cbe7a28aafa6cfd72587b072677964c36ec242159fdf58961f2",
    "Chat_4_Emi_Paola.json": "80aa012ed6a918f5b317bd942b4d4811a158d27a6e07b7a5c6182994107a9367",
    "Chat_5_Nicolas_Nebraas.json": "32dd7c45786b1a26861dc1574a1bb698a855196fd2ae3fc0c091f3c9ab2d6d06",
    "Chat_6_Vanessa_Nicolas.json": "9d5ee072ab5a0667ef71d5644d7cd3a4c6777a1e6e2252bf306f310d982e40ac",
    "Chat_7_Nebraas_Vanessa.json": "b5716bb093217980e747dec0d98996829b569febc09587a025efc6b79806e9ce",
    "Chat_8_Akib_Muhhamed.json": "814f64ad7e8a46f0398f550fe84184e2ba495a292290b9ff96ffc95448280800",
    "Chat_9_Fahim_Akib.json": "05b9b4331bf0e25a2a64dc89c404622c83a61ab5e7c935fb7d844449caf6dd39",
    "Chat_10_Fahim_Muhhamed.json": "26135a9e3482f40bea4c71de570a2d994a361848111067e60587be1dd82a0127",
}
YEAR_END = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)  # the 12-month set's last moment
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "commonsense"}  # REALTALK's memory-probing categories
_DIA = re.compile(r"D\d+:\d+")


def read_chat(folder: Path, name: str) -> dict:
    """One chat file, checked against its pinned sha256."""
    for candidate in (folder / "data" / name, folder / name):
        if candidate.is_file():
            data = candidate.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if digest != FILES[name]:
                sys.exit(f"{candidate}: sha256 {digest} is not the pinned {FILES[name]}; check out {PINNED_COMMIT}")
            return json.loads(data)
    sys.exit(f"{name} not found in {folder} or {folder / 'data'}; clone github.com/danny911kr/REALTALK first")


def messages(chat: dict) -> list[dict]:
    """Every message of a chat in order, with a parsed time (the data's `dd.mm.yyyy, HH:MM:SS`)."""
    out = []
    numbered = sorted((int(k.split("_")[1]), v) for k, v in chat.items()
                      if re.fullmatch(r"session_\d+", k) and isinstance(v, list))
    for _, session in numbered:
        for turn in session:
            text = (turn.get("clean_text") or "").strip()
            if not text:
                continue
            at = datetime.strptime(turn["date_time"], "%d.%m.%Y, %H:%M:%S").replace(tzinfo=timezone.utc)
            out.append({"dia": turn["dia_id"].strip(), "speaker": turn["speaker"].strip(), "at": at, "text": text})
    return out


def text_span(entry: journal.Entry) -> tuple[int, int]:
    """The first and last lines of an entry's text, as the memory source numbers them."""
    first = entry.line + 2 + (1 if entry.tags else 0) + (1 if entry.files else 0) + 1
    return first, first + entry.text.count("\n")


def write_month(journals: Path, rel: str, items: list[tuple[Any, journal.Entry]]) -> list[tuple[Any, dict]]:
    """Write one month's journal file; return each item's payload with its entry's text span."""
    (journals / rel).write_text("".join(journal.render(e) for _, e in items), encoding="utf-8")
    parsed = journal.parse((journals / rel).read_text(encoding="utf-8"), rel)
    assert len(parsed.entries) == len(items) and not parsed.problems, parsed.problems[:3]
    return [(payload, dict(zip(("path", "start_line", "end_line"), (rel, *text_span(entry)), strict=True)))
            for (payload, _), entry in zip(items, parsed.entries, strict=True)]


def stretched(msgs: list[dict], days: float) -> list[dict]:
    """The messages with their times spread linearly over `days` ending at YEAR_END."""
    first, last = msgs[0]["at"], msgs[-1]["at"]
    scale = days * 86400 / max(1.0, (last - first).total_seconds())
    return [{**m, "at": YEAR_END - (last - m["at"]) * scale} for m in msgs]


def build(folder: Path, out: Path, speaker: bool, year: bool = False) -> tuple[int, int]:
    """Write the journals and memory.jsonl (memory-year.jsonl with `year`) under `out`;
    return (entries, queries)."""
    journals = out / "journal"
    journals.mkdir(parents=True, exist_ok=True)
    for stale in journals.glob("*.md"):
        stale.unlink()
    queries = []
    entries = 0
    for number, name in enumerate(FILES, 1):
        chat = read_chat(folder, name)
        tag = f"chat-{number}"
        by_month: dict[str, list[tuple[dict, journal.Entry]]] = defaultdict(list)
        msgs = messages(chat)
        for i, msg in enumerate(stretched(msgs, 365) if year else msgs):
            tags = (tag, msg["speaker"].lower()) if speaker else (tag,)
            entry = journal.Entry(f"rt{number}-{i:05d}", msg["at"], "chat", msg["text"], tags)
            by_month[f"{tag}-{msg['at']:%Y-%m}"].append((msg, entry))
        spans: dict[str, list[dict]] = defaultdict(list)  # dia_id -> its spans (a few ids repeat)
        for stem, items in sorted(by_month.items()):
            for msg, span in write_month(journals, f"{stem}.md", items):
                spans[msg["dia"]].append(span)
            entries += len(items)
        for k, qa in enumerate(chat["qa"]):
            evidence = dict.fromkeys(m.group(0) for e in qa.get("evidence", []) for m in [_DIA.search(e)] if m)
            relevant = [span for dia in evidence for span in spans.get(dia, [])]
            if not relevant:
                continue
            queries.append({"qid": f"rt{number}-{k:03d}", "query": qa["question"].strip(), "relevant": relevant,
                            "filter": {"tags": [tag]}, "tag": tag, "chat": number,
                            "category": CATEGORIES.get(qa.get("category"), str(qa.get("category")))})
    with (out / ("memory-year.jsonl" if year else "memory.jsonl")).open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    return entries, len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--realtalk", type=Path, required=True, help="a clone of github.com/danny911kr/REALTALK")
    parser.add_argument("--out", type=Path, help="default: .cache/memory (.cache/memory-year with --year)")
    parser.add_argument("--year", action="store_true", help="stretch each chat over 12 months (the 12-month set)")
    parser.add_argument("--no-speaker", dest="speaker", action="store_false",
                        help="do not tag each entry with its speaker's name")
    args = parser.parse_args()
    out = args.out or HERE / ".cache" / ("memory-year" if args.year else "memory")
    entries, count = build(args.realtalk, out, args.speaker, args.year)
    print(f"{entries} journal entries, {count} queries in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
