"""Calls of SVDLinear.forward that its published test does not make (`strengthen --driver`).

The published test sets the adapter to 1e-3 everywhere: its term is about 1e-5 of the
output, so most changes to it pass. Here the adapter's factors are of the size of the
weights, the rank, scaling and ``ranknum`` vary (a tiny ``ranknum`` shows the 1e-5 that
guards the division), the weight is stored transposed once (``fan_in_fan_out``), and a
merged layer and one without an adapter take the plain path.
"""

import torch

# The module the published test reaches (through the installed package): with the
# repository on the path, `loralib` itself is only a namespace there.
from loralib.adalora import SVDLinear

torch.manual_seed(0)
for r, alpha, transposed, ranknum in (
    (3, 1, False, None),
    (1, 4, False, None),  # rank one takes the adapter's path too
    (4, 8, True, 0.5),
    (2, 0, False, 1e-4),  # lora_alpha 0: scaling is the rank
):
    layer = SVDLinear(
        in_features=6,
        out_features=5,
        r=r,
        lora_alpha=alpha,
        lora_dropout=0.0,
        fan_in_fan_out=transposed,
        merge_weights=False,
    )
    with torch.no_grad():
        for factor in (layer.lora_A, layer.lora_B, layer.lora_E):
            factor.normal_()
        if ranknum is not None:
            layer.ranknum.fill_(ranknum)
    layer(torch.randn(3, 6))

merged = SVDLinear(in_features=6, out_features=5, r=2, lora_alpha=2, merge_weights=True)
with torch.no_grad():
    merged.lora_E.normal_()
merged.eval()
merged(torch.randn(2, 6))
SVDLinear(in_features=6, out_features=5, r=0)(torch.randn(2, 6))
