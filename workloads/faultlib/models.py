"""Models the training workloads build from `config["model"]`.

  type         mlp | cnn | resnet | transformer
  width        hidden width (mlp, resnet), channels (cnn), model dimension (transformer)
  depth        hidden layers (mlp), conv layers (cnn), residual blocks (resnet), encoder layers (transformer)
  act          relu | tanh | sigmoid | gelu
  norm         batch norm after each hidden layer (mlp, cnn, resnet); layer norm is part of a transformer
  init_gain    null = PyTorch's default initialisation; a number g = weights drawn N(0, (g * kaiming_std)^2),
               kaiming_std = sqrt(2 / fan_in) (a hand-written init, as in code that sets its own std)
  dropout      probability of dropping a hidden unit in training (after each hidden activation; the
               transformer's own dropout); 0 = none

Parameter names follow `named_parameters()` from the input side to the output side.
"""
import math

import torch
from torch import nn

TYPES = ("mlp", "cnn", "resnet", "transformer")
_ACTS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "gelu": nn.GELU}


def _act(name):
    if name not in _ACTS:
        raise ValueError(f"model.act {name!r}: expected one of {', '.join(_ACTS)}")
    return _ACTS[name]()


def _dropout(p):
    return nn.Dropout(p) if p > 0.0 else nn.Identity()


class ResidualBlock(nn.Module):
    def __init__(self, width, act, norm, dropout=0.0):
        super().__init__()
        self.l1 = nn.Linear(width, width)
        self.n1 = nn.BatchNorm1d(width) if norm else nn.Identity()
        self.a = _act(act)
        self.d = _dropout(dropout)
        self.l2 = nn.Linear(width, width)
        self.n2 = nn.BatchNorm1d(width) if norm else nn.Identity()

    def forward(self, x):
        return self.a(x + self.n2(self.l2(self.d(self.a(self.n1(self.l1(x)))))))


class TokenTransformer(nn.Module):
    """A small Transformer encoder over the features cut into tokens (tabular or pixel rows)."""

    def __init__(self, in_features, classes, width, depth, act, tokens, dropout=0.0):
        super().__init__()
        self.tokens = tokens
        per_token = math.ceil(in_features / tokens)
        self.pad = per_token * tokens - in_features
        self.embed = nn.Linear(per_token, width)
        self.position = nn.Parameter(torch.zeros(1, tokens, width))
        layer = nn.TransformerEncoderLayer(width, nhead=max(1, width // 16), dim_feedforward=2 * width,
                                           dropout=dropout, activation="gelu" if act == "gelu" else "relu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = x.flatten(1)
        if self.pad:
            x = nn.functional.pad(x, (0, self.pad))
        h = self.embed(x.view(x.shape[0], self.tokens, -1)) + self.position
        return self.head(self.encoder(h).mean(dim=1))


def build(model_config, in_features, classes, image_shape):
    kind = model_config.get("type", "mlp")
    width = int(model_config.get("width", 64))
    depth = int(model_config.get("depth", 2))
    act = model_config.get("act", "relu")
    norm = bool(model_config.get("norm", False))
    dropout = float(model_config.get("dropout") or 0.0)
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"model.dropout {dropout}: expected a probability in [0, 1)")
    if kind == "mlp":
        layers, prev = [], in_features
        for _ in range(depth):
            layers.append(nn.Linear(prev, width))
            if norm:
                layers.append(nn.BatchNorm1d(width))
            layers.append(_act(act))
            if dropout > 0.0:  # no module otherwise: the parameter names stay those of a net without it
                layers.append(nn.Dropout(dropout))
            prev = width
        layers.append(nn.Linear(prev, classes))
        model = nn.Sequential(*layers)
    elif kind == "cnn":
        # 2-D convolutions over images, 1-D over the feature vector of tabular data.
        two_d = image_shape is not None
        conv = nn.Conv2d if two_d else nn.Conv1d
        bn = nn.BatchNorm2d if two_d else nn.BatchNorm1d
        pool = nn.AdaptiveAvgPool2d(2) if two_d else nn.AdaptiveAvgPool1d(4)
        layers, prev = [nn.Unflatten(1, tuple(image_shape) if two_d else (1, in_features))], 1
        for _ in range(depth):
            layers.append(conv(prev, width, 3, padding=1))
            if norm:
                layers.append(bn(width))
            layers.append(_act(act))
            if dropout > 0.0:  # no module otherwise: the parameter names stay those of a net without it
                layers.append(nn.Dropout(dropout))
            prev = width
        layers += [pool, nn.Flatten(), nn.Linear(width * 4, classes)]
        model = nn.Sequential(*layers)
    elif kind == "resnet":
        layers = [nn.Linear(in_features, width), _act(act)]
        layers += [ResidualBlock(width, act, norm, dropout) for _ in range(depth)]
        layers.append(nn.Linear(width, classes))
        model = nn.Sequential(*layers)
    elif kind == "transformer":
        tokens = int(model_config.get("tokens", 8 if in_features >= 16 else in_features))
        model = TokenTransformer(in_features, classes, width, depth, act, tokens, dropout)
    else:
        raise ValueError(f"model.type {kind!r}: expected one of {', '.join(TYPES)}")
    gain = model_config.get("init_gain")
    if gain is not None:
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, (nn.Linear, nn.Conv1d, nn.Conv2d)):
                    fan_in = m.weight[0].numel()
                    m.weight.normal_(0.0, float(gain) * math.sqrt(2.0 / fan_in))
                    if m.bias is not None:
                        m.bias.zero_()
    return model
