"""Every problem code kgen reports: severity, whether a job or project may silence it, and
the paragraph the README (`make docs`) and SARIF show for it.

Input errors (YAML, types, unknown keys) and what would make the output wrong are never
silenceable; policy rules are, per job (`lint.ignore` in the spec or an overlay) or per
project (`lint.ignore` in kgen.yaml), always with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kgen.errors import Problem, Severity


@dataclass(frozen=True)
class RuleInfo:
    id: str
    severity: Severity
    silenceable: bool
    summary: str
    explanation: str


def _r(
    id: str, severity: Severity, silenceable: bool, summary: str, explanation: str
) -> RuleInfo:
    return RuleInfo(id, severity, silenceable, summary, " ".join(explanation.split()))


_INPUT = [
    _r(
        "yaml-syntax",
        "error",
        False,
        "YAML that does not parse",
        "The file is not valid YAML, has more than one document, uses merge keys or complex keys. The location is where the parser stopped; the hint names where an unclosed bracket or quote began.",
    ),
    _r(
        "yaml-duplicate-key",
        "error",
        False,
        "A key set twice in one mapping",
        "YAML parsers disagree on duplicate keys (most keep the last silently). kgen refuses them and names the first occurrence.",
    ),
    _r(
        "yaml-tag",
        "error",
        False,
        "A YAML tag other than the plain core types",
        "Tags such as !!python/object or custom !tags can make a loader build objects or run code. kgen reads strings, numbers, booleans, lists and maps only.",
    ),
    _r(
        "yaml-encoding",
        "error",
        False,
        "A file that is not UTF-8",
        "Save the file as UTF-8; the location is the first byte that is not.",
    ),
    _r(
        "too-many-problems",
        "error",
        False,
        "More problems in one spec than kgen lists",
        "After 200 problems in one spec kgen stops listing them and says how many more there are; fix the first ones (often one mistake, such as wrong indentation, causes them all) and validate again.",
    ),
    _r(
        "yaml-too-large",
        "error",
        False,
        "A document that expands past the value limit",
        'Aliases that repeat large anchors multiply (a "billion laughs"); kgen stops at 100,000 values.',
    ),
    _r(
        "yaml-too-deep",
        "error",
        False,
        "Nesting deeper than 100 levels",
        "No job spec nests this deep; kgen stops before it exhausts the stack.",
    ),
    _r(
        "file-too-large",
        "error",
        False,
        "A file over 1 MiB",
        "Job specs and overlays are a few dozen lines; a larger file is refused before parsing.",
    ),
    _r(
        "not-a-mapping",
        "error",
        False,
        "A file that is not a mapping",
        "A job spec, overlay or kgen.yaml is a mapping of keys to values; an empty file, a list or a scalar is not.",
    ),
    _r(
        "unknown-key",
        "error",
        False,
        "A key the spec does not have",
        "Kubernetes would prune an unknown field silently; kgen refuses it and suggests the key you probably meant.",
    ),
    _r(
        "missing-key",
        "error",
        False,
        "A required key is missing",
        "The location is the mapping that lacks it.",
    ),
    _r(
        "wrong-type",
        "error",
        False,
        "A value of the wrong type",
        'Values are strictly typed: `replicas: "3"` is a string, `value: 8080` a number. Quote or unquote as the hint says.',
    ),
    _r(
        "invalid-value",
        "error",
        False,
        "A value outside what the field allows",
        "The message says what is allowed: an enum, a range, a name or quantity format.",
    ),
    _r(
        "io",
        "error",
        False,
        "A file that cannot be read",
        "Permissions or a broken link; the message has the system's reason.",
    ),
    _r(
        "no-project",
        "error",
        False,
        "No kgen.yaml",
        "Run kgen in the folder holding kgen.yaml or pass --project.",
    ),
    _r(
        "no-jobs",
        "error",
        False,
        "The jobs folder does not exist",
        "Create it, or point `jobs:` in kgen.yaml at the right folder.",
    ),
    _r(
        "missing-overlay",
        "error",
        False,
        "An environment names an overlay that does not exist",
        "The hint lists the overlays there are.",
    ),
    _r(
        "duplicate-overlay",
        "error",
        False,
        "An overlay listed twice in one environment",
        "Applying an overlay twice is never intended; list it once.",
    ),
    _r(
        "overlay-sets-identity",
        "error",
        False,
        "An overlay changes a job's name or framework",
        "Names and frameworks belong to the job spec, so output files stay stable across environments.",
    ),
    _r(
        "duplicate-job",
        "error",
        False,
        "Two job specs with one name",
        "Job names are unique in a project; they name the output files and the cluster objects.",
    ),
    _r(
        "duplicate-object",
        "error",
        False,
        "Two jobs produce one object differently",
        "Two jobs may create the same claim only if they agree on it; otherwise one would silently win.",
    ),
    _r(
        "foreign-file",
        "error",
        False,
        "A file in the output folder that kgen did not write",
        "kgen never overwrites what it does not own; move the file or delete it.",
    ),
]

_RULES = [
    _r(
        "import-unsupported",
        "error",
        False,
        "Something kgen import cannot express",
        "A sidecar container, a volume type kgen does not render, or a suspended job: the import leaves it out and says where it was, so nothing is dropped silently.",
    ),
    _r(
        "job-changed-in-place",
        "warning",
        True,
        "A committed job's spec changes under the same name",
        "The operator creates pods only when they are missing and never re-runs a finished job, so editing a job already applied changes nothing in the cluster. Give the run a new name (`runId`, or kgen.yaml `jobNames: content-hash`), or silence the rule for a job that has not run yet.",
    ),
    _r(
        "gpu-quota",
        "error",
        False,
        "An environment asks for more GPUs than its quota",
        "kgen.yaml `gpuQuota` caps the GPUs all jobs of an environment ask for together, elastic jobs counted at their maximum; `kgen list` shows where they go.",
    ),
    _r(
        "output-schema",
        "error",
        False,
        "A rendered object the API server would reject or prune",
        "Each rendered job is checked against its API target's envelope with the core PodTemplateSpec, claims and TensorBoard objects against the core definitions of kgen.yaml `kubernetesVersion`, and anything with a CRD in `crds:` against that CRD. The location is the spec value that produced the output; the message names the output path.",
    ),
    _r(
        "name-too-long",
        "error",
        False,
        "A job name leaves no room for derived names",
        "The operator names pods and headless Services `<job>-<role>-<index>`, and TensorBoard objects are `<job>-tensorboard`; a Service name is a DNS-1035 label of at most 63 characters, so creation fails after the job is accepted.",
    ),
    _r(
        "pytorch-master-replicas",
        "error",
        False,
        "A PyTorchJob master with other than 1 replica",
        "The webhook and the operator require exactly one master; put extra pods in workers.",
    ),
    _r(
        "pytorch-no-roles",
        "error",
        False,
        "A PyTorchJob without roles",
        "A PyTorchJob needs a master or, with elasticPolicy, workers.",
    ),
    _r(
        "pytorch-worker-only",
        "error",
        False,
        "A worker-only PyTorchJob without elasticPolicy",
        "Without a master the operator sets no MASTER_ADDR or RANK, so every pod is rank 0 and the job hangs at rendezvous (trainer#1988).",
    ),
    _r(
        "tf-chief-replicas",
        "error",
        False,
        "A TFJob chief with other than 1 replica",
        "The webhook counts chief roles, not replicas; the old CRDs required exactly 1. kgen checks the count.",
    ),
    _r(
        "tf-no-trainer",
        "error",
        False,
        "A TFJob without chief or workers",
        "Parameter servers and evaluators alone train nothing.",
    ),
    _r(
        "target-unsupported-field",
        "error",
        False,
        "A field the API target cannot express",
        "The older operator would drop or reject it. Delete it in that environment's overlay (`field: null`) or use a newer target.",
    ),
    _r(
        "target-needs-master",
        "error",
        False,
        "A worker-only PyTorchJob on a target that requires a master",
        "Worker-only PyTorchJobs need training-operator 1.4 or later (target v1).",
    ),
    _r(
        "elastic-needs-worker",
        "error",
        False,
        "elasticPolicy without a worker role",
        "elasticPolicy scales the worker role.",
    ),
    _r(
        "elastic-min-max",
        "error",
        False,
        "elasticPolicy minReplicas above maxReplicas",
        "No validation upstream catches this; the HPA would never settle.",
    ),
    _r(
        "elastic-replicas-range",
        "error",
        False,
        "Workers outside elasticPolicy's range",
        "The starting worker count must lie between minReplicas and maxReplicas.",
    ),
    _r(
        "requests-exceed-limits",
        "error",
        False,
        "A request above its limit",
        "Kubernetes rejects such a pod when the operator creates it, long after the job was accepted.",
    ),
    _r(
        "duplicate-env",
        "error",
        False,
        "An environment variable set twice",
        "Kubernetes keeps the last one; the first is dead configuration.",
    ),
    _r(
        "duplicate-volume",
        "error",
        False,
        "A volume name used twice",
        "Volume names are unique in a pod.",
    ),
    _r(
        "duplicate-mount-path",
        "error",
        False,
        "Two mounts at one path",
        "Including /dev/shm when sharedMemory is set and codeSync.path.",
    ),
    _r(
        "create-needs-claim",
        "error",
        False,
        "`create` on a volume that is not a claim",
        "`create` makes a PersistentVolumeClaim named by `claim`.",
    ),
    _r(
        "tensorboard-logdir",
        "error",
        False,
        "TensorBoard's logDir is outside the job's claims",
        "TensorBoard reads the logs from the same claim, read-only; a logDir on the container's own disk is lost with the pod.",
    ),
    _r(
        "tensorboard-image",
        "error",
        False,
        "An image for Kubeflow's Tensorboard resource",
        "The Tensorboard controller picks the image for every Tensorboard; the resource has no image field.",
    ),
    _r(
        "code-sync-credentials",
        "error",
        False,
        "Credentials in a git URL",
        "They would land in git and in the cluster in plain text; use codeSync.credentialsSecret.",
    ),
    _r(
        "nproc-auto-on-cpu",
        "error",
        True,
        "nprocPerNode auto, cpu or gpu on pods without GPUs",
        "torchrun's auto and cpu start one process per CPU core of the node, and gpu finds no device. Leave nprocPerNode unset for CPU environments (kgen then sets 1).",
    ),
    _r(
        "ttl-under-gitops",
        "error",
        True,
        "ttlSecondsAfterFinished under GitOps",
        "The operator deletes the finished job; Argo CD self-heal or a Flux reconcile re-creates it, and it trains again. Delete finished jobs through git, or acknowledge with `ttlAcknowledged: true`.",
    ),
    _r(
        "secret-env-literal",
        "error",
        False,
        "A literal value for a secret-looking variable",
        "A variable named like *PASSWORD*, *TOKEN*, *SECRET* or *_KEY with a literal value puts a credential in git. Use secretKeyRef. A variable that only looks like a secret (TOKEN_TTL) is allowed one by one, with a reason: `lint.allowLiterals: {TOKEN_TTL: a lifetime in seconds}`; the rule cannot be silenced for a whole job.",
    ),
    _r(
        "image-latest",
        "warning",
        True,
        "An image without a tag, or tagged latest",
        "The same manifest then runs different code over time, and a re-run is not reproducible. Pin a tag or digest.",
    ),
    _r(
        "resources-missing",
        "warning",
        True,
        "No CPU or memory request or limit",
        "Without requests the scheduler packs training pods onto busy nodes; without limits one job can starve its neighbours.",
    ),
    _r(
        "ps-clean-pod-policy",
        "warning",
        True,
        "cleanPodPolicy None on a TFJob with parameter servers",
        "Parameter servers never exit, so with None they keep running (and holding their resources) after the job succeeds.",
    ),
    _r(
        "gpu-placement",
        "warning",
        True,
        "GPUs requested without the project's GPU placement",
        "kgen.yaml declares the node selector keys or tolerations that reach GPU nodes (`gpuPlacement`); a GPU pod without any of them waits for a GPU that its nodes do not have, or lands on a node it should not.",
    ),
    _r(
        "claim-undeclared",
        "error",
        True,
        "A claim that no job creates and kgen.yaml does not declare",
        "Pods that mount a missing claim stay Pending forever. Create it (`volumes[].create`) or list it in kgen.yaml `externalClaims`.",
    ),
    _r(
        "claim-conflict",
        "error",
        False,
        "One claim created with different access modes or class across environments",
        "A claim's accessModes and storageClassName are immutable; the same claim differing between environments means one of them cannot be applied over the other.",
    ),
    _r(
        "overlay-matches-nothing",
        "warning",
        True,
        "An overlay whose match selects no job",
        "A typo in a name, label or framework makes an overlay do nothing, silently.",
    ),
]

RULES: dict[str, RuleInfo] = {rule.id: rule for rule in (*_INPUT, *_RULES)}
POLICY_RULES = list(_RULES)


def classified(problem: Problem) -> Problem:
    """The problem with the severity its rule has in the catalogue."""
    rule = RULES.get(problem.code)
    if rule is None or rule.severity == problem.severity:
        return problem
    return replace(problem, severity=rule.severity)
