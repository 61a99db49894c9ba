"""BeDiscovER (Li et al., EACL 2026) as Inspect AI evaluations: five discourse tasks, one data root."""

__version__ = "0.1.0"
