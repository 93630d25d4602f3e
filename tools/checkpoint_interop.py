#!/usr/bin/python3
"""Moves a Transformer between PyTorch and the C++ checkpoint directory (tfm/machinery/checkpoint.hpp).

A C++ checkpoint is a directory:

    config.txt                  "# preset NAME", then key=value for every tfm::Config key
    src_vocabulary.txt          tfm::Vocabulary::save: "# tfm vocabulary v1 characters|words",
    tgt_vocabulary.txt          then one symbol per line in id order (\\\\ \\s \\xNN escapes)
    parameters/<name>.npy       float32, C order, one file per PyTorch state_dict entry
    optimizer/...               Adam's state (C++ training only; ignored here)

The parameter names are those of tools/reference_transformer.py's ReferenceTransformer, the
PyTorch twin of the C++ model, so moving weights is a matter of file names.

Usage (Debian's /usr/bin/python3 with python3-torch and python3-numpy):

  export: PyTorch weights -> C++ checkpoint
    checkpoint_interop.py export OUT_DIR [--config FILE] [--set KEY=VALUE ...]
                                 [--state-dict FILE.pt | --seed N]
                                 [--src-vocabulary SPEC] [--tgt-vocabulary SPEC]
      The configuration starts from the C++ `tiny` defaults, then FILE (key=value lines, e.g. a
      checkpoint's config.txt), then every --set. The weights come from a state_dict saved with
      torch.save(model.state_dict(), FILE.pt) (every name and shape checked), or from a freshly
      initialised ReferenceTransformer (torch.manual_seed(N)). A vocabulary SPEC is a file in
      Vocabulary::save's format, "chars:abc" (one symbol per character) or "words:ich du er";
      without one, placeholder words w4, w5, ... fill the configured vocabulary size.
      OUT_DIR must not exist yet, or be a checkpoint (it is then replaced) or an empty directory.

  import: C++ checkpoint -> PyTorch, with the logits for given token ids
    checkpoint_interop.py import CKPT_DIR [--src IDS --tgt IDS] [--double]
                                 [--save-logits FILE.npy] [--save-state-dict FILE.pt]
      Loads every parameters/<name>.npy into a ReferenceTransformer (missing, extra, wrongly
      shaped or non-float32 files are errors) in evaluation mode. IDS are rows of token ids,
      "1 4 5 6, 1 7 0 0" (rows separated by commas, equal lengths; pad with 0). It prints the
      logits [B, T, tgt_vocab] and the most likely next token of every position.

Examples:
    /usr/bin/python3 tools/checkpoint_interop.py export /tmp/ckpt --set d_model=32 --set n_heads=4 --seed 1
    /usr/bin/python3 tools/checkpoint_interop.py import /tmp/ckpt --src "4 5 6" --tgt "1 4 5"
"""
import argparse
import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_transformer import ReferenceTransformer  # noqa: E402


class InteropError(Exception):
    """A problem with a configuration, a vocabulary or a checkpoint; the message says which."""


# ---- config.txt --------------------------------------------------------------------------------

# tfm::Config's keys in declaration order (Config::keys()), with the `tiny` preset's values.
# When Config gains a key, add it here too; until then exports leave it out (C++ then uses its
# default) and imports ignore it with a note.
DEFAULTS = {
    "src_vocab_size": 16, "tgt_vocab_size": 16, "d_model": 16, "n_heads": 2,
    "n_encoder_layers": 2, "n_decoder_layers": 2, "d_ff": 32, "dropout": 0.1,
    "attention_bias": True, "linear_bias": True, "shared_embedding": False,
    "scaled_embedding_init": False, "max_len": 512, "src_len": 8, "tgt_len": 8,
    "batch_size": 4, "learning_rate": 1e-3, "warmup_steps": 0, "label_smoothing": 0.0,
    "clip_norm": 1.0, "seed": 1,
}
# The keys that define the network; a checkpoint must have them all (the C++ reader agrees).
MODEL_KEYS = ["src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "n_encoder_layers",
              "n_decoder_layers", "d_ff", "attention_bias", "linear_bias", "shared_embedding", "max_len"]


def parse_value(key, text):
    """One value as Config::set parses it: whole numbers, floats, 0/1 (or true/false) flags."""
    kind = type(DEFAULTS[key])
    try:
        if kind is bool:
            if text in ("1", "true", "yes"):
                return True
            if text in ("0", "false", "no"):
                return False
            raise ValueError
        value = kind(text)
        if kind is int and value < 0:
            raise ValueError
        return value
    except ValueError:
        raise InteropError(f"config key '{key}' needs {kind.__name__}, got '{text}'") from None


def format_value(value):
    """A value as Config::get writes it: flags as 0/1, floats as C++'s `out << float` ('%g')."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return "%g" % float(np.float32(value))
    return str(value)


def validate(config):
    """The checks of Config::validate that building the model depends on (the C++ reader checks
    the rest when it loads the checkpoint)."""
    for key in MODEL_KEYS + ["src_len", "tgt_len", "batch_size"]:
        if type(DEFAULTS[key]) is int and config[key] == 0:
            raise InteropError(f"invalid config: {key} must be at least 1")
    if config["d_model"] % config["n_heads"]:
        raise InteropError(f"invalid config: d_model ({config['d_model']}) must be divisible by "
                           f"n_heads ({config['n_heads']})")
    if not 0.0 <= config["dropout"] < 1.0:
        raise InteropError("invalid config: dropout must be in [0, 1)")
    if config["shared_embedding"] and config["src_vocab_size"] != config["tgt_vocab_size"]:
        raise InteropError("invalid config: shared_embedding needs src_vocab_size == tgt_vocab_size")
    if max(config["src_len"], config["tgt_len"]) > config["max_len"]:
        raise InteropError("invalid config: src_len and tgt_len must not exceed max_len")


def read_config(path, checkpoint=False):
    """Reads key=value lines over the defaults; returns (preset, config). For a checkpoint's
    config.txt every model key must be there, and keys newer than this tool are ignored (they
    steer C++ training only); anywhere else an unknown key is an error."""
    config = dict(DEFAULTS)
    preset, seen, ignored = "tiny", set(), []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            line = line.rstrip("\r\n")
            if line.startswith("# preset "):
                preset = line[len("# preset "):]
                continue
            if not line or line.startswith("#"):
                continue
            key, eq, text = line.partition("=")
            where = f"{path}, line {number}: "
            if not eq or not key:
                raise InteropError(where + f"expected key=value, got '{line}'")
            if key in seen:
                raise InteropError(where + f"key '{key}' is set twice")
            seen.add(key)
            if key in DEFAULTS:
                config[key] = parse_value(key, text)
            elif checkpoint:
                ignored.append(key)
            else:
                raise InteropError(where + f"unknown config key '{key}'")
    missing = [key for key in MODEL_KEYS if key not in seen]
    if checkpoint and missing:
        raise InteropError(f"{path}: missing key '{missing[0]}'")
    if ignored:
        print(f"note: {path}: ignoring keys this tool does not know: {', '.join(ignored)}", file=sys.stderr)
    validate(config)
    return preset, config


def config_text(preset, config):
    """config.txt exactly as the C++ save_checkpoint writes it, with its "# model as saved:" record
    of the model keys (the C++ reader refuses a config.txt without it)."""
    record = " ".join(f"{key}={format_value(config[key])}" for key in DEFAULTS if key in MODEL_KEYS)
    return (f"# preset {preset}\n" + "".join(f"{key}={format_value(config[key])}\n" for key in DEFAULTS)
            + f"# model as saved: {record}\n")


# ---- vocabularies ------------------------------------------------------------------------------

RESERVED = ["<pad>", "<bos>", "<eos>", "<unk>"]
VOCABULARY_HEADER = "# tfm vocabulary v1 "


class Vocabulary:
    """tokenization ('characters' or 'words') and every symbol in id order, reserved ones first."""

    def __init__(self, tokenization, symbols):
        if tokenization not in ("characters", "words"):
            raise InteropError(f"unknown tokenization '{tokenization}'")
        symbols = list(symbols)
        for symbol in symbols:
            if not symbol or symbol in RESERVED:
                raise InteropError(f"vocabulary symbol {symbol!r} is empty or reserved")
            if tokenization == "characters" and len(symbol) != 1:
                raise InteropError(f"vocabulary symbol {symbol!r} is not a single character")
            if tokenization == "words" and any(c.isspace() for c in symbol):
                raise InteropError(f"vocabulary word {symbol!r} contains whitespace")
        if len(set(symbols)) != len(symbols):
            raise InteropError("a vocabulary symbol is given twice")
        self.tokenization, self.symbols = tokenization, RESERVED + symbols

    def __len__(self):
        return len(self.symbols)

    def save(self, path):
        """Vocabulary::save's bytes: backslash -> \\\\, space -> \\s, control bytes -> \\xNN."""
        lines = [(VOCABULARY_HEADER + self.tokenization).encode()]
        for symbol in self.symbols:
            out = bytearray()
            for byte in symbol.encode("utf-8", "surrogateescape"):
                if byte == 0x5C:
                    out += b"\\\\"
                elif byte == 0x20:
                    out += b"\\s"
                elif byte < 0x20 or byte == 0x7F:
                    out += b"\\x%02x" % byte
                else:
                    out.append(byte)
            lines.append(bytes(out))
        with open(path, "wb") as f:
            f.write(b"".join(line + b"\n" for line in lines))

    @staticmethod
    def load(path):
        """Reads a file Vocabulary::save wrote (the inverse of save)."""
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        header = lines[0].decode("utf-8", "replace") if lines else ""
        if not header.startswith(VOCABULARY_HEADER):
            raise InteropError(f"{path}: expected the header '{VOCABULARY_HEADER}characters|words'")
        symbols = [unescape(line, path, number) for number, line in enumerate(lines[1:], start=2)]
        if symbols[:4] != RESERVED:
            raise InteropError(f"{path}: the first four symbols must be {' '.join(RESERVED)}")
        return Vocabulary(header[len(VOCABULARY_HEADER):], symbols[4:])


def unescape(line, path, number):
    out, i = bytearray(), 0
    while i < len(line):
        if line[i:i + 1] != b"\\":
            out.append(line[i])
            i += 1
        elif line[i + 1:i + 2] in (b"\\", b"s"):
            out += b"\\" if line[i + 1:i + 2] == b"\\" else b" "
            i += 2
        elif line[i + 1:i + 2] == b"x" and len(line) >= i + 4:
            out.append(int(line[i + 2:i + 4], 16))
            i += 4
        else:
            raise InteropError(f"{path}, line {number}: unknown escape")
    return out.decode("utf-8", "surrogateescape")


def vocabulary_from_spec(spec, size):
    """A vocabulary from "chars:abc", "words:a b c", a vocabulary file, or placeholders (None)."""
    if spec is None:
        return Vocabulary("words", [f"w{i}" for i in range(len(RESERVED), size)])
    if spec.startswith("chars:"):
        return Vocabulary("characters", list(spec[len("chars:"):]))
    if spec.startswith("words:"):
        return Vocabulary("words", spec[len("words:"):].split())
    return Vocabulary.load(spec)


# ---- export ------------------------------------------------------------------------------------

def shorten(names, keep=4):
    """A list of names for a message: all of a short one, the first `keep` of a long one."""
    return str(names) if len(names) <= keep else f"{names[:keep]} and {len(names) - keep} more"


def reference_model(config, state_dict=None, seed=0):
    """A float32 ReferenceTransformer: from `state_dict` (checked by name and shape) or seeded."""
    torch.manual_seed(seed)
    model = ReferenceTransformer(config).float()
    if state_dict is None:
        if config["scaled_embedding_init"]:  # the C++ option: N(0, 1/d_model) embeddings
            with torch.no_grad():
                for name, p in model.named_parameters():
                    if name.endswith("embedding.weight"):
                        p.normal_(0.0, config["d_model"] ** -0.5)
        return model
    expected = model.state_dict()
    missing = sorted(set(expected) - set(state_dict))
    extra = sorted(set(state_dict) - set(expected))
    if missing or extra:
        raise InteropError(f"the state_dict does not fit the configuration: missing {shorten(missing)}, "
                           f"extra {shorten(extra)}")
    for name, tensor in state_dict.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise InteropError(f"state_dict entry '{name}' has shape {list(tensor.shape)}, "
                               f"the configuration needs {list(expected[name].shape)}")
    model.load_state_dict({name: t.float() for name, t in state_dict.items()})
    return model


def export_checkpoint(out_dir, model, config, preset="tiny", src_vocabulary=None, tgt_vocabulary=None):
    """Writes `model` (a ReferenceTransformer built from `config`) as a C++ checkpoint directory.

    Like the C++ save, everything goes to a temporary sibling directory first, which then
    replaces `out_dir`; an existing `out_dir` must be a checkpoint or empty."""
    validate(config)
    src_vocabulary = src_vocabulary or vocabulary_from_spec(None, config["src_vocab_size"])
    tgt_vocabulary = tgt_vocabulary or vocabulary_from_spec(None, config["tgt_vocab_size"])
    for side, vocabulary in (("src", src_vocabulary), ("tgt", tgt_vocabulary)):
        if len(vocabulary) > config[side + "_vocab_size"]:
            raise InteropError(f"the {side} vocabulary has {len(vocabulary)} symbols but "
                               f"{side}_vocab_size is {config[side + '_vocab_size']}")
    out_dir = os.path.abspath(out_dir.rstrip("/") or "/")
    if os.path.exists(out_dir) and not (os.path.isdir(out_dir) and (
            os.path.exists(os.path.join(out_dir, "config.txt")) or not os.listdir(out_dir))):
        raise InteropError(f"'{out_dir}' exists and is not a checkpoint or an empty directory")

    staging = f"{out_dir}.saving.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        os.makedirs(os.path.join(staging, "parameters"))
        with open(os.path.join(staging, "config.txt"), "w", encoding="utf-8", newline="\n") as f:
            f.write(config_text(preset, config))
        src_vocabulary.save(os.path.join(staging, "src_vocabulary.txt"))
        tgt_vocabulary.save(os.path.join(staging, "tgt_vocabulary.txt"))
        for name, tensor in model.state_dict().items():
            array = np.ascontiguousarray(tensor.detach().cpu().numpy().astype(np.float32))
            np.save(os.path.join(staging, "parameters", name + ".npy"), array)
        previous = f"{out_dir}.previous.{os.getpid()}"
        replacing = os.path.exists(out_dir)
        if replacing:
            os.rename(out_dir, previous)
        try:
            os.rename(staging, out_dir)
        except OSError:
            if replacing:
                os.rename(previous, out_dir)
            raise
        if replacing:
            shutil.rmtree(previous, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# ---- import ------------------------------------------------------------------------------------

def import_checkpoint(ckpt_dir, dtype=torch.float32):
    """Loads a C++ checkpoint into a ReferenceTransformer in evaluation mode.

    Returns (model, config, src_vocabulary, tgt_vocabulary). Every parameter file is checked:
    no missing or extra names, float32, C order, the model's shape."""
    if not os.path.isdir(ckpt_dir):
        raise InteropError(f"no checkpoint directory '{ckpt_dir}'")
    _, config = read_config(os.path.join(ckpt_dir, "config.txt"), checkpoint=True)
    src_vocabulary = Vocabulary.load(os.path.join(ckpt_dir, "src_vocabulary.txt"))
    tgt_vocabulary = Vocabulary.load(os.path.join(ckpt_dir, "tgt_vocabulary.txt"))
    model = ReferenceTransformer(config)
    expected = model.state_dict()
    folder = os.path.join(ckpt_dir, "parameters")
    files = {f[:-len(".npy")] for f in os.listdir(folder) if f.endswith(".npy")}
    others = sorted(f for f in os.listdir(folder) if not f.endswith(".npy"))
    missing, extra = sorted(set(expected) - files), sorted(files - set(expected))
    if missing or extra or others:
        raise InteropError(f"checkpoint '{ckpt_dir}' does not fit its configuration: "
                           f"missing {shorten(missing)}, extra {shorten(extra + others)}")
    state = {}
    for name, tensor in expected.items():
        path = os.path.join(folder, name + ".npy")
        try:
            array = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as e:  # e.g. a truncated file: numpy cannot reshape it
            raise InteropError(f"'{path}' is not a readable .npy file: {e}") from None
        if array.dtype != np.float32 or not array.flags.c_contiguous:
            raise InteropError(f"'{path}' holds {array.dtype} (C order: {array.flags.c_contiguous}), "
                               "expected float32 in C order")
        if tuple(array.shape) != tuple(tensor.shape):
            raise InteropError(f"'{path}' has shape {list(array.shape)}, the model needs {list(tensor.shape)}")
        state[name] = torch.from_numpy(array)
    model.load_state_dict(state)
    model.to(dtype).eval()
    return model, config, src_vocabulary, tgt_vocabulary


def parse_ids(text, vocab_size, what):
    """ "1 4 5, 1 6 0" -> LongTensor [2, 3]; ids checked against the vocabulary size."""
    rows = [[int(token) for token in row.split()] for row in text.split(",")]
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise InteropError(f"--{what}: rows of equal, non-zero length are needed, got '{text}'")
    ids = torch.tensor(rows, dtype=torch.long)
    if ids.min() < 0 or ids.max() >= vocab_size:
        raise InteropError(f"--{what}: ids must lie in [0, {vocab_size})")
    return ids


# ---- command line ------------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(prog="checkpoint_interop.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    export = commands.add_parser("export", help="PyTorch weights -> C++ checkpoint directory")
    export.add_argument("out_dir")
    export.add_argument("--config", help="key=value file applied over the tiny defaults")
    export.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    source = export.add_mutually_exclusive_group()
    source.add_argument("--state-dict", help="torch.save(model.state_dict()) file to export")
    source.add_argument("--seed", type=int, default=0, help="initialise a fresh model (default 0)")
    export.add_argument("--src-vocabulary", metavar="SPEC", help="FILE, 'chars:abc' or 'words:a b'")
    export.add_argument("--tgt-vocabulary", metavar="SPEC")

    load = commands.add_parser("import", help="C++ checkpoint directory -> PyTorch, with logits")
    load.add_argument("ckpt_dir")
    load.add_argument("--src", help="source ids, e.g. '4 5 6, 7 8 0'")
    load.add_argument("--tgt", help="target input ids, e.g. '1 4 5, 1 7 0'")
    load.add_argument("--double", action="store_true", help="compute in float64")
    load.add_argument("--save-logits", metavar="FILE.npy")
    load.add_argument("--save-state-dict", metavar="FILE.pt")
    args = parser.parse_args(argv)

    try:
        if args.command == "export":
            preset, config = ("tiny", dict(DEFAULTS)) if not args.config else read_config(args.config)
            for assignment in args.set:
                key, eq, text = assignment.partition("=")
                if not eq or key not in DEFAULTS:
                    raise InteropError(f"--set needs KEY=VALUE with a known key, got '{assignment}'")
                config[key] = parse_value(key, text)
            validate(config)
            state_dict = None
            if args.state_dict:
                state_dict = torch.load(args.state_dict, map_location="cpu")
                if not all(isinstance(t, torch.Tensor) for t in state_dict.values()):
                    raise InteropError(f"'{args.state_dict}' is not a state_dict (name -> tensor)")
            model = reference_model(config, state_dict, args.seed)
            export_checkpoint(args.out_dir, model, config, preset,
                              vocabulary_from_spec(args.src_vocabulary, config["src_vocab_size"]),
                              vocabulary_from_spec(args.tgt_vocabulary, config["tgt_vocab_size"]))
            count = sum(p.numel() for p in model.parameters())
            print(f"wrote {args.out_dir}: {len(model.state_dict())} parameters ({count} numbers)")
            return 0

        dtype = torch.float64 if args.double else torch.float32
        model, config, _, tgt_vocabulary = import_checkpoint(args.ckpt_dir, dtype)
        count = sum(p.numel() for p in model.parameters())
        print(f"loaded {args.ckpt_dir}: {len(model.state_dict())} parameters ({count} numbers), "
              f"d_model {config['d_model']}, {config['n_encoder_layers']}+{config['n_decoder_layers']} layers")
        if args.save_state_dict:
            torch.save(model.state_dict(), args.save_state_dict)
            print(f"saved the state_dict to {args.save_state_dict}")
        if (args.src is None) != (args.tgt is None):
            raise InteropError("--src and --tgt go together")
        if args.src is not None:
            src = parse_ids(args.src, config["src_vocab_size"], "src")
            tgt = parse_ids(args.tgt, config["tgt_vocab_size"], "tgt")
            with torch.no_grad():
                logits = model(src, tgt)
            torch.set_printoptions(precision=6, linewidth=120)
            print(f"logits {list(logits.shape)} (batch, tgt_len, tgt_vocab):")
            print(logits)
            for row in logits.argmax(-1).tolist():
                print("most likely next tokens:", " ".join(tgt_vocabulary.symbols[i] if i < len(tgt_vocabulary)
                                                         else str(i) for i in row))
            if args.save_logits:
                np.save(args.save_logits, logits.numpy().astype(np.float32))
                print(f"saved the logits to {args.save_logits}")
        return 0
    except (InteropError, OSError, RuntimeError, ValueError) as e:
        print(f"checkpoint_interop.py {args.command}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
