"""`kgen import`: existing PyTorchJob/TFJob manifests (any API shape) and their claims
become job specs; inputs that share a job name become one spec plus an overlay each.

What kgen cannot express (sidecars, other volume types, unknown fields) is reported at
the input's file:line:col instead of being dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.loader import Document, load_string
from kgen.models.addons import GIT_SYNC_IMAGE

KINDS = {
    "PyTorchJob": ("pytorch", "pytorchReplicaSpecs", "pytorch"),
    "TFJob": ("tensorflow", "tfReplicaSpecs", "tensorflow"),
}
RUN_FIELDS = (
    "cleanPodPolicy",
    "ttlSecondsAfterFinished",
    "activeDeadlineSeconds",
    "backoffLimit",
    "schedulingPolicy",
)
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915")
DEFAULT_RESTART = {"pytorch": "OnFailure", "tensorflow": "Never"}
POD_FIELDS = {"serviceAccountName": "serviceAccountName", "priorityClassName": "priorityClassName", "schedulerName": "schedulerName",
              "nodeSelector": "nodeSelector", "affinity": "affinity", "hostIPC": "hostIPC", "securityContext": "podSecurityContext"}  # fmt: skip
CONTAINER_FIELDS = (
    "image",
    "imagePullPolicy",
    "command",
    "args",
    "workingDir",
    "securityContext",
)


@dataclass
class Imported:
    """One input job: its spec, where it came from, and its environment settings."""

    file: str
    spec: dict[str, Any]
    target: str
    namespace: str | None


@dataclass
class ImportResult:
    jobs: list[Imported] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def import_files(paths: list[Path], *, cwd: Path) -> ImportResult:
    result = ImportResult()
    documents: list[Document] = []
    for path in paths:
        display = path.as_posix()
        try:
            text = (cwd / path).read_text(encoding="utf-8")
        except OSError as exc:
            result.problems.append(
                Problem(f"cannot read file: {exc.strerror}", "io", file=display)
            )
            continue
        for chunk in _documents(text):
            doc, problems = load_string(chunk, display)
            result.problems += problems
            if doc is not None:
                documents.append(doc)
    # Claims may sit in files of their own, beside the jobs that mount them.
    claims: dict[str, dict[str, Any]] = {}
    for doc in documents:
        data = doc.data
        name = _name(data) if isinstance(data, dict) else None
        if name and data.get("kind") == "PersistentVolumeClaim":
            claims[name] = data.get("spec") or {}
    for doc in documents:
        try:
            _import_document(doc, result, claims=claims)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            # Manifests from anywhere: a shape the API does not have is the input's fault.
            start = doc.origin(())
            message = f"cannot import this {doc.data.get('kind')}: it does not have the API's shape ({type(exc).__name__}: {exc})"
            result.problems.append(
                Problem(
                    message,
                    "import-unsupported",
                    file=doc.file,
                    line=start.line,
                    column=start.column,
                )
            )
    return result


def _name(data: dict[str, Any]) -> str | None:
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


def _documents(text: str) -> list[str]:
    # Keep line numbers: each document is padded with the lines before it.
    out: list[str] = []
    lines, start = text.split("\n"), 0
    for number, line in enumerate([*lines, "---"]):
        if line.startswith("---") and number >= start:
            chunk = "\n" * start + "\n".join(lines[start:number])
            if chunk.strip():
                out.append(chunk)
            start = number + 1
    return out


def _import_document(
    doc: Document,
    result: ImportResult,
    *,
    claims: dict[str, dict[str, Any]],
) -> None:
    data = doc.data
    if not isinstance(data, dict) or data.get("kind") not in KINDS:
        return
    if _name(data) is None:
        start = doc.origin(())
        message = f"cannot import a {data['kind']} without metadata.name"
        result.problems.append(
            Problem(
                message,
                "import-unsupported",
                file=doc.file,
                line=start.line,
                column=start.column,
            )
        )
        return
    problems: list[Problem] = []
    reader = _Reader(doc, problems)
    framework, replica_key, container = KINDS[data["kind"]]
    spec_in = data.get("spec") or {}
    target = _target(data["apiVersion"], spec_in)
    out: dict[str, Any] = {"name": data["metadata"]["name"], "framework": framework}
    out["image"] = ""  # filled from the pods below; keeps the usual key order
    meta = data.get("metadata") or {}
    labels = {
        k: v
        for k, v in (meta.get("labels") or {}).items()
        if k not in ("app.kubernetes.io/managed-by", "kgen.io/job")
    }
    if labels:
        out["labels"] = labels
    if meta.get("annotations"):
        out["annotations"] = meta["annotations"]
    roles = spec_in.get(replica_key) or {}
    settings = [
        _pod_settings(reader, role, body, container, claims)
        for role, body in roles.items()
    ]
    shared = _common([s for s in settings if s is not None])
    out |= shared
    if not out["image"]:
        del out["image"]
    out["roles"] = {}
    for (role, body), pod in zip(roles.items(), settings, strict=True):
        entry: dict[str, Any] = {"replicas": body.get("replicas", 1)}
        if (
            body.get("restartPolicy", DEFAULT_RESTART[framework])
            != DEFAULT_RESTART[framework]
        ):
            entry["restartPolicy"] = body["restartPolicy"]
        entry |= _role_overrides(shared, pod or {})
        out["roles"][role.lower()] = entry
    out |= _run_policy(reader, spec_in, target, framework, roles)
    for key in ("elasticPolicy", "successPolicy", "enableDynamicWorker"):
        if spec_in.get(key) not in (None, ""):
            out[key] = spec_in[key]
    # A field the input leaves out means the operator's default, which kgen's defaults do
    # not always match on purpose: keep the job's meaning by writing it out.
    nproc = spec_in.get("nprocPerNode") or (
        "auto" if framework == "pytorch" and target == "v1" else None
    )
    if nproc and nproc != _default_nproc(out):
        out["nprocPerNode"] = nproc
    result.problems += problems
    result.jobs.append(Imported(doc.file, out, target, meta.get("namespace")))


def _target(api_version: str, spec: dict[str, Any]) -> str:
    """The API target of an input. kubeflow.org/v1 is the legacy layout only when run
    fields sit directly under spec; without any it reads the same in both, and current
    operators are the likelier reader."""
    if api_version == "kubeflow.org/v1":
        legacy = "runPolicy" not in spec and any(k in spec for k in RUN_FIELDS)
        return "v1-legacy" if legacy else "v1"
    return api_version.rsplit("/", 1)[1]


def _default_nproc(spec: dict[str, Any]) -> str:
    gpu = (spec.get("resources") or {}).get("gpu", 0)
    return str(gpu) if gpu else "1"


class _Reader:
    """Reads the input while reporting what kgen has no equivalent for, at its line."""

    def __init__(self, doc: Document, problems: list[Problem]) -> None:
        self.doc, self.problems = doc, problems

    def unsupported(self, path: DataPath, what: str) -> None:
        origin = self.doc.origin(path)
        message = f"cannot import {what}: kgen has no equivalent"
        self.problems.append(
            Problem(
                message,
                "import-unsupported",
                file=origin.file,
                line=origin.key_line,
                column=origin.key_column,
                hint="add it by hand after import, or leave it out",
            )
        )


def _pod_settings(
    reader: _Reader,
    role: str,
    body: dict[str, Any],
    container: str,
    claims: dict[str, dict[str, Any]],
) -> dict[str, Any] | None:
    kind_key = next(k for k in reader.doc.data["spec"] if k.endswith("ReplicaSpecs"))
    base: DataPath = ("spec", kind_key, role, "template")
    template = body.get("template") or {}
    pod = template.get("spec") or {}
    containers = pod.get("containers") or []
    main = next((c for c in containers if c.get("name") == container), None)
    if main is None:
        reader.unsupported(
            (*base, "spec", "containers"),
            f"{role} without a container named {container}",
        )
        return None
    for index, other in enumerate(containers):
        if other is not main:
            reader.unsupported(
                (*base, "spec", "containers", index),
                f"the sidecar container {other.get('name')}",
            )
    out: dict[str, Any] = {}
    tmeta = template.get("metadata") or {}
    if tmeta.get("labels"):
        out["podLabels"] = tmeta["labels"]
    if tmeta.get("annotations"):
        out["podAnnotations"] = tmeta["annotations"]
    for key in CONTAINER_FIELDS:
        if key in main:
            out[key] = main[key]
    if main.get("env"):
        out["env"] = [_env(var) for var in main["env"]]
    if main.get("envFrom"):
        out["envFrom"] = [_env_from(item) for item in main["envFrom"]]
    out |= _resources(main.get("resources") or {})
    for key, name in POD_FIELDS.items():
        if key in pod:
            out[name] = pod[key]
    if pod.get("hostNetwork"):
        out["hostNetwork"] = True
    if pod.get("tolerations"):
        out["tolerations"] = pod["tolerations"]
    if pod.get("imagePullSecrets"):
        out["imagePullSecrets"] = [s["name"] for s in pod["imagePullSecrets"]]
    sync = _code_sync(reader, base, pod)
    if sync is not None:
        out["codeSync"] = sync
        if out.get("workingDir") == f"{sync.get('path', '/code')}/repo":
            del out["workingDir"]
    out |= _volumes(
        reader, base, pod, main, claims, skip={"code-sync"} if sync else set()
    )
    return out


def _code_sync(
    reader: _Reader, base: DataPath, pod: dict[str, Any]
) -> dict[str, Any] | None:
    """kgen's own git-sync init container becomes codeSync again; others are reported."""
    sync = None
    for index, init in enumerate(pod.get("initContainers") or []):
        flags = dict(
            a[2:].split("=", 1)
            for a in init.get("args", [])
            if a.startswith("--") and "=" in a
        )
        if (
            init.get("name") != "git-sync"
            or not {"repo", "ref", "root"} <= flags.keys()
        ):
            reader.unsupported(
                (*base, "spec", "initContainers", index),
                f"the init container {init.get('name')}",
            )
            continue
        sync = {"repo": flags["repo"], "ref": flags["ref"]}
        if flags["root"] != "/code":
            sync["path"] = flags["root"]
        if init.get("image") != GIT_SYNC_IMAGE:
            sync["image"] = init["image"]
        if flags.get("depth", "1") != "1":
            sync["depth"] = int(flags["depth"])
        secrets = [
            e["valueFrom"]["secretKeyRef"]["name"]
            for e in init.get("env", [])
            if "secretKeyRef" in e.get("valueFrom", {})
        ]
        if secrets:
            sync["credentialsSecret"] = secrets[0]
    return sync


def _env(var: dict[str, Any]) -> dict[str, Any]:
    source = var.get("valueFrom") or {}
    if "fieldRef" in source:
        return {
            "name": var["name"],
            "fieldRef": {"fieldPath": source["fieldRef"]["fieldPath"]},
        }
    for key in ("secretKeyRef", "configMapKeyRef"):
        if key in source:
            return {"name": var["name"], key: source[key]}
    return {"name": var["name"], "value": str(var.get("value", ""))}


def _env_from(item: dict[str, Any]) -> dict[str, Any]:
    out = (
        {"configMap": item["configMapRef"]["name"]}
        if "configMapRef" in item
        else {"secret": item["secretRef"]["name"]}
    )
    return out | ({"prefix": item["prefix"]} if item.get("prefix") else {})


def _resources(resources: dict[str, Any]) -> dict[str, Any]:
    limits = {k: str(v) for k, v in (resources.get("limits") or {}).items()}
    requests = {k: str(v) for k, v in (resources.get("requests") or {}).items()}
    out: dict[str, Any] = {}
    gpu_key = next((k for k in limits if k in GPU_RESOURCES), None)
    if gpu_key:
        out["gpu"] = int(limits.pop(gpu_key))
        requests.pop(gpu_key, None)
        if gpu_key != "nvidia.com/gpu":
            out["gpuResource"] = gpu_key
    if requests:
        out["requests"] = requests
    if limits:
        out["limits"] = limits
    return {"resources": out} if out else {}


def _volumes(
    reader: _Reader,
    base: DataPath,
    pod: dict[str, Any],
    main: dict[str, Any],
    claims: dict[str, dict[str, Any]],
    *,
    skip: set[str],
) -> dict[str, Any]:
    sources = {v["name"]: (i, v) for i, v in enumerate(pod.get("volumes") or [])}
    out: dict[str, Any] = {}
    volumes = []
    for mount in main.get("volumeMounts") or []:
        if mount["name"] in skip:
            continue
        empty: dict[str, Any] = {}
        index, source = sources.get(mount["name"], (None, empty))
        if (
            "emptyDir" in source
            and source["emptyDir"].get("medium") == "Memory"
            and mount["mountPath"] == "/dev/shm"
        ):
            out["sharedMemory"] = source["emptyDir"].get("sizeLimit", "1Gi")
            continue
        volume: dict[str, Any] = {
            "name": mount["name"],
            "mountPath": mount["mountPath"],
        }
        if "persistentVolumeClaim" in source:
            claim = source["persistentVolumeClaim"]["claimName"]
            volume["claim"] = claim
            if claim in claims:
                volume["create"] = _claim_spec(claims[claim])
        elif "configMap" in source:
            volume["configMap"] = source["configMap"]["name"]
        elif "secret" in source:
            volume["secret"] = source["secret"]["secretName"]
        else:
            reader.unsupported(
                (*base, "spec", "volumes", index if index is not None else 0),
                f"the volume {mount['name']}",
            )
            continue
        if mount.get("subPath"):
            volume["subPath"] = mount["subPath"]
        if mount.get("readOnly"):
            volume["readOnly"] = True
        volumes.append(volume)
    if volumes:
        out["volumes"] = volumes
    return out


def _claim_spec(spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "size": str(spec.get("resources", {}).get("requests", {}).get("storage", "1Gi"))
    }
    if "storageClassName" in spec:
        out["storageClass"] = spec["storageClassName"]
    if spec.get("accessModes") and spec["accessModes"] != ["ReadWriteOnce"]:
        out["accessModes"] = spec["accessModes"]
    if spec.get("volumeMode") == "Block":
        out["volumeMode"] = "Block"
    return out


def _common(pods: list[dict[str, Any]]) -> dict[str, Any]:
    """What every role's pod shares: it becomes job-wide."""
    if not pods:
        return {}
    return {k: v for k, v in pods[0].items() if all(p.get(k) == v for p in pods[1:])}


def _role_overrides(shared: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any]:
    allowed = (
        "image",
        "command",
        "args",
        "env",
        "resources",
        "nodeSelector",
        "tolerations",
        "affinity",
    )
    return {k: v for k, v in pod.items() if k in allowed and shared.get(k) != v}


def _run_policy(
    reader: _Reader,
    spec: dict[str, Any],
    target: str,
    framework: str,
    roles: dict[str, Any],
) -> dict[str, Any]:
    source = spec.get("runPolicy", {}) if target == "v1" else spec
    policy = {k: source[k] for k in RUN_FIELDS if k in source}
    operator_default = (
        "Running" if framework == "tensorflow" and target != "v1" else "None"
    )
    policy.setdefault("cleanPodPolicy", operator_default)
    default = (
        "Running"
        if framework == "tensorflow" and ("PS" in roles or target != "v1")
        else "None"
    )
    if policy.get("cleanPodPolicy") == default:
        del policy["cleanPodPolicy"]
    if "ttlSecondsAfterFinished" in policy:
        policy["ttlAcknowledged"] = True
    if source.get("suspend"):
        reader.unsupported(
            ("spec", "runPolicy", "suspend"), "a suspended job (suspend: true)"
        )
    return {"runPolicy": policy} if policy else {}
