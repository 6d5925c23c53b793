"""A small GraphQL executor for the fake GitHub: parses the query with
graphql-core and resolves each selected field against plain Python objects,
with aliases, variables, fragments and inline fragments.

An object answers field `name` through a method `gql_<name>(args)` when it
has one, else a key of a dict or an attribute of that name. Objects carry
their GraphQL type in `typename` (for `__typename` and type conditions).
A field nothing answers resolves to null and is recorded in `missing`, which
shows what a newer gh asks for.
"""

from __future__ import annotations

from typing import Any

from graphql import parse
from graphql.language import ast


class GraphQLError(Exception):
    """Answered as `{"errors": [{"message": ...}]}` (gh prints the message)."""

    def __init__(self, message: str, kind: str = "NOT_FOUND") -> None:
        super().__init__(message)
        self.message, self.kind = message, kind


def _value(node: ast.ValueNode, variables: dict[str, Any]) -> Any:
    if isinstance(node, ast.VariableNode):
        return variables.get(node.name.value)
    if isinstance(node, ast.IntValueNode):
        return int(node.value)
    if isinstance(node, ast.FloatValueNode):
        return float(node.value)
    if isinstance(node, ast.BooleanValueNode):
        return node.value
    if isinstance(node, ast.NullValueNode):
        return None
    if isinstance(node, ast.ListValueNode):
        return [_value(v, variables) for v in node.values]
    if isinstance(node, ast.ObjectValueNode):
        return {f.name.value: _value(f.value, variables) for f in node.fields}
    return getattr(node, "value", None)  # strings and enums


class Executor:
    def __init__(self, query: str, variables: dict[str, Any] | None, operation: str | None) -> None:
        self.document = parse(query)
        self.variables = dict(variables or {})
        self.fragments = {
            d.name.value: d
            for d in self.document.definitions
            if isinstance(d, ast.FragmentDefinitionNode)
        }
        ops = [d for d in self.document.definitions if isinstance(d, ast.OperationDefinitionNode)]
        chosen = [o for o in ops if operation is None or (o.name and o.name.value == operation)]
        self.operation = (chosen or ops)[0]
        for definition in self.operation.variable_definitions or ():
            name = definition.variable.name.value
            if name not in self.variables and definition.default_value is not None:
                self.variables[name] = _value(definition.default_value, {})
        self.missing: set[str] = set()

    @property
    def name(self) -> str:
        op = self.operation
        return op.name.value if op.name else ""

    @property
    def is_mutation(self) -> bool:
        return self.operation.operation == ast.OperationType.MUTATION

    def run(self, root: Any) -> dict[str, Any]:
        return self._select(root, self.operation.selection_set)

    def _fields(self, obj: Any, selection_set: ast.SelectionSetNode) -> list[ast.FieldNode]:
        out: list[ast.FieldNode] = []
        for sel in selection_set.selections:
            if isinstance(sel, ast.FieldNode):
                out.append(sel)
            elif isinstance(sel, ast.InlineFragmentNode):
                cond = sel.type_condition.name.value if sel.type_condition else None
                if cond is None or _is_a(obj, cond):
                    out.extend(self._fields(obj, sel.selection_set))
            elif isinstance(sel, ast.FragmentSpreadNode):
                frag = self.fragments[sel.name.value]
                if _is_a(obj, frag.type_condition.name.value):
                    out.extend(self._fields(obj, frag.selection_set))
        return out

    def _select(self, obj: Any, selection_set: ast.SelectionSetNode) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for field in self._fields(obj, selection_set):
            key = field.alias.value if field.alias else field.name.value
            args = {a.name.value: _value(a.value, self.variables) for a in field.arguments or ()}
            value = self._resolve(obj, field.name.value, args)
            result[key] = self._complete(value, field)
        return result

    def _complete(self, value: Any, field: ast.FieldNode) -> Any:
        if field.selection_set is None or value is None:
            return value
        if isinstance(value, list):
            return [self._complete(v, field) for v in value]
        return self._select(value, field.selection_set)

    def _resolve(self, obj: Any, name: str, args: dict[str, Any]) -> Any:
        if name == "__typename":
            return _typename(obj)
        method = getattr(obj, f"gql_{name}", None)
        if method is not None:
            return method(args)
        if isinstance(obj, dict):
            if name in obj:
                return obj[name]
        elif hasattr(obj, name):
            return getattr(obj, name)
        self.missing.add(f"{_typename(obj)}.{name}")
        return None


def _typename(obj: Any) -> str:
    if isinstance(obj, dict):
        return str(obj.get("__typename", "Object"))
    return str(getattr(obj, "typename", type(obj).__name__))


def _is_a(obj: Any, type_name: str) -> bool:
    names = {_typename(obj)}
    if isinstance(obj, dict):
        names |= set(obj.get("__implements", ()))
    else:
        names |= set(getattr(obj, "implements", ()))
    return type_name in names
