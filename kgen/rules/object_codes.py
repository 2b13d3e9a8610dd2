"""The codes of what a pod holds beyond the trainer (sidecars, volumes, ports, host
access) and of the team's own objects (resources/) and files beside kgen's in the output;
kgen.rules.catalog takes them in."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

OBJECT_CODES: list[RuleInfo] = [
    rule(
        "duplicate-container",
        "error",
        False,
        "Two containers of a pod with one name",
        "The API server refuses a pod whose containers or init containers share a name, and the trainer's name and `git-sync` are kgen's.",
    ),
    rule(
        "container-needs-image",
        "error",
        False,
        "A sidecar or init container without an image",
        "The core definition leaves `image` optional for templates, but the API server refuses every pod whose container has none: the job is accepted and no pod starts.",
    ),
    rule(
        "sidecar-blocks-completion",
        "warning",
        True,
        "A sidecar that keeps its pod from finishing",
        "A container under `containers:` runs beside the trainer as a plain container: the pod stays Running while it runs, and the operator counts a replica as done only when its pod has Succeeded, so a sidecar that never exits (a log shipper, a metrics exporter, a mesh proxy) keeps the job from ever succeeding and its GPUs held (kubeflow/trainer#1577). Write it under `initContainers` with `restartPolicy: Always`, a native sidecar that ends with the pod (Kubernetes 1.29+; the hint follows kgen.yaml `kubernetesVersion`), or make it exit when the trainer does and silence the rule with a reason.",
    ),
    rule(
        "mount-unknown-volume",
        "error",
        False,
        "A container mounts a volume the pod does not have",
        "The API server refuses the pod. Declare the volume under `volumes` (a sidecar's own volume needs no `mountPath`).",
    ),
    rule(
        "probe-unknown-port",
        "error",
        False,
        "A probe or lifecycle hook on a port name its container does not declare",
        "The kubelet looks a probe's or a postStart or preStop hook's named port (httpGet, tcpSocket) up among the ports of its own container only, so it can never reach it: a liveness probe restarts the container over and over, a readiness or startup probe keeps it from ever being ready, a postStart hook that fails kills the container, a preStop hook's clean-up never runs, and the API server accepts the pod all the same. The trainer declares the operator's port (`pytorchjob-port`, `tfjob-port`, ...) and the job's and its role's `ports`; a sidecar or init container declares its own. Name one of them, or declare the port.",
    ),
    rule(
        "extended-resource-limit",
        "error",
        False,
        "An extended resource requested without the same limit",
        "Extended resources (`rdma/hca`, `amd.com/gpu`) cannot be overcommitted: the API server refuses a pod whose request differs from its limit. Set the limit; the request follows.",
    ),
    rule(
        "duplicate-port",
        "error",
        False,
        "A container port or port name used twice in a container",
        "The API server refuses a container whose ports share a name; the operator's port name is kgen's unless the job moves it.",
    ),
    rule(
        "host-path",
        "error",
        True,
        "A hostPath volume",
        "A hostPath volume reads and writes the node's own files, which escapes the pod's isolation and is forbidden by the restricted and baseline Pod Security Standards. Allow it where it is needed (a dev overlay's `lint.ignore`, with a reason); kgen.yaml `policy` forbids it where no ignore may allow it (production).",
    ),
    rule(
        "host-pid",
        "warning",
        True,
        "A pod sharing the node's PID namespace",
        "`hostPID` lets every pod of the job see and signal the node's processes, which the baseline Pod Security Standard forbids. A warning, not an error, as the three host namespaces were before they were checked one by one; an environment's policy can forbid it.",
    ),
    rule(
        "host-ipc",
        "warning",
        True,
        "A pod sharing the node's IPC namespace",
        "`hostIPC` shares the node's System V and POSIX shared memory with every pod of the job, which the baseline Pod Security Standard forbids. NCCL and data loaders sometimes use it where `sharedMemory` would do; silence it per environment with an overlay's `lint.ignore` and a reason, or let a policy `allow` it.",
    ),
    rule(
        "host-network",
        "warning",
        True,
        "A pod on the node's network",
        "`hostNetwork` puts every pod of the job on the node's network: it can bind the node's ports and reach what listens on the node only. The baseline Pod Security Standard forbids it; NCCL over RDMA without a device plugin is the usual need. Silence it per environment with an overlay's `lint.ignore` and a reason.",
    ),
    rule(
        "host-namespaces",
        "warning",
        True,
        "host-pid, host-ipc and host-network together",
        "The one code the three host namespaces had before each got its own. In `lint.ignore` and in a policy's `forbid` and `allow` it still stands for all three, so a suppression written for it keeps meaning what it meant; kgen reports the three codes, never this one.",
    ),
    rule(
        "privileged-container",
        "error",
        True,
        "A privileged container",
        "A privileged container is root on the node. RDMA devices rarely need it (a device plugin's extended resource does); allow it per environment with an overlay's `lint.ignore` and a reason, and forbid it with kgen.yaml `policy` where no ignore may allow it.",
    ),
    rule(
        "host-port",
        "warning",
        True,
        "A container port bound on the node",
        "A `hostPort` binds the port on the node itself: at most one such pod per node, reachable from outside the cluster, and forbidden by the baseline Pod Security Standard. Reach training pods through their own ports (the operator's headless Services) instead.",
    ),
    rule(
        "added-capabilities",
        "warning",
        True,
        "A capability beyond the container runtime's default set",
        "`securityContext.capabilities.add` beyond AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID and SYS_CHROOT, as the baseline Pod Security Standard forbids (names compared as written). RDMA's IPC_LOCK is a real need: silence it with a reason, or let a policy `allow` it.",
    ),
    rule(
        "resource-invalid",
        "error",
        False,
        "An object in resources/ kgen cannot take",
        "Each file under `resources/` (every environment) or `resources/<env>/` (one) holds one Kubernetes object with apiVersion, kind and a metadata.name that is an object name (it names the output file), and each subfolder is an environment of kgen.yaml, itself holding no folder (kgen would read nothing in it, so its objects would never ship). The object may not set `metadata.generateName` (`kubectl apply`, Argo CD and Flux find an object by its name) nor `metadata.ownerReferences` (an owner is named by the uid the cluster gave it; the garbage collector deletes an object whose owner is not there); its finalizers are the team's to declare.",
    ),
    rule(
        "resource-secret",
        "error",
        False,
        "A Secret in resources/",
        "kgen never writes a credential to git: create Secrets in the cluster (External Secrets, sealed secrets) and refer to them by name. An object of kind Secret in any group is refused: its kind says what it holds.",
    ),
    rule(
        "resource-unknown-kind",
        "error",
        False,
        "An object kgen cannot check",
        "Objects in `resources/` are checked strictly: core kinds against the core definitions of the project's `kubernetesVersion`, other kinds against a CRD listed under kgen.yaml `crds:`. A kind that is neither is refused rather than copied unchecked.",
    ),
    rule(
        "unowned-output",
        "warning",
        False,
        "A file in the output that kgen did not write",
        "kgen keeps a file it did not write, but lists it in no kustomization, so Argo CD and Flux never apply it, and `build --check` cannot call the tree current. Move the object to `resources/<env>/` (or `resources/` for every environment): kgen then checks it, copies it and lists it.",
    ),
]
