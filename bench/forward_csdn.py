#!/usr/bin/python3
"""Forward time of the whole `csdn` Transformer on reference 000's test input, PyTorch vs C++.

Reference 000's test: vocabulary 10000, d_model 512, 8 heads, 6 + 6 layers, d_ff 2048, dropout
0.1, src = randint(0, 10000, (32, 10)), trg = randint(0, 10000, (32, 20)) -> [32, 20, 10000].
PyTorch runs tools/reference_transformer.py (the C++ model's twin: same modules, same masks) in
float32, in two modes: as reference 000's test does (training mode, autograd recording) and in
evaluation mode under torch.no_grad(). The C++ numbers come from chapter 10's program
(build/bin/ch10_transformer --repeat N [--eval]), which builds the same model and input.

Median of --runs timed passes after one warm-up pass, for 1 and 2 threads. For PyTorch both
torch.set_num_threads(n) and OPENBLAS_NUM_THREADS=n are set (Debian's torch does not pass its
thread count on to OpenBLAS), in a fresh process per setting; at 2 threads PyTorch also runs with
OMP_WAIT_POLICY=PASSIVE, its best setting on this machine.

    /usr/bin/python3 bench/forward_csdn.py [--cpp build/bin/ch10_transformer] [--runs 3]

Timings only: the tests check correctness, never speed.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

CSDN = dict(src_vocab_size=10000, tgt_vocab_size=10000, d_model=512, n_heads=8, n_encoder_layers=6,
            n_decoder_layers=6, d_ff=2048, dropout=0.1, attention_bias=True, linear_bias=True,
            shared_embedding=True, max_len=5000)


def matmul_flops(c, batch=32, src_len=10, tgt_len=20):
    """Floating-point operations of the forward pass's matrix products (2 per multiply-add)."""
    d, d_ff, vocab = c["d_model"], c["d_ff"], c["tgt_vocab_size"]
    src_tokens, tgt_tokens = batch * src_len, batch * tgt_len
    linear = lambda tokens, n_in, n_out: 2 * tokens * n_in * n_out
    attention = lambda len_q, len_k: 2 * 2 * batch * len_q * len_k * d  # Q K^T and A V, all heads
    encoder_layer = (4 * linear(src_tokens, d, d) + linear(src_tokens, d, d_ff)
                     + linear(src_tokens, d_ff, d) + attention(src_len, src_len))
    decoder_layer = (4 * linear(tgt_tokens, d, d) + attention(tgt_len, tgt_len)  # self-attention
                     + 2 * linear(tgt_tokens, d, d) + 2 * linear(src_tokens, d, d)  # cross: Q, O; K, V
                     + attention(tgt_len, src_len)
                     + linear(tgt_tokens, d, d_ff) + linear(tgt_tokens, d_ff, d))
    generator = linear(tgt_tokens, d, vocab)
    return (c["n_encoder_layers"] * encoder_layer + c["n_decoder_layers"] * decoder_layer
            + generator)


def torch_timing(threads, runs):
    import torch
    from reference_transformer import ReferenceTransformer

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = ReferenceTransformer(CSDN)
    n_params = sum(p.numel() for p in model.parameters())
    src = torch.randint(0, CSDN["src_vocab_size"], (32, 10))
    trg = torch.randint(0, CSDN["tgt_vocab_size"], (32, 20))

    def median_seconds(forward):
        out = forward()  # warm-up
        assert list(out.shape) == [32, 20, 10000], out.shape
        seconds = []
        for _ in range(runs):
            t0 = time.perf_counter()
            out = forward()
            seconds.append(time.perf_counter() - t0)
            del out
        seconds.sort()
        return seconds[len(seconds) // 2], seconds[0], seconds[-1]

    model.train()
    training = median_seconds(lambda: model(src, trg))
    model.eval()
    with torch.no_grad():
        evaluation = median_seconds(lambda: model(src, trg))
    print(f"PyTorch {torch.__version__}, {n_params:,} parameters, src [32, 10], trg [32, 20] -> "
          f"[32, 20, 10000]")
    for name, (median, low, high) in (("training mode, autograd on (reference 000's test)", training),
                                      ("evaluation mode, torch.no_grad()", evaluation)):
        print(f"    {name}: median {median:.3f} s (min {low:.3f}, max {high:.3f}, {runs} runs), "
              f"{matmul_flops(CSDN) / median / 1e9:.0f} GFLOP/s", flush=True)


def cpp_timing(exe, runs, env):
    for flags, name in (([], "training mode (dropout on, activations kept for backward)"),
                        (["--eval"], "evaluation mode (dropout off)")):
        out = subprocess.run([exe, "--repeat", str(runs)] + flags, env=env, check=True,
                             capture_output=True, text=True).stdout
        line = next(l for l in out.splitlines() if l.startswith("Forward pass"))
        seconds = re.search(r"([0-9.]+) s", line).group(1)
        print(f"C++ chapter 10, {name}: median {seconds} s ({runs} runs), "
              f"{matmul_flops(CSDN) / float(seconds) / 1e9:.0f} GFLOP/s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cpp", help="path of the built chapter 10 program (bin/ch10_transformer)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child-threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_threads:
        torch_timing(args.child_threads, args.runs)
        return
    print(f"One forward pass: {matmul_flops(CSDN) / 1e9:.1f} GFLOP in matrix products")
    for threads in (1, 2):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
        print(f"--- {threads} thread(s): OPENBLAS_NUM_THREADS={threads}, torch.set_num_threads({threads})",
              flush=True)
        if args.cpp:
            cpp_timing(args.cpp, args.runs, env)
        subprocess.run([sys.executable, __file__, "--child-threads", str(threads), "--runs",
                        str(args.runs)], env=env, check=True)
        if threads > 1:
            # PyTorch's and OpenBLAS's thread pools busy-wait and fight over 2 cores; letting idle
            # threads sleep is PyTorch's best setting here.
            print("    the same with OMP_WAIT_POLICY=PASSIVE:", flush=True)
            subprocess.run([sys.executable, __file__, "--child-threads", str(threads), "--runs",
                            str(args.runs)], env=dict(env, OMP_WAIT_POLICY="PASSIVE"), check=True)


if __name__ == "__main__":
    main()
