"""Half-precision gradients with a dynamic loss scaler, for train.py (config keys `fp16`, `bf16` and the
loss-scale keys below, named as Megatron-LM names its options).

CPU PyTorch has no fp16 autocast or GradScaler, so half precision is emulated where it decides what the
scaler sees: the gradients of the scaled loss are rounded to the half type, as an fp16 backward leaves
them. float16 holds magnitudes up to 65504: a scaled gradient beyond it is inf, an overflow. The scaler
works as Megatron's DynamicGradScaler and torch.cuda.amp.GradScaler do: an iteration whose gradients
overflow is skipped (no update) and counts down the hysteresis; when it reaches zero the scale is backed off
by backoff_factor (not below min_loss_scale); after loss_scale_window clean iterations in a row the scale
grows by growth_factor and the hysteresis is restored. bfloat16 has float32's range: its gradients are
rounded to bfloat16 and no scaler runs (Megatron's --bf16 has no loss scale either).
"""
import torch

DEFAULTS = {"initial_loss_scale": 65536.0, "min_loss_scale": 1.0, "loss_scale_window": 1000, "hysteresis": 2,
            "growth_factor": 2.0, "backoff_factor": 0.5}


def settings(config):
    """The precision settings of a run: 'fp32', 'fp16' or 'bf16', and the scaler's settings for fp16
    (defaults filled in, written back to config so config.json says what ran)."""
    fp16, bf16 = bool(config.get("fp16")), bool(config.get("bf16"))
    if fp16 and bf16:
        raise SystemExit("error: fp16 and bf16 are both set: expected at most one of them")
    if not fp16:
        for key in DEFAULTS:
            config.pop(key, None)
        return "bf16" if bf16 else "fp32", None
    scaler = {key: config.get(key) if config.get(key) is not None else value for key, value in DEFAULTS.items()}
    if int(scaler["loss_scale_window"]) < 1 or int(scaler["hysteresis"]) < 1:
        raise SystemExit("error: loss_scale_window and hysteresis: expected integers >= 1")
    config.update(scaler)
    return "fp16", scaler


class GradientPrecision:
    """Rounds a model's gradients to the run's half type and, for fp16, scales the loss and decides whether
    the update is applied. Use: `loss_to_backward = p.scaled(loss)`, backward, then `p.unscale(model)`,
    which returns False for an iteration to skip (its gradients overflowed)."""

    def __init__(self, config):
        self.kind, self.scaler = settings(config)
        self.scale = float(self.scaler["initial_loss_scale"]) if self.scaler else 1.0
        self._good = 0
        self._hysteresis = int(self.scaler["hysteresis"]) if self.scaler else 0
        self.skipped = 0

    def scaled(self, loss):
        return loss * self.scale if self.scaler else loss

    def unscale(self, model):
        """Rounds the gradients to the half type; for fp16, divides them by the scale the loss was scaled
        by and updates the scale. True when the update is to be applied."""
        if self.kind == "fp32":
            return True
        half = torch.float16 if self.kind == "fp16" else torch.bfloat16
        finite = True
        for p in model.parameters():
            if p.grad is None:
                continue
            rounded = p.grad.to(half)
            finite = finite and bool(torch.isfinite(rounded).all())
            p.grad.copy_(rounded.float() / self.scale)
        if self.scaler:
            self._update(finite)
        return finite

    def _update(self, finite):
        s = self.scaler
        if finite:
            self._good += 1
            if self._good >= int(s["loss_scale_window"]):
                self._good = 0
                self._hysteresis = int(s["hysteresis"])
                self.scale *= float(s["growth_factor"])
            return
        self.skipped += 1
        self._good = 0
        self._hysteresis -= 1
        if self._hysteresis <= 0:
            self.scale = max(float(s["min_loss_scale"]), self.scale * float(s["backoff_factor"]))

    def log_fields(self, scale_used, applied):
        """What a mixed-precision training log records per iteration, as Megatron's does: 'loss scale' and
        'number of skipped iterations' for fp16, the skipped count alone for bf16 (no scaler, none skipped);
        nothing for fp32."""
        if self.kind == "fp32":
            return {}
        if not self.scaler:
            return {"skipped_iterations": 0}
        return {"loss_scale": scale_used, "skipped_iterations": 0 if applied else 1}
