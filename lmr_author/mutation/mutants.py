"""Mutants of one goal function, made with libcst (only that function's body changes).

Operators: flipped comparisons, swapped arithmetic, dropped terms of sums and products,
changed constants, and/or swaps, a different local returned, the first two arguments
of a call swapped, off-by-one slice bounds, a dropped ``not`` or minus. Each mutant
changes one site; the sites are counted in a first pass and changed one at a time.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass

import libcst as cst

_COMPARISONS: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
}
_ARITHMETIC: dict[type[cst.BaseBinaryOp], type[cst.BaseBinaryOp]] = {
    cst.Add: cst.Subtract,
    cst.Subtract: cst.Add,
    cst.Multiply: cst.Divide,
    cst.Divide: cst.Multiply,
    cst.Power: cst.Multiply,
}


#: Calls whose first two arguments commute: swapping them changes nothing.
SYMMETRIC_CALLS = frozenset(
    {
        "min", "max", "maximum", "minimum", "fmax", "fmin", "hypot", "gcd", "lcm",
        "isclose", "allclose", "array_equal", "equal", "not_equal", "add", "multiply",
        "logical_and", "logical_or", "logical_xor", "dot", "union", "intersection",
    }
)  # fmt: skip


def _callee(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""


@dataclass(frozen=True)
class Mutant:
    index: int
    #: comparison, arithmetic, dropped-term, constant, boolean, return, arguments, slice, unary
    operator: str
    description: str
    source: bytes  # the whole goal file with this one change
    diff: str

    @property
    def key(self) -> str:
        """A stable name of this change: the same for the same change of the same code,
        whatever else the file holds and wherever the function moved (12 hex digits)."""
        changed = [
            line[0] + " ".join(line[1:].split())
            for line in self.diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        ]
        text = "\n".join([self.operator, *changed])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


class _Mutator(cst.CSTTransformer):
    """Counts the mutation sites of the goal function; changes site ``target`` only."""

    def __init__(self, function: str, class_name: str, target: int) -> None:
        self.function = function
        self.class_name = class_name
        self.target = target
        self.sites: list[tuple[str, str]] = []
        self._classes: list[str] = []
        self._depth = 0
        self._in_signature = 0
        self._assigned: list[str] = []  # local names, in the order they are bound

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self._classes.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = ".".join(self._classes)
        if self._depth or (node.name.value == self.function and owner == self.class_name):
            self._depth += 1

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        if self._depth:
            self._depth -= 1
        return updated

    # The masked file keeps the signature: defaults are not the candidate's to write.
    def visit_Parameters(self, node: cst.Parameters) -> None:
        self._in_signature += 1

    def leave_Parameters(self, original: cst.Parameters, updated: cst.Parameters) -> cst.Parameters:
        self._in_signature -= 1
        return updated

    def _site(self, operator: str, description: str) -> bool:
        """Register a site; True when it is the one to change."""
        if not self._depth or self._in_signature:
            return False
        self.sites.append((operator, description))
        return len(self.sites) - 1 == self.target

    def leave_ComparisonTarget(
        self, original: cst.ComparisonTarget, updated: cst.ComparisonTarget
    ) -> cst.ComparisonTarget:
        flipped = _COMPARISONS.get(type(updated.operator))
        if flipped is None:
            return updated
        new = flipped()
        old = type(updated.operator).__name__
        if self._site("comparison", f"{old} -> {type(new).__name__}"):
            return updated.with_changes(operator=new)
        return updated

    def leave_BinaryOperation(
        self, original: cst.BinaryOperation, updated: cst.BinaryOperation
    ) -> cst.BaseExpression:
        swapped = _ARITHMETIC.get(type(updated.operator))
        if swapped is None:
            return updated
        old = type(updated.operator).__name__
        if self._site("arithmetic", f"{old} -> {swapped.__name__}"):
            return updated.with_changes(operator=swapped())
        if self._site("dropped-term", f"drop the right operand of {old}"):
            return updated.left
        return updated

    def leave_BooleanOperation(
        self, original: cst.BooleanOperation, updated: cst.BooleanOperation
    ) -> cst.BooleanOperation:
        is_and = isinstance(updated.operator, cst.And)
        new: cst.BaseBooleanOp = cst.Or() if is_and else cst.And()
        if self._site("boolean", "and -> or" if is_and else "or -> and"):
            return updated.with_changes(operator=new)
        return updated

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        name = node.target.value if isinstance(node.target, cst.Name) else ""
        if self._depth and name and name not in self._assigned:
            self._assigned.append(name)

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if not isinstance(updated.value, cst.Name):
            return updated
        returned = updated.value.value
        others = [name for name in self._assigned if name != returned]
        if others and self._site("return", f"return {others[-1]} instead of {returned}"):
            return updated.with_changes(value=cst.Name(others[-1]))
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        positional = [arg for arg in updated.args if arg.keyword is None and not arg.star]
        if len(positional) < 2 or positional[0].value.deep_equals(positional[1].value):
            return updated
        if _callee(updated.func) in SYMMETRIC_CALLS:
            return updated  # swapping would be an equivalent mutant
        if self._site("arguments", "swap the first two arguments"):
            args = list(updated.args)
            first, second = args.index(positional[0]), args.index(positional[1])
            args[first] = positional[0].with_changes(value=positional[1].value)
            args[second] = positional[1].with_changes(value=positional[0].value)
            return updated.with_changes(args=args)
        return updated

    def leave_Slice(self, original: cst.Slice, updated: cst.Slice) -> cst.Slice:
        for bound in ("lower", "upper"):
            value = getattr(updated, bound)
            if value is None or isinstance(value, cst.Integer | cst.UnaryOperation):
                continue  # integer bounds are the constant operator's
            if self._site("slice", f"off by one: {bound} bound + 1"):
                plus_one = cst.BinaryOperation(value, cst.Add(), cst.Integer("1"))
                return updated.with_changes(**{bound: plus_one})
        return updated

    def leave_UnaryOperation(
        self, original: cst.UnaryOperation, updated: cst.UnaryOperation
    ) -> cst.BaseExpression:
        if isinstance(updated.operator, cst.Not | cst.Minus) and self._site(
            "unary", f"drop {'not' if isinstance(updated.operator, cst.Not) else 'minus'}"
        ):
            return updated.expression
        return updated

    def leave_Integer(self, original: cst.Integer, updated: cst.Integer) -> cst.Integer:
        value = updated.evaluated_value
        if self._site("constant", f"{value} -> {value + 1}"):
            return cst.Integer(str(value + 1))
        return updated

    def leave_Float(self, original: cst.Float, updated: cst.Float) -> cst.Float:
        value = updated.evaluated_value
        new = value * 2 if value else 1.0
        if self._site("constant", f"{value} -> {new}"):
            return cst.Float(repr(new))
        return updated


def mutants_of(
    source: bytes, goal_function: str, class_name: str = "", *, limit: int = 40
) -> list[Mutant]:
    """Up to ``limit`` single-change mutants of ``goal_function`` in ``source``."""
    module = cst.parse_module(source)
    counter = _Mutator(goal_function, class_name, target=-1)
    module.visit(counter)
    sites = counter.sites
    step = max(1, len(sites) // limit) if len(sites) > limit else 1
    mutants: list[Mutant] = []
    original = source.decode("utf-8")
    for target in range(0, len(sites), step)[:limit]:
        mutator = _Mutator(goal_function, class_name, target=target)
        changed = module.visit(mutator).code
        if changed == original:
            continue
        operator, description = sites[target]
        diff = "".join(
            difflib.unified_diff(
                original.splitlines(keepends=True),
                changed.splitlines(keepends=True),
                "golden",
                f"mutant {len(mutants) + 1}",
                n=1,
            )
        )
        mutants.append(
            Mutant(len(mutants) + 1, operator, description, changed.encode("utf-8"), diff)
        )
    return mutants
