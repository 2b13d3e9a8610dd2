"""Every problem code kgen reports: severity, whether a job or project may silence it, and
the paragraph docs/rules.md (`make docs`) and SARIF show for it. The codes of the input
(kgen.rules.input_codes) and of pods and the team's objects (kgen.rules.object_codes)
come in from there, those of what every kind shares are here, and each kind brings its
own (`Kind.catalog`).

Input errors (YAML, types, unknown keys) and what would make the output wrong are never
silenceable; policy rules are, per job (`lint.ignore` in the spec or an overlay) or per
project (`lint.ignore` in kgen.yaml), always with a reason.
"""

from __future__ import annotations

from dataclasses import replace

from kgen.errors import Problem
from kgen.kinds import ALL_KINDS
from kgen.patch.codes import PATCH_CODES
from kgen.rules.cel_codes import CEL_CODES
from kgen.rules.forbidden import POLICY_CODES
from kgen.rules.info import RuleInfo, rule
from kgen.rules.input_codes import INPUT_CODES
from kgen.rules.object_codes import OBJECT_CODES

_RULES = [
    rule(
        "import-unsupported",
        "error",
        False,
        "Something kgen import cannot express",
        "An object kgen import cannot turn into a job (no name, an apiVersion kgen does not render, a role without the container its operator looks up by name, which the operator itself rejects), or fields no spec field says that a patch would not give back either (a container kgen renders that the input lacks, more values than a patch may add, nesting deeper than a spec may have): the import says where, so nothing is dropped silently. What a patch gives back is kept as one (`import-as-patch`).",
    ),
    rule(
        "import-as-patch",
        "warning",
        False,
        "A field kgen import kept as a patch",
        "A field of an imported job that no job spec field says (a pod's `enableServiceLinks`, a container's `stdin`): the import renders the spec it wrote, compares it with the input object and keeps what the render lacks in the spec's `patches:` (a strategic merge), so `kgen build` gives the same object back. Each field is named at its line; move it to a spec field where there is one. The name of an MPIJob's container is kept without a warning: both its operators take the first container whatever its name.",
    ),
    rule(
        "import-dropped",
        "warning",
        False,
        "Something of an imported object that is the cluster's",
        "The `status` of an object read from a cluster, and the metadata the API server sets (`uid`, `resourceVersion`, `creationTimestamp`, `managedFields`, ...): no manifest sets them, so the import leaves them out and says where they were.",
    ),
    rule(
        "import-default-differs",
        "warning",
        False,
        "A default of an imported job that kgen's spec does not keep",
        "A field the imported object leaves to its operator or runtime, whose default there is not what kgen renders without it, and which the spec cannot say as it was: the process count of a PyTorchJob (training-operator 1.7 and later) or of a TrainJob on the torch runtime, torchrun's `auto`, on pods without GPUs where the command starts torchrun (one process per CPU core of the node: kgen renders 1, and refuses `auto` there, `nproc-auto-on-cpu`; without torchrun nothing reads the count), or the numProcPerNode of a runtime kgen does not know. The import names the job's line; set the field to what each pod should start.",
    ),
    rule(
        "import-unchecked",
        "warning",
        False,
        "An imported object kgen import could not check",
        "The spec import wrote does not validate (a value the job spec refuses), so it cannot be rendered and compared with the input object: fields no spec field says may be missing. `kgen build` of the imported project says what is wrong; fix the input and import again. An object beside the jobs of a kind a CRD defines (a Kubeflow Tensorboard no imported job renders, a ClusterTrainingRuntime or TrainingRuntime) is named at its line and not imported: in `resources/` the build could check it only against its CRD, which the imported project does not list, and the project's first build would fail (`resource-unknown-kind`). Import it with its CustomResourceDefinition: both go to `resources/`, the CRD listed under kgen.yaml `crds:` (a Tensorboard: or import it with its job).",
    ),
    rule(
        "job-changed-in-place",
        "warning",
        True,
        "A committed job's spec changes under the same name",
        "The operator creates pods only when they are missing and never re-runs a finished job, so editing a job already applied changes nothing in the cluster. Give the run a new name (`runId`, or kgen.yaml `jobNames: content-hash`), or silence the rule for a job that has not run yet.",
    ),
    rule(
        "gpu-quota",
        "error",
        False,
        "An environment asks for more GPUs than its quota",
        "kgen.yaml `gpuQuota` caps the GPUs all jobs of an environment ask for together, elastic jobs counted at their maximum and each pod at its effective request, a sidecar's or init container's GPUs included (docs/gitops.md); `kgen list` shows where they go.",
    ),
    rule(
        "output-schema",
        "error",
        False,
        "A rendered object the API server would reject or prune",
        "Each rendered job is checked against its API target's envelope with the core PodTemplateSpec, claims and TensorBoard objects against the core definitions of kgen.yaml `kubernetesVersion`, and anything with a CRD in `crds:` against that CRD. The location is the spec value that produced the output; the message names the output path.",
    ),
    rule(
        "name-too-long",
        "error",
        False,
        "A job name leaves no room for derived names",
        "The operator names pods and headless Services `<job>-<role>-<index>`, and TensorBoard objects are `<job>-tensorboard`; a Service name is a DNS-1035 label of at most 63 characters, so creation fails after the job is accepted.",
    ),
    rule(
        "target-unsupported-field",
        "error",
        False,
        "A field the API target cannot express",
        "The older operator would drop or reject it. Delete it in that environment's overlay (`field: null`) or use a newer target.",
    ),
    rule(
        "requests-exceed-limits",
        "error",
        False,
        "A request above its limit",
        "Kubernetes rejects such a pod when the operator creates it, long after the job was accepted.",
    ),
    rule(
        "duplicate-env",
        "error",
        False,
        "An environment variable set twice",
        "Kubernetes keeps the last one; the first is dead configuration.",
    ),
    rule(
        "operator-env",
        "error",
        False,
        "An environment variable the operator sets",
        "The operator of the environment's release sets this variable in the pod (docs/env-contract.md), after the job's own env, and Kubernetes keeps the last of two variables of one name: the job's value never reaches the process. Which variables depends on the release (PYTHONUNBUFFERED is 0 on training-operator 1.4 to 1.6, the PET_* variables arrived in 1.7; TF_CONFIG only when the TFJob has more than one pod; an MPIJob launcher's OMPI_MCA_*, I_MPI_* or HYDRA_* hostfile and ssh settings and its hidden GPUs, K_MPI_JOB_ROLE on mpi-operator). A value equal to the operator's in every pod is not reported. A variable a patch gives a container the operator fills is reported at the patch's line. `kgen explain` lists what each pod gets.",
    ),
    rule(
        "duplicate-volume",
        "error",
        False,
        "A volume name used twice",
        "Volume names are unique in a pod.",
    ),
    rule(
        "duplicate-mount-path",
        "error",
        False,
        "Two mounts at one path",
        "Including /dev/shm when sharedMemory is set and codeSync.path.",
    ),
    rule(
        "create-needs-claim",
        "error",
        False,
        "`create` on a volume that is not a claim",
        "`create` makes a PersistentVolumeClaim named by `claim`.",
    ),
    rule(
        "tensorboard-logdir",
        "error",
        False,
        "TensorBoard's logDir is outside the job's claims",
        "TensorBoard reads the logs from the same claim, read-only; a logDir on the container's own disk is lost with the pod.",
    ),
    rule(
        "tensorboard-image",
        "error",
        False,
        "An image for Kubeflow's Tensorboard resource",
        "The Tensorboard controller picks the image for every Tensorboard; the resource has no image field.",
    ),
    rule(
        "code-sync-credentials",
        "error",
        False,
        "Credentials in a git URL",
        "They would land in git and in the cluster in plain text: a password (also after `%3A`, or holding `/`), a token or any user name as an https URL's user, or a secret in its query (`?access_token=`). git-sync reads them from codeSync.credentialsSecret.",
    ),
    rule(
        "ttl-under-gitops",
        "error",
        True,
        "ttlSecondsAfterFinished under GitOps",
        "The operator deletes the finished job; Argo CD self-heal or a Flux reconcile re-creates it, and it trains again. Delete finished jobs through git, or acknowledge with `ttlAcknowledged: true`.",
    ),
    rule(
        "secret-env-literal",
        "error",
        False,
        "A credential as an environment variable's literal value",
        "A variable named like a secret (*PASSWORD*, *PASSPHRASE*, *TOKEN*, *SECRET*, *CREDENTIALS*, *_KEY, *_PAT, *_AUTH, but not TOKEN_TTL or PASSWORD_FILE) with a literal value, or any value that is a credential (a URL with a password or token, a GitHub, GitLab, AWS, Slack or other known token, a private key), puts it in git. Use secretKeyRef; a URL takes its password from another variable as `$(VAR)`. A path with a folder (`/var/run/secrets/token`) is no literal. A variable that only looks like a secret is allowed by name, one by one, with a reason: `lint.allowLiterals: {SORT_KEY: a column name}`; a value that is a credential is reported all the same, and the rule cannot be silenced for a whole job. The env variables of the team's objects (resources/) are read the same way, kgen.yaml's `lint.allowLiterals` allowing a name.",
    ),
    rule(
        "secret-literal",
        "error",
        False,
        "A credential anywhere else in what kgen renders",
        "command, args, labels, annotations, elasticPolicy.rdzvConf, images, TensorBoard and free-form objects are read for the same credentials as env values, and `NAME=value`, `--flag value`, rendezvous options, keys of labels, annotations, nodeSelector and matchLabels, and the `key` of a toleration or match expression named like a secret count as literal secrets (a name that only looks like one is allowed under `lint.allowLiterals`, as for env variables). Labels and annotations are readable by anyone who can read the object. Never silenced: keep the credential in a Secret, take it into an env variable with secretKeyRef and write `$(VAR)` in args; a flag that only looks like a secret is allowed by name under `lint.allowLiterals` (without its dashes). Every string of the team's objects (resources/) is read the same way: a credential anywhere, and a literal under a key its author chose that is named like a secret (a ConfigMap's `password`, an annotation `db-password`; not a field of the API such as `topologyKey`) or after a `--flag` named like one.",
    ),
    rule(
        "control-character",
        "error",
        False,
        "A control character in a value kgen renders",
        "NUL, escape, DEL and the other C0 and C1 controls truncate values or repaint the terminal of whoever reads the manifest, and the API server refuses some only after the job was accepted; bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) show a value in another order than it runs. Tab, newline and carriage return are allowed (multi-line scripts and annotations), as are the marks U+200E and U+200F. In jobs and in the team's objects.",
    ),
    rule(
        "image-latest",
        "warning",
        True,
        "An image without a tag, or tagged latest",
        "The same manifest then runs different code over time, and a re-run is not reproducible. Pin a tag or digest.",
    ),
    rule(
        "resources-missing",
        "warning",
        True,
        "No CPU or memory request or limit",
        "Without requests the scheduler packs training pods onto busy nodes; without limits one job can starve its neighbours.",
    ),
    rule(
        "gpu-placement",
        "warning",
        True,
        "GPUs requested without the project's GPU placement",
        "kgen.yaml declares the node selector keys or tolerations that reach GPU nodes (`gpuPlacement`); a GPU pod (one whose trainer, sidecar or init container asks for a GPU) without any of them waits for a GPU that its nodes do not have, or lands on a node it should not.",
    ),
    rule(
        "claim-undeclared",
        "error",
        True,
        "A claim that no job creates and kgen.yaml does not declare",
        "Pods that mount a missing claim stay Pending forever. Create it (`volumes[].create`) or list it in kgen.yaml `externalClaims`.",
    ),
    rule(
        "claim-rwo-many-pods",
        "warning",
        True,
        "A claim the job creates for one node, mounted by several pods",
        "`create` asks for ReadWriteOnce unless `accessModes` says otherwise, and a ReadWriteOnce volume attaches to one node at a time: every pod of the job mounts it (an elastic role counted at maxReplicas), and so does kgen's TensorBoard Deployment, so pods scheduled on another node hang in ContainerCreating with a Multi-Attach error. ReadWriteOncePod runs one pod of the claim and keeps the others Pending. Ask for ReadWriteMany (or ReadOnlyMany) of a storage class that offers it, or keep the claim to one pod; silence it with a reason where every pod is bound to one node. Claims the job does not create are not checked: kgen does not know their modes.",
    ),
    rule(
        "claim-conflict",
        "error",
        False,
        "One claim created with different access modes or class across environments",
        "A claim's accessModes and storageClassName are immutable; the same claim differing between environments means one of them cannot be applied over the other.",
    ),
    rule(
        "overlay-matches-nothing",
        "warning",
        True,
        "An overlay whose match selects no job",
        "A typo in a name, label or framework makes an overlay do nothing, silently. Not reported while a job spec fails to load: that job may be the one it matches.",
    ),
    rule(
        "target-unsupported-kind",
        "error",
        False,
        "A job kind the API target's operator does not serve",
        "Each operator release serves its own kinds (JAXJob from training-operator 1.9, MPIJob v2beta1 only from mpi-operator); the cluster would have no such resource. Leave the job out of that environment or change its target.",
    ),
    rule(
        "tensorboard-kubeflow-field",
        "error",
        False,
        "A Service type or resources for Kubeflow's Tensorboard resource",
        "The Tensorboard resource has only a log path: its controller makes a ClusterIP Service and picks the pod's resources, so kgen would drop these without a word.",
    ),
    rule(
        "gitops-destination",
        "error",
        False,
        "An Argo CD Application or Flux Kustomization the cluster would reject or misplace",
        "Every environment deploys into a namespace it names (its `namespace`, or `argocd.destinationNamespaces` / `flux.targetNamespaces`): without one, Argo CD would deploy into a namespace named after the environment, which it does not create. Application and Kustomization names (prefix + environment) must be valid object names.",
    ),
]

RULES: dict[str, RuleInfo] = {
    info.id: info
    for info in (
        *INPUT_CODES,
        *_RULES,
        *OBJECT_CODES,
        *POLICY_CODES,
        *CEL_CODES,
        *PATCH_CODES,
        *(i for k in ALL_KINDS for i in k.catalog),
    )
}


def classified(problem: Problem) -> Problem:
    """The problem with the severity its rule has in the catalogue."""
    rule = RULES.get(problem.code)
    if rule is None or rule.severity == problem.severity:
        return problem
    return replace(problem, severity=rule.severity)
