"""FlashInfer (GPU): JIT modules that FlashInfer builds against the reference's headers, called
through its Python API with PyTorch CUDA tensors.

    python flashinfer_scenario.py reference|ours|in-place

Every result is a fact that must not depend on the runtime: the bits of each kernel's output (the
kernels are deterministic), whether they match PyTorch's own formula, in-place updates, a kernel
on a side stream, and the errors that FlashInfer's C++ checks raise. The norm kernels are taken
from FlashInfer's CUDA JIT path (``FLASHINFER_USE_CUDA_NORM=1``), the one that goes through the
convention (its CuTe DSL path does not).
"""

import hashlib
import os

from scenario import report, select_runtime

results = select_runtime()
os.environ["FLASHINFER_USE_CUDA_NORM"] = "1"

import flashinfer  # noqa: E402 - after the runtime is chosen
import torch  # noqa: E402

if not torch.cuda.is_available():
    raise SystemExit("flashinfer_scenario.py needs a CUDA device")

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def digest(t: torch.Tensor) -> str:
    """The tensor's bits, as a short hash."""
    raw = t.detach().contiguous().view(torch.uint8).cpu().numpy().tobytes()
    return hashlib.sha256(raw).hexdigest()[:16]


def close(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    """Whether a half-precision result matches PyTorch's float32 formula."""
    return bool(torch.allclose(actual.float(), expected.float(), rtol=2e-2, atol=2e-2))


def error_of(call) -> str:
    """The exception a call raises, as `Type: first line`."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the type is part of the result
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return "no error"


def rms_reference(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()


gen = torch.Generator(device="cuda").manual_seed(0)
eps = 1e-6
for name, dtype in DTYPES.items():
    x = torch.randn(37, 4096, device="cuda", dtype=dtype, generator=gen)
    w = torch.randn(4096, device="cuda", dtype=dtype, generator=gen)

    y = flashinfer.norm.rmsnorm(x, w, eps)
    results[f"rmsnorm.{name}"] = [digest(y), close(y, rms_reference(x, w, eps))]

    # fused_add_rmsnorm writes both of its first arguments in place.
    inp = x.clone()
    residual = torch.randn(x.shape, device="cuda", dtype=dtype, generator=gen)
    expected_residual = residual.float() + inp.float()
    flashinfer.norm.fused_add_rmsnorm(inp, residual, w, eps)
    results[f"fused_add_rmsnorm.{name}"] = [
        digest(inp),
        digest(residual),
        close(residual, expected_residual),
        close(inp, rms_reference(expected_residual, w, eps)),
    ]

    gate = torch.randn(37, 2 * 2048, device="cuda", dtype=dtype, generator=gen)
    a, b = gate.float().chunk(2, dim=-1)
    for act, formula in [
        ("silu_and_mul", torch.nn.functional.silu(a) * b),
        ("gelu_tanh_and_mul", torch.nn.functional.gelu(a, approximate="tanh") * b),
        ("gelu_and_mul", torch.nn.functional.gelu(a) * b),
    ]:
        out = getattr(flashinfer.activation, act)(gate)
        results[f"{act}.{name}"] = [digest(out), list(out.shape), close(out, formula)]

# A side stream: the kernel must run on the caller's current stream, after the work queued there.
x = torch.randn(512, 8192, device="cuda", dtype=torch.float16, generator=gen)
w = torch.randn(8192, device="cuda", dtype=torch.float16, generator=gen)
expected = flashinfer.norm.rmsnorm(x * 2, w, eps)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    doubled = x * 2  # queued on the side stream; the norm must see it finished
    on_side = flashinfer.norm.rmsnorm(doubled, w, eps)
side.synchronize()
results["rmsnorm.side_stream"] = [digest(on_side), torch.equal(on_side, expected)]

# Errors from FlashInfer's C++ checks arrive as Python exceptions, and the module still works.
norm = flashinfer.norm.get_norm_module()
x = torch.randn(8, 256, device="cuda", dtype=torch.float16, generator=gen)
out = torch.empty_like(x)
results["error.weight_shape"] = error_of(
    lambda: norm.rmsnorm(out, x, torch.ones(128, device="cuda", dtype=x.dtype), eps, False)
)
results["error.cpu_tensor"] = error_of(
    lambda: norm.rmsnorm(out, x.cpu(), torch.ones(256, dtype=x.dtype), eps, False)
)
results["error.dtype"] = error_of(
    lambda: norm.rmsnorm(out.float(), x.float(), torch.ones(256, device="cuda"), eps, False)
)
results["error.too_few_arguments"] = error_of(lambda: norm.rmsnorm(out, x))
w = torch.ones(256, device="cuda", dtype=x.dtype)
results["after_errors"] = digest(flashinfer.norm.rmsnorm(x, w, eps))
torch.cuda.synchronize()
report(results)
