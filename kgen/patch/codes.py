"""The codes of `patches:` (kgen.patch); kgen.rules.catalog takes them in. None is
silenceable: a patch that does not apply as written is a mistake in the patch."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

PATCH_CODES: list[RuleInfo] = [
    rule(
        "patch-no-target",
        "error",
        False,
        "A patch whose target selects no rendered object",
        "A patch applies to the objects its `target:` selects among the job's rendered objects (the job, its created claims, its TensorBoard), by kind, name (the job's, before a `runId` or content-hash suffix), group, version and labels; without a target it applies to the job's own object. A patch that applies to nothing is a mistake, often a kind or name written differently.",
    ),
    rule(
        "patch-path-missing",
        "error",
        False,
        "A JSON patch operation at a path the object does not have",
        "RFC 6902: `remove`, `replace`, `test`, and the `from` of `move` and `copy`, need the value to exist; `add` needs its parent (and a list index at most the list's length, or `-` for its end). Look at the object kgen renders without the patch (`kgen build`).",
    ),
    rule(
        "patch-test-failed",
        "error",
        False,
        "A JSON patch `test` operation found another value",
        "A `test` guards a patch written for a render that has since changed: the rendered value is not the one the patch expects, so the patch is not applied. The message never quotes either value (it may be a secret).",
    ),
    rule(
        "patch-identity",
        "error",
        False,
        "A patch that changes an object's apiVersion, kind, name or namespace",
        "kgen names each object's file, its index entry and the Argo CD and Flux objects after its identity, and the API server keys the object by it; a patch may not change or remove them (a merge may repeat them unchanged, as kustomize's patches do). Rename the job, or set the environment's namespace, instead.",
    ),
    rule(
        "patch-lifecycle",
        "error",
        False,
        "A patch that writes metadata the cluster sets",
        "The API server and the controllers set an object's `metadata.generateName`, `ownerReferences` and `finalizers` on the objects they create; in a manifest they do harm: `kubectl apply`, Argo CD and Flux cannot apply an object by `generateName` (they key it by its name), an owner reference names its owner by a uid no manifest can know and the garbage collector deletes an object whose owner is not there, and a finalizer that no controller removes keeps the job from ever being deleted. A patch may not write them on a rendered object (a pod template's are the operator's to copy onto its pods).",
    ),
    rule(
        "patch-counted",
        "error",
        False,
        "A patch that changes what kgen counts from the spec",
        "The GPU quota and `kgen list` count each job's replicas and GPUs from its spec, and the claim rules compare created claims' size, access modes and class across jobs: a patch may not change a job's `replicas`, `minReplicas`, `maxReplicas` or GPU resources, nor those fields of a claim, or the rules would count one thing while the cluster runs another. Set them in the spec.",
    ),
    rule(
        "patch-merge",
        "error",
        False,
        "A strategic-merge patch kgen cannot apply",
        "An item merged into a list Kubernetes merges by key (containers and volumes by `name`, env by `name`, volumeMounts by `mountPath`, ports by `containerPort`) must name that key; the only directives are `$patch: delete` and `$patch: replace`.",
    ),
    rule(
        "patch-too-large",
        "error",
        False,
        "Patches that add too many values",
        "The patches of one job in one environment may add at most 10,000 values (`copy` doubles what it copies, so a few dozen operations could make gigabytes). A change that large belongs in the spec.",
    ),
]
