"""`mindex models add`: a sentence-transformers (BERT-family) folder becomes an int8 ONNX model.

No torch: the safetensors weights are read with numpy and the encoder graph is written with
the `onnx` package's helpers (standard opset-17 operators), then quantised dynamically
**per channel** (per-tensor int8 drags vectors to cosine ~0.90 of the original; per-channel
stays above 0.988). A `*ForSequenceClassification` checkpoint (a cross-encoder) gets its pooler
and classifier, with `logits` as the output. Other architectures need an ONNX export made
elsewhere (e.g. optimum); pass that folder to `models add` and it is quantised and cached.
"""

from __future__ import annotations

import json
import logging
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindex.errors import ConfigError, DependencyMissingError

Array = npt.NDArray[Any]
_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path) -> dict[str, Array]:
    """Tensors of a `.safetensors` file as numpy arrays (float32 for floating types).

    Raises:
        ConfigError: the file is not safetensors, or uses a dtype numpy cannot hold.
    """
    data = path.read_bytes()
    try:
        (size,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + size])
    except (struct.error, ValueError):
        raise ConfigError(f"{path} is not a safetensors file") from None
    base = 8 + size
    out: dict[str, Array] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = data[base + start : base + end]
        if info["dtype"] == "BF16":  # bfloat16 is the top half of a float32
            halves = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            array: Array = halves.view(np.float32)
        elif info["dtype"] in _DTYPES:
            array = np.frombuffer(raw, dtype=np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<"))
        else:
            raise ConfigError(f"{path}: tensor {name} has dtype {info['dtype']}, which mindex cannot read")
        if array.dtype.kind == "f":
            array = array.astype(np.float32)
        out[name] = array.reshape(info["shape"])
    return out


class _Graph:
    """A tiny builder: named nodes and initializers, unique names."""

    def __init__(self, onnx: Any) -> None:
        self.onnx, self.helper = onnx, onnx.helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0

    def const(self, name: str, value: Array | np.floating[Any]) -> str:
        self.inits.append(self.onnx.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, **attrs: Any) -> str:
        self._n += 1
        out = f"{kind.lower()}_{self._n}"
        self.nodes.append(self.helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, weights: dict[str, Array], prefix: str) -> str:
        # torch Linear keeps weight as (out, in); MatMul wants (in, out).
        w = self.const(prefix + ".weight", np.ascontiguousarray(weights[prefix + ".weight"].T))
        b = self.const(prefix + ".bias", weights[prefix + ".bias"])
        return self.op("Add", self.op("MatMul", x, w), b)

    def layer_norm(self, x: str, weights: dict[str, Array], prefix: str, eps: float) -> str:
        gamma = self.const(prefix + ".weight", weights[prefix + ".weight"])
        beta = self.const(prefix + ".bias", weights[prefix + ".bias"])
        return self.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=eps)


def _gelu(g: _Graph, x: str, kind: str) -> str:
    if kind == "gelu":  # exact: x/2 * (1 + erf(x/sqrt 2))
        inner = g.op("Erf", g.op("Mul", x, g.const(f"rsqrt2_{g._n}", np.float32(1 / math.sqrt(2)))))
    elif kind in ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"):
        cube = g.op("Mul", g.op("Mul", x, x), x)
        poly = g.op("Add", x, g.op("Mul", cube, g.const(f"c_{g._n}", np.float32(0.044715))))
        inner = g.op("Tanh", g.op("Mul", poly, g.const(f"s_{g._n}", np.float32(math.sqrt(2 / math.pi)))))
    else:
        raise ConfigError(f"activation {kind!r} is not supported by the built-in converter")
    one_plus = g.op("Add", inner, g.const(f"one_{g._n}", np.float32(1.0)))
    return g.op("Mul", g.op("Mul", x, one_plus), g.const(f"half_{g._n}", np.float32(0.5)))


def bert_onnx(weights: dict[str, Array], config: dict[str, Any]) -> Any:
    """An ONNX model of a BERT encoder (and its classification head, if it has one).

    Inputs `input_ids`, `attention_mask`, `token_type_ids` (int64, batch × sequence); output
    `last_hidden_state`, or `logits` for a sequence-classification checkpoint. A word table
    given as `embeddings.word_embeddings.blocks` (int8, rows × hidden) and `.scales` (float32,
    rows × hidden/32) stays in that form and is scaled after the lookup.
    """
    try:
        import onnx
    except ImportError:
        raise DependencyMissingError("onnx", "models", "converting models") from None
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    eps, head_dim = float(config.get("layer_norm_eps", 1e-12)), hidden // heads
    g = _Graph(onnx)
    emb = prefix + "embeddings."
    blocks = weights.get(emb + "word_embeddings.blocks")
    if blocks is not None:  # 4-bit rows kept as they came (int8 values, a float32 scale per 32): exact, 4x smaller
        scales = weights[emb + "word_embeddings.scales"]
        values = g.op("Cast", g.op("Gather", g.const("word_blocks", blocks), "input_ids"), to=onnx.TensorProto.FLOAT)
        row_scales = g.op("Unsqueeze", g.op("Gather", g.const("word_scales", scales), "input_ids"),
                          g.const("axes_last", np.array([-1], dtype=np.int64)))
        split_blocks = g.const("split_blocks", np.array([0, 0, scales.shape[1], -1], dtype=np.int64))
        words = g.op("Reshape", g.op("Mul", g.op("Reshape", values, split_blocks), row_scales),
                     g.const("merge_blocks", np.array([0, 0, hidden], dtype=np.int64)))
    else:
        words = g.op("Gather", g.const("word_embeddings", weights[emb + "word_embeddings.weight"]), "input_ids")
    length = g.op("Gather", g.op("Shape", "input_ids"), g.const("one_i", np.array(1, dtype=np.int64)))
    positions = g.op("Range", g.const("zero_i", np.array(0, dtype=np.int64)), length, "one_i")
    pos = g.op("Gather", g.const("position_embeddings", weights[emb + "position_embeddings.weight"]), positions)
    types = g.op("Gather", g.const("token_type_embeddings", weights[emb + "token_type_embeddings.weight"]), "token_type_ids")
    x = g.layer_norm(g.op("Add", g.op("Add", words, pos), types), weights, emb + "LayerNorm", eps)
    # Padding positions get a large negative score before the softmax.
    keep = g.op("Cast", "attention_mask", to=onnx.TensorProto.FLOAT)
    bias = g.op("Mul", g.op("Sub", g.const("one_f", np.float32(1.0)), keep), g.const("neg", np.float32(-1e4)))
    bias = g.op("Unsqueeze", bias, g.const("axes_12", np.array([1, 2], dtype=np.int64)))
    split = g.const("split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge = g.const("merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = g.const("scale", np.float32(1 / math.sqrt(head_dim)))
    for i in range(int(config["num_hidden_layers"])):
        layer = f"{prefix}encoder.layer.{i}."
        q, k, v = (g.op("Reshape", g.linear(x, weights, layer + f"attention.self.{n}"), split) for n in ("query", "key", "value"))
        q = g.op("Transpose", q, perm=[0, 2, 1, 3])
        k = g.op("Transpose", k, perm=[0, 2, 3, 1])
        v = g.op("Transpose", v, perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), bias)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
        attended = g.linear(context, weights, layer + "attention.output.dense")
        x = g.layer_norm(g.op("Add", attended, x), weights, layer + "attention.output.LayerNorm", eps)
        inner = _gelu(g, g.linear(x, weights, layer + "intermediate.dense"), config.get("hidden_act", "gelu"))
        out = g.linear(inner, weights, layer + "output.dense")
        x = g.layer_norm(g.op("Add", out, x), weights, layer + "output.LayerNorm", eps)
    name = "last_hidden_state"
    if "classifier.weight" in weights:
        first = g.op("Gather", x, "zero_i", axis=1)
        pooled = g.op("Tanh", g.linear(first, weights, prefix + "pooler.dense"))
        x, name = g.linear(pooled, weights, "classifier"), "logits"
    g.nodes.append(onnx.helper.make_node("Identity", [x], [name]))
    ints = [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.INT64, ["batch", "sequence"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    shape: list[str | int] = ["batch", "sequence", hidden] if name == "last_hidden_state" else ["batch", weights["classifier.weight"].shape[0]]
    output = onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, shape)
    graph = onnx.helper.make_graph(g.nodes, "mindex-bert", ints, [output], g.inits)
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8  # readable by onnxruntime 1.14 and later
    onnx.checker.check_model(model)
    return model


def quantize_per_channel(source: Path, target: Path) -> None:
    """Dynamic int8 quantisation, per output channel, of the MatMuls with constant weights."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise DependencyMissingError("onnx", "models", "quantising models") from None
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser logs advice on the root logger
    try:
        quantize_dynamic(
            source, target, per_channel=True, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
            # Attention's activation × activation MatMuls stay float: quantising them costs quality.
            extra_options={"MatMulConstBOnly": True},
        )
    finally:
        root.setLevel(level)
