"""The team's own objects (`resources/`): Namespaces, quotas, ConfigMaps and the like
that ship beside the jobs, validated strictly and copied into each environment."""
