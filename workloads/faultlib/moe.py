"""A mixture-of-experts layer whose experts are spread over the ranks (expert parallel, as Megatron-Core and
DeepSpeed-MoE run them), for ddp.py's `model.type moe`.

Every sample is cut into `tokens` tokens. A router (replicated, synchronised like any data-parallel
weight) sends each token to its top-1 expert; tokens travel to the rank that holds their expert and back with
two all_to_all exchanges (gloo, differentiable, on a process group of their own), and every expert runs on
the tokens it got. The ranges the profiler records are the names real MoE code gives them:

  moe.dispatch    the all_to_all that sends tokens to their experts' ranks (and its counts exchange)
  moe.expert<E>   expert E's feed-forward on its tokens (E global: rank r holds E = r*k .. r*k+k-1)
  moe.combine     the all_to_all that brings the experts' outputs back

The load-balancing loss of Switch Transformer (num_experts * sum_e f_e * P_e, 1.0 when balanced) is added
to the training loss with `aux_loss_coeff`; the router's per-expert token counts of the step are returned
for the log; the router is initialised near zero and its logits get Gaussian noise while training (noisy top-1
gating), so a healthy run starts balanced. Expert-load imbalance (the fault `expert_imbalance`) is a router
that prefers the experts of one rank: a gate bias on their logits, as a router trained without its balancing
loss drifts to (the fault also sets aux_loss_coeff to 0). That rank's experts compute most tokens every step; the others wait for it in
moe.combine.
"""
import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dist_fn
from torch import nn
from torch.profiler import record_function


class ExpertParallelMoE(nn.Module):
    def __init__(self, width, hidden, experts_per_rank, rank, world, gate_bias, group=None):
        super().__init__()
        self.rank, self.world, self.k = rank, world, experts_per_rank
        self.num_experts = experts_per_rank * world
        self.group = group
        # Noisy top-1 gating (Shazeer et al. 2017): a router initialised near zero plus Gaussian noise on
        # its logits while training, so tokens start spread evenly and the balancing loss keeps them so.
        self.router = nn.Linear(width, self.num_experts)
        nn.init.normal_(self.router.weight, std=0.002)
        nn.init.zeros_(self.router.bias)
        self.noise_std = 1.0
        # Only this rank's experts; their names start with "experts." (ddp.py keeps them out of DDP).
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width))
                                     for _ in range(experts_per_rank))
        # A plain tensor, not a buffer: DDP would broadcast a buffer from rank 0 before every forward.
        self.gate_bias = torch.tensor(gate_bias, dtype=torch.float32)
        self.aux_loss = torch.zeros(())
        self.tokens_per_expert = [0] * self.num_experts

    def forward(self, h):
        shape = h.shape
        x = h.reshape(-1, shape[-1])
        logits = self.router(x) + self.gate_bias
        if self.training and self.noise_std:
            logits = logits + self.noise_std * torch.randn_like(logits)
        probs = torch.softmax(logits, dim=-1)
        weight, expert = probs.max(dim=-1)
        counts = torch.bincount(expert, minlength=self.num_experts)
        self.tokens_per_expert = counts.tolist()
        # Switch Transformer's balancing loss: fraction of tokens per expert times mean router probability.
        fraction = counts.to(probs.dtype) / max(x.shape[0], 1)
        self.aux_loss = self.num_experts * torch.sum(fraction * probs.mean(dim=0))

        dest = torch.div(expert, self.k, rounding_mode="floor")
        order = torch.argsort(dest * self.num_experts + expert)  # by destination rank, then expert
        send = torch.bincount(dest, minlength=self.world)
        with record_function("moe.dispatch"):
            recv = torch.empty_like(send)
            dist.all_to_all_single(recv, send, group=self.group)
            send_list, recv_list = send.tolist(), recv.tolist()
            local_ids = torch.empty(sum(recv_list), dtype=torch.long)
            dist.all_to_all_single(local_ids, (expert[order] % self.k).contiguous(), recv_list, send_list,
                                   group=self.group)
            tokens = dist_fn.all_to_all_single(torch.empty(sum(recv_list), x.shape[-1]), x[order].contiguous(),
                                               recv_list, send_list, group=self.group)
        # tokens * 0, not zeros_like: a rank that got no token must still take part in the backward
        # all_to_all exchanges, so its output stays on the autograd graph.
        out = tokens * 0.0
        for e in range(self.k):
            idx = torch.nonzero(local_ids == e).flatten()
            with record_function(f"moe.expert{self.rank * self.k + e}"):
                if idx.numel():
                    out = out.index_put((idx,), self.experts[e](tokens.index_select(0, idx)))
        with record_function("moe.combine"):
            back = dist_fn.all_to_all_single(torch.empty(x.shape[0], x.shape[-1]), out, send_list, recv_list,
                                             group=self.group)
        result = torch.empty_like(back).index_copy(0, order, back)
        return h + (weight.unsqueeze(-1) * result).reshape(shape)


class MoEClassifier(nn.Module):
    """Samples cut into `tokens` tokens, embedded, one expert-parallel MoE layer, mean-pooled, classified."""

    def __init__(self, in_features, classes, width, hidden, tokens, experts_per_rank, rank, world, gate_bias,
                 group=None):
        super().__init__()
        self.tokens = tokens
        per_token = -(-in_features // tokens)
        self.pad = per_token * tokens - in_features
        self.embed = nn.Linear(per_token, width)
        self.moe = ExpertParallelMoE(width, hidden, experts_per_rank, rank, world, gate_bias, group)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = x.flatten(1)
        if self.pad:
            x = nn.functional.pad(x, (0, self.pad))
        h = torch.relu(self.embed(x.view(x.shape[0], self.tokens, -1)))
        return self.head(torch.relu(self.moe(h)).mean(dim=1))


def gate_bias(num_experts, experts_per_rank, hot_rank, bias):
    """Logit bias favouring the experts of `hot_rank` (0 everywhere when bias is 0)."""
    out = [0.0] * num_experts
    if hot_rank is not None and bias:
        for e in range(hot_rank * experts_per_rank, (hot_rank + 1) * experts_per_rank):
            out[e] = float(bias)
    return out
