"""Kubernetes manifests: each document's settings under the object they belong to.

A manifest file often holds several objects (a Deployment and its Service, two CronJobs), so `spec.replicas`
alone does not say whose. Each document naming its `kind` and `metadata.name` has its keys under
`Kind/name.` (`Deployment/api.spec.replicas`, `CronJob/digest.spec.schedule`); its identity fields are the key,
not settings. A document without them (a Helm template's `name: {{ ... }}`) keeps its plain key paths.
"""
from brain.capture.settings.lines import flatten
from brain.capture.settings.yaml_text import read_documents

_IDENTITY = ("apiVersion", "kind", "metadata.name", "metadata.namespace")


def object_name(document: dict):
    """"Kind/name" of a manifest document, or None."""
    kind, metadata = document.get("kind"), document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(kind, str) and isinstance(name, str) and kind and name:
        return f"{kind}/{name}"
    return None


def read_manifest(text: str) -> dict:
    """key path -> value of the objects in a manifest file (see the module doc)."""
    out = {}
    for document in read_documents(text):
        document.pop("", None)
        owner = object_name(document)
        for key, value in flatten(document).items():
            if key not in _IDENTITY:
                out[f"{owner}.{key}" if owner else key] = value
    return out


def is_manifest(text: str) -> bool:
    """Whether a YAML file is a Kubernetes manifest: a top-level `apiVersion:` and `kind:`."""
    return "\napiVersion:" in "\n" + text and "\nkind:" in "\n" + text
