"""What MindSpore's documentation says of each update API: its platforms and its page.

Facts about the documentation (read from the API pages of the newest releases that have them,
November 2026), not results: an answer for CPU users must rely on an API documented for the CPU.
A strategy names its API (``API = "mindspore.ops.assign"``); an API not listed here is reported as
"not documented here". Deprecation notes are kept because a user copying the answer needs them.

Each API also declares how it writes (``writes``), with the words of its page that say so
(``says``): ``in-place`` (the Parameter's storage changes, so a view taken before the write sees
it) or ``replace`` (the Parameter gets new data; an earlier view keeps the old). The oracle takes a
strategy's write semantics from here; ``bench.measured.shapes.codegen.write_semantics`` only
checks a strategy's source against it and warns when they disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS = "https://www.mindspore.cn/docs/en/master/api_python"

IN_PLACE = "in-place"  # the write changes the Parameter's storage: aliases and views see it
REPLACE = "replace"  # the write gives the Parameter new data: aliases see it, earlier views not
SEMANTICS = (IN_PLACE, REPLACE)


@dataclass(frozen=True)
class ApiDoc:
    platforms: tuple[str, ...]
    url: str
    note: str = ""
    writes: str = IN_PLACE  # IN_PLACE or REPLACE, as the page says (``says``)
    says: str = ""
    deprecated: bool = False  # the pages of the release measured mark it deprecated (``note``)

    def __post_init__(self):
        if self.writes not in SEMANTICS:
            raise ValueError(f"writes must be one of {SEMANTICS}, not {self.writes!r}")

    def documents(self, platform: str) -> bool:
        return platform in self.platforms


APIS = {
    "mindspore.ops.assign": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.assign.html",
        "the r2.9/r2.10 pages mark it deprecated",
        writes=IN_PLACE,
        says="Assigns Parameter with a value (the Parameter itself is updated)",
        deprecated=True,
    ),
    "mindspore.ops.Assign": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.Assign.html",
        writes=IN_PLACE,
        says="Assigns Parameter with a value (the Parameter itself is updated)",
    ),
    "mindspore.ops.assign_add": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.assign_add.html",
        "the r2.9 pages mark it deprecated",
        writes=IN_PLACE,
        says="Updates a Parameter by adding a value to it",
        deprecated=True,
    ),
    "mindspore.Tensor.copy_": ApiDoc(
        ("Ascend",),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.copy_.html",
        "documented for Ascend only; experimental",
        writes=IN_PLACE,
        says="Copies the elements from src into self tensor (an in-place method)",
    ),
    "mindspore.ops.index_add": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.index_add.html",
        writes=IN_PLACE,
        says="Adds tensor y to specified axis and indices of Parameter x",
    ),
    "mindspore.ops.inplace_index_add": ApiDoc(
        ("Ascend", "CPU"),
        f"{DOCS}/ops/mindspore.ops.inplace_index_add.html",
        "the newer pages mark it deprecated",
        writes=IN_PLACE,
        says="Adds Tensor updates to specified axis and indices of Tensor var (in place)",
        deprecated=True,
    ),
    "mindspore.ops.scatter_nd_update": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.ScatterNdUpdate.html",
        "platforms of the primitive ScatterNdUpdate",
        writes=IN_PLACE,
        says="Updates tensor values by using input indices and value (of the Parameter input_x)",
    ),
    "mindspore.Parameter.set_data": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/mindspore/mindspore.Parameter.html",
        "a Parameter method; not supported inside construct or jit",
        writes=REPLACE,
        says="Set Parameter's data (new data: a view taken before keeps the old, DESIGN.md)",
    ),
    "mindspore.Tensor.__setitem__": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        "https://www.mindspore.cn/docs/en/master/note/index_support.html",
        "index assignment, documented for PyNative and Graph mode",
        writes=IN_PLACE,
        says="index value assignment changes the indexed elements of the tensor",
    ),
    # Added for issue 28: what MindSpore 2.x users (many porting from PyTorch) write. Platforms,
    # deprecation and words from the 2.10.0 docstrings (the pages are generated from them) and the
    # pages found by search; an in-place method whose own page lists no platforms gets none here.
    "mindspore.Tensor.add_": ApiDoc(
        (),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.add_.html",
        "its page lists no platforms (only 'In-place version of mindspore.Tensor.add()', whose "
        "page lists Ascend, GPU, CPU); not marked deprecated",
        writes=IN_PLACE,
        says="In-place version of mindspore.Tensor.add()",
    ),
    "mindspore.Tensor.index_copy_": ApiDoc(
        ("Ascend",),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.index_copy_.html",
        "documented for Ascend only; not marked deprecated",
        writes=IN_PLACE,
        says="Copies the elements of tensor into the self ... Returns self Tensor",
    ),
    "mindspore.Tensor.index_put_": ApiDoc(
        ("Ascend",),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.index_put_.html",
        "documented for Ascend only; not marked deprecated",
        writes=IN_PLACE,
        says="replace the corresponding elements in Tensor self with the values ... Update and "
        "return self",
    ),
    "mindspore.Tensor.fill_": ApiDoc(
        ("Ascend",),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.fill_.html",
        "documented for Ascend only; experimental; a Tensor value must be 0-D or shape [1]",
        writes=IN_PLACE,
        says="Fills self tensor with the specified value",
    ),
    "mindspore.Tensor.mul_": ApiDoc(
        ("Ascend",),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.mul_.html",
        "documented for Ascend only; experimental; not marked deprecated",
        writes=IN_PLACE,
        says="Multiplies two tensors element-wise (the in-place version: self is updated)",
    ),
    "mindspore.Tensor.masked_fill_": ApiDoc(
        (),
        f"{DOCS}/mindspore/Tensor/mindspore.Tensor.masked_fill_.html",
        "its page lists no platforms (only 'In-place version of mindspore.Tensor.masked_fill'); "
        "not marked deprecated; its return type changes after 2.9.0",
        writes=IN_PLACE,
        says="In-place version of mindspore.Tensor.masked_fill",
    ),
    "mindspore.ops.InplaceUpdateV2": ApiDoc(
        ("GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.InplaceUpdateV2.html",
        "experimental; not marked deprecated; its Outputs are a new Tensor",
        writes=IN_PLACE,
        says="Updates specified values in x to v according to indices",
    ),
    "mindspore.ops.ScatterUpdate": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.ScatterUpdate.html",
        "not marked deprecated",
        writes=IN_PLACE,
        says="Using given values to update tensor value (input_x: Parameter or Tensor)",
    ),
    "mindspore.ops.tensor_scatter_update": ApiDoc(
        ("Ascend", "GPU", "CPU"),
        f"{DOCS}/ops/mindspore.ops.tensor_scatter_update.html",
        "not marked deprecated; functional: only rebinding the attribute writes the Parameter",
        writes=REPLACE,
        says="Creates a new tensor by updating the positions in input_x ... the updates are "
        "applied on output Tensor instead of input_x",
    ),
}

PLATFORM = "CPU"  # what this suite measures on


def doc(api: str) -> ApiDoc | None:
    return APIS.get(api)


def writes(api: str) -> str | None:
    """How ``api`` writes (IN_PLACE / REPLACE) as its page says; None for an API not listed."""
    found = APIS.get(api)
    return found.writes if found else None
