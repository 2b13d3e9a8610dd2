"""What a GitOps controller needs beside the manifests: Argo CD Applications, the
health checks of the registered job kinds (`health`), and ignoreDifferences."""
