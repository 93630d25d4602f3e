"""The PyTorch twin of the C++ Transformer: same modules, same parameter names, same masks.

It follows reference 000's modules (post-norm Add & Norm, 1 = may attend, -1e9 fill) with its
decoder bug fixed (one norm after cross-attention, with dropout) and a causal mask for the
decoder's self-attention. `state_dict()` names match the C++ `ParameterList` names exactly, so
fixtures, checkpoints and parity tests can move weights between the two by name.

    model = ReferenceTransformer(config)      # config: a dict with the C++ Config's keys
    logits = model(src, tgt_in)               # [B, S], [B, T] int64 -> [B, T, tgt_vocab]
"""
import math

import torch
from torch import nn

PAD_ID = 0


# [pytorch attention]
def scaled_dot_product_attention(q, k, v, mask=None):
    """q [B, H, Lq, d_k], k [B, H, Lk, d_k], v [B, H, Lk, d_v], mask [B, Lq, Lk] (1 = may attend)
    -> (context [B, H, Lq, d_v], weights [B, H, Lq, Lk])."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:  # one mask, shared by the heads
        scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
# [pytorch attention]


# [pytorch multi-head attention]
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads, self.d_k = n_heads, d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.weights = None

    def split(self, x):  # [B, L, d] -> [B, H, L, d_k]
        b, length, _ = x.shape
        return x.view(b, length, self.n_heads, self.d_k).transpose(1, 2)

    def forward(self, query_input, memory, mask=None):
        q = self.split(self.w_q(query_input))
        k = self.split(self.w_k(memory))
        v = self.split(self.w_v(memory))
        context, self.weights = scaled_dot_product_attention(q, k, v, mask)
        b, _, length, _ = context.shape  # join the heads: [B, H, L, d_k] -> [B, L, d]
        return self.w_o(context.transpose(1, 2).contiguous().view(b, length, -1))
# [pytorch multi-head attention]


# [pytorch feed-forward]
class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, bias, dropout):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))
# [pytorch feed-forward]


# [pytorch layers]
class AddNorm(nn.Module):
    """LayerNorm(x + Dropout(sublayer_output)); its parameters are the norm's (weight, bias)."""

    def __init__(self, d_model, dropout):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer_output):
        return nn.functional.layer_norm(x + self.dropout(sublayer_output), x.shape[-1:],
                                        self.weight, self.bias, 1e-5)


class EncoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = MultiHeadAttention(c["d_model"], c["n_heads"], c["attention_bias"])
        self.norm1 = AddNorm(c["d_model"], c["dropout"])
        self.ffn = FeedForward(c["d_model"], c["d_ff"], c["linear_bias"], c["dropout"])
        self.norm2 = AddNorm(c["d_model"], c["dropout"])

    def forward(self, x, src_mask):
        x = self.norm1(x, self.self_attn(x, x, src_mask))
        return self.norm2(x, self.ffn(x))


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = MultiHeadAttention(c["d_model"], c["n_heads"], c["attention_bias"])
        self.norm1 = AddNorm(c["d_model"], c["dropout"])
        self.cross_attn = MultiHeadAttention(c["d_model"], c["n_heads"], c["attention_bias"])
        self.norm2 = AddNorm(c["d_model"], c["dropout"])
        self.ffn = FeedForward(c["d_model"], c["d_ff"], c["linear_bias"], c["dropout"])
        self.norm3 = AddNorm(c["d_model"], c["dropout"])

    def forward(self, x, memory, self_mask, cross_mask):
        x = self.norm1(x, self.self_attn(x, x, self_mask))
        x = self.norm2(x, self.cross_attn(x, memory, cross_mask))
        return self.norm3(x, self.ffn(x))
# [pytorch layers]


class Stack(nn.Module):
    """The encoder or decoder stack: its layers only (the embeddings live in the Transformer)."""

    def __init__(self, layer, n, c):
        super().__init__()
        self.layers = nn.ModuleList([layer(c) for _ in range(n)])


def positional_encoding(max_len, d_model):
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div)
    pe[:, 1::2] = torch.cos(position * div)
    return pe.float()


def make_masks(src, tgt_in):
    """1 = may attend. src [B, S], tgt_in [B, T] -> ([B,S,S], [B,T,T], [B,T,S])."""
    s, t = src.shape[1], tgt_in.shape[1]
    src_keep = (src != PAD_ID).unsqueeze(1)                      # [B, 1, S]
    tgt_keep = (tgt_in != PAD_ID).unsqueeze(1)                   # [B, 1, T]
    causal = torch.tril(torch.ones(t, t, dtype=torch.bool)).unsqueeze(0)
    return (src_keep.expand(-1, s, -1), (tgt_keep & causal), src_keep.expand(-1, t, -1))


# [pytorch training step]
def train_step(model, optimizer, src, tgt_in, tgt_out, rate, clip_norm, inspect=None):
    """One step as tfm::train_step takes it: forward, loss, backward, clip, Adam at `rate`.
    Returns the loss and the gradient's norm before clipping. `inspect(logits, loss)`, if given,
    sees the gradients before they are clipped (the parity fixtures record step 1 there)."""
    optimizer.zero_grad(set_to_none=False)
    logits = model(src, tgt_in)                                          # [B, T, tgt_vocab]
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                                       ignore_index=PAD_ID)              # pad positions count 0
    loss.backward()                                                      # every p.grad
    if inspect:
        inspect(logits, loss)
    norm = nn.utils.clip_grad_norm_(list(model.parameters()), clip_norm)
    for group in optimizer.param_groups:
        group["lr"] = rate                                               # the warm-up schedule's
    optimizer.step()
    return loss, norm
# [pytorch training step]


class ReferenceTransformer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        d = c["d_model"]
        if c["shared_embedding"]:
            self.embedding = nn.Embedding(c["src_vocab_size"], d)
        else:
            self.src_embedding = nn.Embedding(c["src_vocab_size"], d)
            self.tgt_embedding = nn.Embedding(c["tgt_vocab_size"], d)
        self.encoder = Stack(EncoderLayer, c["n_encoder_layers"], c)
        self.decoder = Stack(DecoderLayer, c["n_decoder_layers"], c)
        self.generator = nn.Linear(d, c["tgt_vocab_size"], bias=c["linear_bias"])
        self.register_buffer("pe", positional_encoding(c["max_len"], d), persistent=False)
        self.dropout = nn.Dropout(c["dropout"])

    # [pytorch stacks]
    def encode(self, x, src_mask):  # the embedded source [B, S, d] -> memory [B, S, d]
        for layer in self.encoder.layers:
            x = layer(x, src_mask)
        return x

    def decode(self, y, memory, tgt_mask, cross_mask):  # [B, T, d], [B, S, d] -> [B, T, d]
        for layer in self.decoder.layers:
            y = layer(y, memory, tgt_mask, cross_mask)
        return y
    # [pytorch stacks]

    # [pytorch transformer]
    def embed(self, table, ids):
        x = table(ids) * math.sqrt(self.c["d_model"]) + self.pe[: ids.shape[1]].to(table.weight.dtype)
        return self.dropout(x)

    def forward(self, src, tgt_in):
        src_table = self.embedding if self.c["shared_embedding"] else self.src_embedding
        tgt_table = self.embedding if self.c["shared_embedding"] else self.tgt_embedding
        src_mask, tgt_mask, cross_mask = make_masks(src, tgt_in)
        memory = self.encode(self.embed(src_table, src), src_mask)
        y = self.decode(self.embed(tgt_table, tgt_in), memory, tgt_mask, cross_mask)
        return self.generator(y)
    # [pytorch transformer]
