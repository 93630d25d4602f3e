#!/usr/bin/python3
"""The PyTorch side of ./tutorial bench: the same work as bench_transformer, on the C++ model's twin.

    /usr/bin/python3 bench/reference.py --row train   --config JSON --threads N [--steps 3 --warmup 1]
    /usr/bin/python3 bench/reference.py --row forward --config JSON --threads N [--runs 5]
    /usr/bin/python3 bench/reference.py --row decode  --config JSON --threads N --batch 64 [--runs 3]
    ... [--flush-denormal]   subnormal floats flushed to zero (torch.set_flush_denormal(True))

`--config` is the `config` object bench_transformer printed for the same row (the C++ presets are
the one source of the sizes); the model is tools/reference_transformer.py, whose parameters have
the C++ names. Prints one line of JSON, like bench_transformer. Run by bench/measure, which sets
OPENBLAS_NUM_THREADS and OMP_NUM_THREADS (Debian's torch does not pass torch.set_num_threads on
to OpenBLAS) and OMP_WAIT_POLICY; this script calls torch.set_num_threads and reports the thread
counts both pools really have. Random ids stand in for text: the work depends on the shapes only.
"""
import argparse
import ctypes
import json
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from reference_transformer import PAD_ID, ReferenceTransformer, make_masks  # noqa: E402

BOS_ID = 1            # the C++ vocabularies' <bos>
FIRST_SYMBOL_ID = 4   # after <pad>, <bos>, <eos>, <unk>


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def cpu_seconds():
    return time.process_time()  # user + system time of every thread of the process


def openblas():
    """The OpenBLAS this process really loaded (Debian's torch reaches it as libblas.so.3)."""
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "blas" in line and "/" in line})
    for path in paths:
        library = ctypes.CDLL(path)
        if hasattr(library, "openblas_get_num_threads"):
            library.openblas_get_config.restype = ctypes.c_char_p
            return library
    return None


def threads_json():
    library = openblas()
    out = {"torch": torch.get_num_threads(), "torch_interop": torch.get_num_interop_threads(),
           "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset)")}
    if library is not None:
        out["openblas"] = library.openblas_get_num_threads()
        out["openblas_config"] = library.openblas_get_config().decode()
    else:
        out["openblas"] = "not loaded (torch is using another BLAS)"
    return out


def timed(warmup, runs, work):
    """Runs `work` `warmup` times untimed, then `runs` times timed: (seconds of each, cores busy)."""
    for _ in range(warmup):
        work()
    seconds = []
    cpu_start, wall_start = cpu_seconds(), time.perf_counter()
    for _ in range(runs):
        start = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - start)
    return seconds, (cpu_seconds() - cpu_start) / (time.perf_counter() - wall_start)


def random_ids(batch, length, low, high, generator):
    return torch.randint(low, high, (batch, length), generator=generator)


def random_windows(c, generator):
    """Like bench_transformer's: src, tgt_out of ordinary symbols, tgt_in = <bos> + tgt_out[:, :-1]."""
    b, length = c["batch_size"], c["tgt_len"]
    src = random_ids(b, c["src_len"], FIRST_SYMBOL_ID, c["src_vocab_size"], generator)
    tgt_out = random_ids(b, length, FIRST_SYMBOL_ID, c["tgt_vocab_size"], generator)
    tgt_in = torch.cat([torch.full((b, 1), BOS_ID), tgt_out[:, :-1]], dim=1)
    return src, tgt_in, tgt_out


def train_row(c, args):
    """Training steps as chapter 11's loop does them: zero the gradients, forward, cross-entropy
    (padding ignored), backward, clip the gradient norm, Adam with the paper's constants."""
    model = ReferenceTransformer(c)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=c["learning_rate"], betas=(0.9, 0.98), eps=1e-9)
    setup_rss = peak_rss_mib()
    generator = torch.Generator().manual_seed(args.seed)
    batches = [random_windows(c, generator) for _ in range(args.warmup + args.steps)]
    losses = []

    def step():
        src, tgt_in, tgt_out = batches[len(losses)]
        optimizer.zero_grad()
        # bf16: PyTorch's mixed precision on the CPU, the forward under autocast (the backward
        # follows the formats autocast chose), the weights and Adam in fp32.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            logits = model(src, tgt_in)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                                   ignore_index=PAD_ID, label_smoothing=c["label_smoothing"])
        loss.backward()
        if c["clip_norm"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), c["clip_norm"])
        optimizer.step()
        losses.append(loss.item())

    seconds, cores_busy = timed(args.warmup, args.steps, step)
    return {"row": "train", "parameters": sum(p.numel() for p in model.parameters()),
            "tokens_per_step": int((batches[0][2] != PAD_ID).sum()),
            "step_seconds": seconds, "median_step_seconds": statistics.median(seconds),
            "first_loss": losses[0], "last_loss": losses[-1], "setup_rss_mib": setup_rss,
            "peak_rss_mib": peak_rss_mib(), "cores_busy": cores_busy}


def forward_row(c, args):
    """Reference 000's test in evaluation mode: src [32, 10], trg [32, 20] of randint(0, vocab)."""
    model = ReferenceTransformer(c)
    model.eval()
    generator = torch.Generator().manual_seed(args.seed)
    src = random_ids(c["batch_size"], c["src_len"], 0, c["src_vocab_size"], generator)
    trg = random_ids(c["batch_size"], c["tgt_len"], 0, c["tgt_vocab_size"], generator)
    shape = []
    with torch.no_grad():
        seconds, cores_busy = timed(1, args.runs, lambda: shape.append(list(model(src, trg).shape)))
    return {"row": "forward", "parameters": sum(p.numel() for p in model.parameters()),
            "output_shape": "[" + ", ".join(map(str, shape[-1])) + "]", "run_seconds": seconds,
            "median_seconds": statistics.median(seconds), "peak_rss_mib": peak_rss_mib(),
            "cores_busy": cores_busy}


@torch.no_grad()
def greedy_rerun(model, src, steps):
    """Greedy decoding the readable way: encode once, then at every step run the decoder on the
    WHOLE prefix (<bos> and every token chosen so far) and keep the last position's best token."""
    c = model.c
    src_table = model.embedding if c["shared_embedding"] else model.src_embedding
    tgt_table = model.embedding if c["shared_embedding"] else model.tgt_embedding
    prefix = torch.full((src.shape[0], 1), BOS_ID)
    src_mask, _, _ = make_masks(src, prefix)
    memory = model.embed(src_table, src)
    for layer in model.encoder.layers:
        memory = layer(memory, src_mask)
    for _ in range(steps):
        _, tgt_mask, cross_mask = make_masks(src, prefix)
        y = model.embed(tgt_table, prefix)
        for layer in model.decoder.layers:
            y = layer(y, memory, tgt_mask, cross_mask)
        logits = model.generator(y)                      # [B, t + 1, V], like the C++ decode()
        prefix = torch.cat([prefix, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return prefix[:, 1:]


def decode_row(c, args):
    model = ReferenceTransformer(c)
    model.eval()
    generator = torch.Generator().manual_seed(args.seed)
    src = random_ids(args.batch, c["src_len"], FIRST_SYMBOL_ID, c["src_vocab_size"], generator)
    steps = []

    def decode():
        steps.append(greedy_rerun(model, src, c["src_len"]).shape[1])

    seconds, cores_busy = timed(1, args.runs, decode)
    return {"row": "decode", "batch": args.batch, "steps": steps[-1],
            "method": "decoder re-run on the whole prefix", "run_seconds": seconds,
            "median_seconds": statistics.median(seconds), "peak_rss_mib": peak_rss_mib(),
            "cores_busy": cores_busy}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--row", required=True, choices=["train", "forward", "decode"])
    parser.add_argument("--config", required=True, help="bench_transformer's config object (JSON)")
    parser.add_argument("--threads", type=int, required=True, help="torch.set_num_threads(N)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up (forward, decode)")
    parser.add_argument("--steps", type=int, default=3, help="timed training steps (train)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed training steps first (train)")
    parser.add_argument("--batch", type=int, default=1, help="windows decoded together (decode)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                        help="bf16: the training step under torch.autocast(\"cpu\", dtype=torch.bfloat16) (train)")
    parser.add_argument("--flush-denormal", action="store_true",
                        help="torch.set_flush_denormal(True): subnormal floats flushed to zero, as the C++ "
                             "library does (engine/machine.cpp)")
    args = parser.parse_args()

    flushed = torch.set_flush_denormal(True) if args.flush_denormal else False
    if args.flush_denormal and not flushed:
        sys.exit("error: torch.set_flush_denormal(True) is not supported on this CPU")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    c = json.loads(args.config)
    result = {"train": train_row, "forward": forward_row, "decode": decode_row}[args.row](c, args)
    result["threads"] = threads_json()
    result["flush_denormal"] = flushed
    result["precision"] = args.precision
    result["torch_version"] = torch.__version__
    print(json.dumps(result))


if __name__ == "__main__":
    main()
