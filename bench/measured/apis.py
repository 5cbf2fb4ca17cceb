"""What MindSpore's documentation says of each update API: its platforms and its page.

Facts about the documentation (read from the API pages of the newest releases that have them,
November 2026), not results: an answer for CPU users must rely on an API documented for the CPU.
A strategy names its API (``API = "mindspore.ops.assign"``); an API not listed here is reported as
"not documented here". Deprecation notes are kept because a user copying the answer needs them.
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS = "https://www.mindspore.cn/docs/en/master/api_python"


@dataclass(frozen=True)
class ApiDoc:
    platforms: tuple[str, ...]
    url: str
    note: str = ""

    def documents(self, platform: str) -> bool:
        return platform in self.platforms


APIS = {
    "mindspore.ops.assign": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.assign.html",
        "the r2.9/r2.10 pages mark it deprecated",
    ),
    "mindspore.ops.Assign": ApiDoc(
        ("Ascend", "GPU", "CPU"), f"{DOCS}/ops/mindspore.ops.Assign.html"
    ),
    "mindspore.ops.assign_add": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.assign_add.html",
        "the r2.9 pages mark it deprecated",
    ),
    "mindspore.Tensor.copy_": ApiDoc(
        ("Ascend",),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.copy_.html",
        "documented for Ascend only; experimental",
    ),
    "mindspore.ops.index_add": ApiDoc(
        ("Ascend", "GPU", "CPU"), f"{DOCS}/ops/mindspore.ops.index_add.html"
    ),
    "mindspore.ops.inplace_index_add": ApiDoc(
        ("Ascend", "CPU"),
        f"{DOCS}/ops/mindspore.ops.inplace_index_add.html",
        "the newer pages mark it deprecated",
    ),
    "mindspore.ops.scatter_nd_update": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.ScatterNdUpdate.html",
        "platforms of the primitive ScatterNdUpdate",
    ),
    "mindspore.Parameter.set_data": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/mindspore/mindspore.Parameter.html",
        "a Parameter method; not supported inside construct or jit",
    ),
    "mindspore.Tensor.__setitem__": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        "https://www.mindspore.cn/docs/en/master/note/index_support.html",
        "index assignment, documented for PyNative and Graph mode",
    ),
}

PLATFORM = "CPU"  # what this suite measures on


def doc(api: str) -> ApiDoc | None:
    return APIS.get(api)
