"""The card classifier network: a small CNN that keeps the layout of the card.

Topology is *where* the tunnels are, so the last feature map is flattened rather than
averaged: a global average would throw away which edge a tunnel meets. Five 3×3 conv
layers, three with stride 2; the two at stride 1 are depthwise-separable (a 3×3 per
channel, then a 1×1 across channels), which costs under half the time of a full 3×3 with
onnxruntime on one core for the same widths. The embedding before the head is what deck
calibration compares.
"""

from __future__ import annotations

import torch
from torch import nn

WIDTHS = (16, 32, 48, 64, 96)
EMBEDDING = 64


def _conv(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _separable(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cin, 3, 1, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
                         nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CardNet(nn.Module):
    def __init__(self, classes: int, height: int = 48, width: int = 32, widths=WIDTHS, embedding: int = EMBEDDING):
        super().__init__()
        a, b, c, d, e = widths
        self.features = nn.Sequential(_conv(3, a, 2), _conv(a, b, 2), _separable(b, c), _conv(c, d, 2), _separable(d, e))
        with torch.no_grad():
            flat = self.features(torch.zeros(1, 3, height, width)).numel()
        self.embed = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(flat, embedding), nn.ReLU(inplace=True))
        self.head = nn.Linear(embedding, classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        embedding = self.embed(self.features(x))
        return self.head(embedding), embedding


class Exported(nn.Module):
    """What goes into the ONNX file: calibrated probabilities and the embedding."""

    def __init__(self, net: CardNet, temperature: float):
        super().__init__()
        self.net = net
        self.register_buffer("inv_temperature", torch.tensor(1.0 / temperature))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, embedding = self.net(x)
        return torch.softmax(logits * self.inv_temperature, dim=1), embedding
