"""What a GitOps controller needs beside the manifests: Argo CD Applications, health
checks for the job kinds, and ignoreDifferences."""
