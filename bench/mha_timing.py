#!/usr/bin/python3
"""Forward + backward time of multi-head attention at the `vowels` preset's size, PyTorch vs C++.

batch 128, len 40, d_model 256, 8 heads, no bias (reference 002's sizes); self-attention without
mask; one step = forward, backward of a fixed upstream gradient. Median of several runs after
warm-up, for 1 and 2 threads. For PyTorch both torch.set_num_threads(n) and OPENBLAS_NUM_THREADS=n
are set (Debian's torch does not pass its thread count on to OpenBLAS), in a fresh process per n;
at 2 threads PyTorch also runs with OMP_WAIT_POLICY=PASSIVE, its best setting on this machine.

    /usr/bin/python3 bench/mha_timing.py [--cpp build/mha_timing] [--runs 15]

(build the C++ half as described at the top of bench/mha_timing.cpp). Timings only: the tests
check correctness, never speed.
"""
import argparse
import math
import os
import subprocess
import sys
import time


def torch_timing(threads, runs):
    import torch
    from torch import nn

    torch.set_num_threads(threads)

    class MultiHeadAttention(nn.Module):
        """Reference 000's module, with w_concat applied as w_o."""

        def __init__(self, d_model, n_head, bias):
            super().__init__()
            self.n_head = n_head
            self.w_q = nn.Linear(d_model, d_model, bias=bias)
            self.w_k = nn.Linear(d_model, d_model, bias=bias)
            self.w_v = nn.Linear(d_model, d_model, bias=bias)
            self.w_o = nn.Linear(d_model, d_model, bias=bias)

        def split(self, x):
            b, l, d = x.size()
            return x.view(b, l, self.n_head, d // self.n_head).transpose(1, 2)

        def forward(self, q, k, v):
            q, k, v = self.split(self.w_q(q)), self.split(self.w_k(k)), self.split(self.w_v(v))
            weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
            out = (weights @ v).transpose(1, 2).contiguous()
            return self.w_o(out.view(out.size(0), out.size(1), -1))

    torch.manual_seed(0)
    B, L, D, H = 128, 40, 256, 8
    mha = MultiHeadAttention(D, H, bias=False)
    x = torch.randn(B, L, D, requires_grad=True)
    dy = torch.randn(B, L, D)

    def step():
        mha.zero_grad(set_to_none=False)
        x.grad = None
        mha(x, x, x).backward(dy)

    for _ in range(3):
        step()
    ms = []
    for _ in range(runs):
        t0 = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    print(f"PyTorch {torch.__version__} MultiHeadAttention [{B}, {L}, {D}], {H} heads, bias no: "
          f"median {ms[len(ms) // 2]:.2f} ms (min {ms[0]:.2f}, max {ms[-1]:.2f}, {runs} runs)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cpp", help="path of the built bench/mha_timing.cpp")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--child-threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_threads:
        torch_timing(args.child_threads, args.runs)
        return
    for threads in (1, 2):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
        print(f"--- {threads} thread(s): OPENBLAS_NUM_THREADS={threads}, torch.set_num_threads({threads})",
              flush=True)
        if args.cpp:
            subprocess.run([args.cpp, str(args.runs)], env=env, check=True)
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
