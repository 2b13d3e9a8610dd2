"""`kgen import`, one pod template at a time: what a role's pod says (its main container,
volumes, init containers, scheduling) in a job spec's terms, and what kgen has no
equivalent for, reported at its line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem
from kgen.flow_style import as_text
from kgen.importer.claims import claim_spec
from kgen.importer.containers import core_source, pod_extras, sidecars, trainer_extras
from kgen.load.document import Document
from kgen.render.volumes import SHM_VOLUME
from kgen.spec.addons import GIT_SYNC_IMAGE, repository_name

if TYPE_CHECKING:
    from kgen.kinds.base import Kind

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915")
POD_FIELDS = {"serviceAccountName": "serviceAccountName", "priorityClassName": "priorityClassName", "schedulerName": "schedulerName",
              "nodeSelector": "nodeSelector", "affinity": "affinity", "hostIPC": "hostIPC", "securityContext": "podSecurityContext"}  # fmt: skip
CONTAINER_FIELDS = ("image", "imagePullPolicy", "command", "args", "workingDir", "securityContext")  # fmt: skip


class PodReader:
    """Reads the input while reporting what kgen has no equivalent for, at its line."""

    def __init__(self, doc: Document, problems: list[Problem]) -> None:
        self.doc, self.problems = doc, problems

    def unsupported(
        self,
        path: DataPath,
        what: str,
        *,
        why: str = "kgen has no equivalent",
        hint: str = "add it by hand after import, or leave it out",
    ) -> None:
        origin = self.doc.origin(path)
        self.problems.append(
            Problem(
                f"cannot import {what}: {why}",
                "import-unsupported",
                file=origin.file,
                line=origin.key_line,
                column=origin.key_column,
                hint=hint,
                path=path,  # a patch that keeps it withdraws this (kgen.importer.leftover)
            )
        )


def pod_settings(
    reader: PodReader,
    role: str,
    body: dict[str, Any],
    kind: Kind,
    claims: dict[str, dict[str, Any]],
) -> dict[str, Any] | None:
    # The operator's named container, or the first when it goes by position.
    container = None if kind.first_container else kind.container
    kind_key = next(k for k in reader.doc.data["spec"] if k.endswith("ReplicaSpecs"))
    base: DataPath = ("spec", kind_key, role, "template")
    template = body.get("template") or {}
    pod = template.get("spec") or {}
    containers = pod.get("containers") or []
    main = next(
        (c for c in containers if container is None or c.get("name") == container),
        None,
    )
    if main is None:
        _without_main(reader, (*base, "spec", "containers"), role, container)
        return None
    out: dict[str, Any] = {}
    tmeta = template.get("metadata") or {}
    if without_nulls(tmeta.get("labels")):
        out["podLabels"] = without_nulls(tmeta["labels"])
    if without_nulls(tmeta.get("annotations")):
        out["podAnnotations"] = without_nulls(tmeta["annotations"])
    for key in CONTAINER_FIELDS:
        if main.get(key) is not None:
            out[key] = main[key]
    if main.get("env"):
        out["env"] = [_env(var) for var in main["env"]]
    if main.get("envFrom"):
        out["envFrom"] = [_env_from(item) for item in main["envFrom"]]
    out |= _resources(main.get("resources") or {})
    out |= trainer_extras(main, port_name=kind.port_name, port=kind.port)
    for key, name in POD_FIELDS.items():
        if pod.get(key) is not None:
            out[name] = pod[key]
    if pod.get("hostNetwork"):
        out["hostNetwork"] = True
    if pod.get("tolerations"):
        out["tolerations"] = pod["tolerations"]
    if pod.get("imagePullSecrets"):
        out["imagePullSecrets"] = [s["name"] for s in pod["imagePullSecrets"]]
    out |= pod_extras(pod)
    sync, init = _code_sync(reader, base, pod)
    if init:
        out["initContainers"] = init
    if sync is not None:
        out["codeSync"] = sync
        folder = sync.get("folder") or repository_name(sync["repo"])
        if out.get("workingDir") == f"{sync.get('path', '/code').rstrip('/')}/{folder}":
            del out["workingDir"]
    out |= _volumes(
        reader, base, pod, main, claims, skip={"code-sync"} if sync else set()
    )
    out |= sidecars(containers, main)
    return out


def _without_main(
    reader: PodReader, path: DataPath, role: str, container: str | None
) -> None:
    """A role without the container its operator looks up by name: the operator
    itself refuses the job. training-operator's validation of every kind that names
    one (pkg/webhooks/<kind>/*_webhook.go, "must have at least one container with
    name ...", v1.8.0 to v1.9.4; the controller's xgboost_validation.go before)."""
    if container is None:
        reader.unsupported(path, f"{role} without a container")
        return
    reader.unsupported(
        path,
        f"{role} without a container named {container}",
        why=f"its operator rejects the job (training-operator requires a container"
        f" named {container} in every replica type)",
        hint=f"name the role's main container {container}, then import again",
    )


def _code_sync(
    reader: PodReader, base: DataPath, pod: dict[str, Any]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """kgen's own git-sync init container becomes codeSync again; the others are the
    job's init containers."""
    sync = None
    others: list[dict[str, Any]] = []
    for init in pod.get("initContainers") or []:
        flags = dict(
            a[2:].split("=", 1)
            for a in init.get("args") or []
            if a.startswith("--") and "=" in a
        )
        depth = flags.get("depth", "1")  # a number kgen's codeSync can say, or no sync
        counted = depth.isascii() and depth.isdigit() and len(depth) <= 10
        named = init.get("name") == "git-sync" and {"repo", "root"} <= flags.keys()
        if not named or not counted:
            others.append(init)
            continue
        sync = {"repo": flags["repo"]}
        if "ref" in flags:
            sync["ref"] = flags["ref"]
        if flags.get("link", "") != repository_name(flags["repo"]):
            sync["folder"] = flags.get("link") or "repo"
        if flags.get("submodules", "recursive") != "recursive":
            sync["submodules"] = flags["submodules"]
        if flags["root"] != "/code":
            sync["path"] = flags["root"]
        if init.get("image") != GIT_SYNC_IMAGE:
            sync["image"] = init["image"]
        if depth != "1":
            sync["depth"] = int(depth)
        secrets = [
            e["valueFrom"]["secretKeyRef"].get("name")
            for e in init.get("env") or []
            if "secretKeyRef" in (e.get("valueFrom") or {})
        ]
        if any(secrets):
            sync["credentialsSecret"] = next(s for s in secrets if s)
    return sync, others


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
    value = var.get("value")
    return {"name": var["name"], "value": "" if value is None else as_text(value)}


def without_nulls(entries: dict[str, Any] | None) -> dict[str, Any]:
    """`entries` without its nulls: the API server prunes a null a CRD's schema does
    not allow, as if it were left out (the value was read as the text "None")."""
    return {k: v for k, v in (entries or {}).items() if v is not None}


def sourced(volume: dict[str, Any]) -> dict[str, Any]:
    """A volume as the pod gets it: a null source is pruned by the job's CRD, which
    marks no field nullable, and a volume left without a source is an empty dir
    (k8s.io/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_Volume, when the
    operator creates the pod; issue 46950)."""
    given = {k: v for k, v in volume.items() if v is not None}
    return given if set(given) - {"name"} else {**given, "emptyDir": {}}


def _env_from(item: dict[str, Any]) -> dict[str, Any]:
    out = (
        {"configMap": item["configMapRef"]["name"]}
        if "configMapRef" in item
        else {"secret": item["secretRef"]["name"]}
    )
    return out | ({"prefix": item["prefix"]} if item.get("prefix") else {})


def _resources(resources: dict[str, Any]) -> dict[str, Any]:
    limits = {k: as_text(v) for k, v in without_nulls(resources.get("limits")).items()}
    requests = {
        k: as_text(v) for k, v in without_nulls(resources.get("requests")).items()
    }
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
    reader: PodReader,
    base: DataPath,
    pod: dict[str, Any],
    main: dict[str, Any],
    claims: dict[str, dict[str, Any]],
    *,
    skip: set[str],
) -> dict[str, Any]:
    volumes_in = enumerate(pod.get("volumes") or [])
    sources = {v["name"]: (i, sourced(v)) for i, v in volumes_in}
    out: dict[str, Any] = {}
    volumes = []
    mounts = list(main.get("volumeMounts") or [])
    mounted = {m["name"] for m in mounts}
    # The pod's volumes the trainer does not mount are its sidecars' (no mountPath).
    mounts += [{"name": n} for n in sources if n not in mounted and n not in skip]
    for mount in mounts:
        if mount["name"] in skip:
            continue
        empty: dict[str, Any] = {}
        index, source = sources.get(mount["name"], (None, empty))
        # sharedMemory renders a volume named dshm with a sizeLimit: another name, or
        # no limit, stays a volume.
        if (
            mount["name"] == SHM_VOLUME
            and "emptyDir" in source
            and source["emptyDir"].get("medium") == "Memory"
            and "sizeLimit" in source["emptyDir"]
            and mount.get("mountPath") == "/dev/shm"
        ):
            out["sharedMemory"] = source["emptyDir"]["sizeLimit"]
            continue
        volume: dict[str, Any] = {"name": mount["name"]}
        if "mountPath" in mount:
            volume["mountPath"] = mount["mountPath"]
        core = core_source(source)
        if core is not None:
            volume |= core
        elif "persistentVolumeClaim" in source:
            claim = source["persistentVolumeClaim"]["claimName"]
            volume["claim"] = claim
            if claim in claims:
                volume["create"] = claim_spec(claims[claim])
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
