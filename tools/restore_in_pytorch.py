#!/usr/bin/python3
"""Restores the vowels of a text in PyTorch, with a model chapter 11 trained and saved in C++.

    /usr/bin/python3 tools/restore_in_pytorch.py CKPT_DIR "th* t*m* m*ch*n*"

prints the same line as `ch11_train_test --load CKPT_DIR --steps 0 --restore TEXT`: the
checkpoint's weights go into the PyTorch twin (tools/reference_transformer.py) by name, and the
decoding is chapter 11's greedy one: a letter or a space of the input is kept, and at each `*`
the model picks the most likely of a, e, i, o, u.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint_interop import InteropError, import_checkpoint  # noqa: E402

BOS_ID = 1


# [pytorch restore]
def restore(ckpt_dir, text):
    model, _, src_vocabulary, tgt_vocabulary = import_checkpoint(ckpt_dir)  # evaluation mode
    src = torch.tensor([[src_vocabulary.symbols.index(c) for c in text]])  # [1, S]
    vowels = [tgt_vocabulary.symbols.index(v) for v in "aeiou"]
    out = [BOS_ID]
    with torch.no_grad():
        for c in text:  # one token per step: the decoder reads <bos> and what it wrote so far
            logits = model(src, torch.tensor([out]))[0, -1]  # the last position's [tgt_vocab]
            if c == "*":
                out.append(max(vowels, key=lambda i: logits[i].item()))
            else:
                out.append(tgt_vocabulary.symbols.index(c))
    return "".join(tgt_vocabulary.symbols[i] for i in out[1:])
# [pytorch restore]


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().split("\n\n")[1].strip())
    try:
        print(restore(argv[1], argv[2]))
    except InteropError as e:
        sys.exit(f"error: {e}")
    except ValueError:  # list.index: a character the vocabulary lacks
        sys.exit(f"error: '{argv[2]}' has a character the model's vocabulary lacks "
                 "(it reads lower-case letters, spaces and *)")


if __name__ == "__main__":
    main(sys.argv)
