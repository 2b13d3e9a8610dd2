"""What kgen knows about one job kind, declared once in the kind's own package.

A kind package (kgen/kinds/pytorch, kgen/kinds/tensorflow) holds its declaration in
`__init__.py`, a `Kind` built from plain data that costs nothing to import, and its code
in modules the record imports on first use, named by their job:

- `spec.py`: `MODEL`, the pydantic model of its job spec; `ROLES`, the model of its
  `roles:`; `scale_limit(spec)`; `REFERENCE`, its own sections of the spec reference,
  and `TYPE_NAMES`, how the reference names its own field types;
- `render.py`: `render(spec, env)`, the object's `spec` for the environment's target,
  and `live_pointers(spec)`, what the live object changes by design (ignoreDifferences);
- `env.py`: `replicas(spec, env, name, limit)`, the pods and the env the operator gives
  each on the environment's operator release;
- `rules.py`: `RULES`, its own rules over a validated spec, and `POD_RULES` (if any),
  those of them that read a rendered pod template too, for what the patches wrote;
- `envelope.py`: `fields(target)`, its own properties in the output schema;
- `importer.py`: `read_fields(spec, target, out, notes)`, its own fields of an object
  (and, for a kind without replica specs, `beside=`: the objects imported beside it);
- `view.py` (only a kind without replica specs): `replica_view(doc, kind, as_kind)`, an
  object of it as the replica-spec job it renders from, for import;
- `sections.py` (only a kind that declares `sections`): `foreign_sections(data, target)`,
  its own spec sections refused where the target renders another kind.

The code is imported on first use for start-up time: building the job models is a fifth
of kgen's start-up, and a run whose renders all come from the cache never needs them.
tests/test_kinds.py checks every registered kind has every part.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem

# The health table lives in its own module; kinds import it from here too.
from kgen.kinds.health import TRAINING_JOB_HEALTH as TRAINING_JOB_HEALTH
from kgen.kinds.health import Health

# The records live in their own module; kinds import them from here too.
from kgen.kinds.roles import Replica as Replica
from kgen.kinds.roles import RoleDef as RoleDef
from kgen.kinds.roles import SingleRole as SingleRole
from kgen.kinds.roles import shown_indices as shown_indices
from kgen.rules.info import RuleInfo

if TYPE_CHECKING:
    from pydantic import BaseModel

    from kgen.kinds.roles import PodRule
    from kgen.kinds.targets import ApiTarget
    from kgen.load.document import Document
    from kgen.render.base import Environment
    from kgen.rules.context import Rule
    from kgen.spec.job import JobSpec

    Data = dict[str, Any]  # an object or spec as import reads it
    Notes = list[Problem]  # what import cannot keep of an object, at its paths

_PARTS: dict[str, ModuleType] = {}


class Kind:
    """A job kind's declaration (see the module docstring). A plain class, written out:
    as a frozen dataclass its generated methods were compiled from source as kgen.kinds
    was imported, about 1 ms of every run's start-up. Kinds are immutable, and equal
    when every declared field is."""

    framework: str  # the spec's `framework:`
    kind: str
    group: str
    replica_key: str
    roles: tuple[RoleDef, ...]
    # Every replica type the API accepts, in its order (TFJob also takes Master).
    api_roles: tuple[str, ...]
    # The operator's named container and port (kubeflow-api.md §2.4).
    container: str
    port_name: str
    port: int
    default_restart: str
    # The API targets the kind exists on.
    targets: frozenset[str]
    # The kind's own spec fields (by YAML key) and the targets that have them.
    fields: Mapping[str, frozenset[str]]
    # The operator's cleanPodPolicy when a job leaves it out, and the targets where
    # it differs from that.
    clean_pod_policy: str
    clean_pod_policy_on: Mapping[str, str]
    health: Health
    # Catalogue entries of the kind's own problem codes.
    catalog: tuple[RuleInfo, ...]
    package: str  # where the parts live (see the module docstring)
    # The operator takes the first container whatever its name (MPIJob), so an
    # imported object's main container need not carry `container`'s name.
    first_container: bool
    # Top-level spec sections only this kind takes (TrainJob's `trainJob:`); its
    # `sections` part refuses them on a target that renders another kind.
    sections: tuple[str, ...]
    appends_env: bool  # its operator appends env after the containers' own
    _by_name: dict[str, RoleDef]

    def __init__(
        self,
        *,
        framework: str,
        kind: str,
        group: str,
        replica_key: str,
        roles: tuple[RoleDef, ...],
        api_roles: tuple[str, ...],
        container: str,
        port_name: str,
        port: int,
        default_restart: str,
        targets: frozenset[str],
        fields: Mapping[str, frozenset[str]],
        clean_pod_policy: str,
        clean_pod_policy_on: Mapping[str, str],
        health: Health,
        catalog: tuple[RuleInfo, ...],
        package: str,
        first_container: bool = False,
        sections: tuple[str, ...] = (),
        appends_env: bool = False,
    ) -> None:
        declared = dict(locals())
        del declared["self"]
        for name, value in declared.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_by_name", {role.name: role for role in roles})

    def _declared(self) -> tuple[Any, ...]:
        return tuple(v for k, v in vars(self).items() if k != "_by_name")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Kind is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Kind):
            return NotImplemented
        return self is other or self._declared() == other._declared()

    # Unhashable, as the frozen dataclass was (its fields hold dicts).
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Kind(framework={self.framework!r}, kind={self.kind!r})"

    def role(self, name: str) -> RoleDef:
        return self._by_name[name]

    def role_for_key(self, key: str) -> RoleDef | None:
        return next((role for role in self.roles if role.key == key), None)

    def supports(self, field: str, target: ApiTarget) -> bool:
        """Whether `target` has the kind's own spec field `field`."""
        return target.name in self.fields.get(field, frozenset())

    def operator_clean_pod_policy(self, target: str) -> str:
        """The cleanPodPolicy the operator of `target` applies when a job has none."""
        return self.clean_pod_policy_on.get(target, self.clean_pod_policy)

    def default_clean_pod_policy(self, target: str, roles: Iterable[str]) -> str:
        """kgen's cleanPodPolicy for a job with `roles` (spec names) on `target`: the
        operator's, or Running when a role never exits (kubeflow-api.md §7)."""
        if any(self.role(name).never_exits for name in roles if name in self._by_name):
            return "Running"
        return self.operator_clean_pod_policy(target)

    def _part(self, name: str) -> ModuleType:
        # Asked several times a render: importlib's own lookup costs 30 times this.
        module_name = f"{self.package}.{name}"
        module = _PARTS.get(module_name)
        if module is None:
            module = _PARTS[module_name] = importlib.import_module(module_name)
        return module

    def foreign_sections(self, data: Any, target: str) -> tuple[Any, list[Problem]]:
        """`data` without this kind's own sections where `target` does not render
        it, and the errors that say so."""
        if not self.sections:
            return data, []
        found: tuple[Any, list[Problem]]
        found = self._part("sections").foreign_sections(data, target)
        return found

    def replica_view(self, doc: Document, as_kind: Kind) -> Document:
        """A kind without replica specs (TrainJob): an object of it read as the
        replica-spec job of `as_kind` it renders from (its `view` part), for import."""
        view: Document = self._part("view").replica_view(doc, self, as_kind)
        return view

    def model(self) -> type[JobSpec]:
        model: type[JobSpec] = self._part("spec").MODEL
        return model

    def made(self, spec: JobSpec) -> bool:
        """Whether this kind's model validated `spec`: never by importing the model,
        which made no spec if not imported (TrainJob's six models cost 3 ms)."""
        loaded = sys.modules.get(f"{self.package}.spec")
        return loaded is not None and type(spec) is getattr(loaded, "MODEL", None)

    def roles_model(self) -> type[BaseModel]:
        roles: type[BaseModel] = self._part("spec").ROLES
        return roles

    def reference(self) -> list[tuple[str, type[BaseModel]]]:
        sections: list[tuple[str, type[BaseModel]]] = self._part("spec").REFERENCE
        return sections

    def type_names(self) -> dict[Any, str]:
        names: dict[Any, str] = self._part("spec").TYPE_NAMES
        return names

    def scale_limit(self, spec: JobSpec) -> int | None:
        """The most pods an autoscaler may give the scaled role (0: as many as it has);
        None when nothing scales."""
        limit: int | None = self._part("spec").scale_limit(spec)
        return limit

    def render(
        self, spec: JobSpec, env: Environment
    ) -> tuple[dict[str, Any], list[Problem]]:
        if env.target.name not in self.targets:
            from kgen.kinds.target_names import not_on

            return {}, [not_on(self.kind, self.targets, env.target)]
        rendered: tuple[dict[str, Any], list[Problem]]
        rendered = self._part("render").render(spec, env)
        return rendered

    def live_pointers(self, spec: JobSpec) -> list[str]:
        pointers: list[str] = self._part("render").live_pointers(spec)
        return pointers

    def env_contract(
        self,
        spec: JobSpec,
        env: Environment,
        *,
        name: str | None = None,
        limit: int | None = None,
    ) -> list[Replica]:
        """The pods and their env on `env`'s operator release; `name` is the job
        object's real name (runId or content-hash suffix), `limit` the pods shown per
        role and the hosts per list in a cluster spec (None: all)."""
        if name is None:
            name = f"{spec.name}-{spec.run_id}" if spec.run_id else spec.name
        replicas: list[Replica] = self._part("env").replicas(spec, env, name, limit)
        return replicas

    def rules(self) -> tuple[Rule, ...]:
        rules: tuple[Rule, ...] = self._part("rules").RULES
        return rules

    def pod_rules(self) -> tuple[PodRule, ...]:
        """Its rules over one rendered pod template (kgen.render.patched_pods)."""
        rules: tuple[PodRule, ...] = getattr(self._part("rules"), "POD_RULES", ())
        return rules

    def envelope(self, target: ApiTarget) -> dict[str, Any]:
        fields: dict[str, Any] = self._part("envelope").fields(target)
        return fields

    def read_fields(
        self, spec: Data, target: str, out: Data, notes: Notes, **beside: Any
    ) -> Data:
        """The kind's own fields of an imported object; `beside=`, to a kind whose object
        inherits from one it names (a TrainJob, its runtime): the objects imported beside
        it, in its environment and namespace."""
        importer = self._part("importer")
        fields: Data = importer.read_fields(spec, target, out, notes, **beside)
        return fields

    def spec_path(self, out: DataPath) -> DataPath:
        """The spec path that produced `out` (under the object's `spec`), for a kind
        without replica specs, which maps its own output (kgen.check.trace)."""
        path: DataPath = self._part("trace").spec_path(out)
        return path

    def preload(self) -> None:
        """Import what rendering needs, once, before worker processes fork."""
        for part in ("spec", "render", "rules"):
            self._part(part)
        # Job models build their validators at first use (kgen.spec.base): here, once,
        # not in every worker; first the models of their default instances.
        from kgen.kinds.model_defaults import build_defaults

        build_defaults(self.model())
        self.model().model_rebuild()
