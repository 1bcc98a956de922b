"""deploy/k8s (docs/deployment.md): every manifest valid against the Kubernetes schemas
(kubernetes-validate, strict: a misspelt field is an error), every environment variable
they set one that the product reads, the probes on endpoints that exist, and the
kustomization naming every manifest but the Secret's example."""

import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from django.urls import resolve

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES = "1.37.0"
ROOMS = ("accounts", "analysis_app", "benchmarks_app", "cfpd_site", "crisis_app", "encoding_app", "explorer_app",
         "formats_app", "gateway", "kit", "runs_app", "scenarios_app", "territories_app")
READ = re.compile(r'(envstr|envbool|envint|envlist|secret)\("([A-Z0-9_]+)"|os\.environ(?:\.get)?[(\[]"([A-Z0-9_]+)"'
                  r'|os\.getenv\("([A-Z0-9_]+)"')


def manifests() -> list[tuple[str, dict]]:
    return [(path.name, doc) for path in sorted(K8S.glob("*.yaml")) if path.name != "kustomization.yaml"
            for doc in yaml.safe_load_all(path.read_text()) if doc]


def variables_read(sources) -> set[str]:
    """The environment variables the product's code reads; secret("X") reads X_FILE too."""
    names = set()
    for text in sources:
        for helper, helped, environ, getenv in READ.findall(text):
            names |= {helped, f"{helped}_FILE"} if helper == "secret" else {helped or environ or getenv}
    return names - {""}


def variables_set(docs) -> dict[str, str]:
    """Each variable the manifests set (a ConfigMap's or Secret's key, a container's env), with where."""
    found = {}
    for file, doc in docs:
        for key in list(doc.get("data", {})) + list(doc.get("stringData", {})):
            found[key] = f"{file}: {doc['kind']} {doc['metadata']['name']}"
        spec = doc.get("spec", {}).get("template", {}).get("spec", {})
        for container in spec.get("containers", []):
            for item in container.get("env", []):
                found[item["name"]] = f"{file}: container {container['name']}"
    return found


@pytest.mark.parametrize("file, doc", manifests(), ids=lambda value: value if isinstance(value, str) else "")
def test_each_manifest_is_valid_against_the_kubernetes_schemas(file, doc):
    kubernetes_validate.validate(doc, KUBERNETES, strict=True)  # raises ValidationError naming the field


def test_a_misspelt_field_is_caught():
    name, doc = next((n, d) for n, d in manifests() if d["kind"] == "Deployment")
    broken = yaml.safe_load(yaml.safe_dump(doc))
    broken["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}  # readinessProbe, misspelt
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_every_variable_the_manifests_set_is_one_the_product_reads():
    sources = [p.read_text() for room in ROOMS for p in (ROOT / room).rglob("*.py")]
    read = variables_read(sources)
    assert {"CFPD_STORAGE_URL", "CFPD_STORAGE_URL_FILE", "DATABASE_URL", "GUNICORN_BIND"} <= read
    unread = {name: where for name, where in variables_set(manifests()).items() if name not in read}
    assert unread == {}, f"set by the manifests, read by nothing: {unread}"
    # The check itself: a name nothing reads is found.
    assert variables_set([("x.yaml", {"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"CFPD_STORAGE": "db"}})
                          ]) == {"CFPD_STORAGE": "x.yaml: ConfigMap c"}
    assert "CFPD_STORAGE" not in read


def test_the_probes_ask_endpoints_that_exist_and_open_to_anyone():
    probes = {}
    for _, doc in manifests():
        for container in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
                if "httpGet" in container.get(kind, {}):
                    probes[(container["name"], kind)] = container[kind]["httpGet"]["path"]
    assert probes[("web", "readinessProbe")] == "/healthz"
    for path in probes.values():
        view = resolve(path).func
        assert getattr(view, "login_required", True) is False, f"{path} asks to sign in: a probe cannot"


def test_the_kustomization_names_every_manifest_but_the_secrets_example():
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "secrets.example.yaml"}
    assert sorted(kustomization["resources"]) == sorted(files)


def test_the_local_models_have_a_worker_deployment_of_their_own_on_their_queue():
    # runs_app/local_weights.py: cfpd-worker takes every message but the local models'
    # units (CFPD_LOCAL_WEIGHTS=0); cfpd-worker-local consumes only their queue.
    from runs_app.local_weights import LOCAL_QUEUE, holds_local_weights

    deployments = {doc["metadata"]["name"]: doc["spec"]["template"]["spec"]["containers"][0]
                   for _, doc in manifests() if doc["kind"] == "Deployment"}
    general, local = deployments["cfpd-worker"], deployments["cfpd-worker-local"]
    env = {name: {item["name"]: item["value"] for item in c.get("env", [])} for name, c in
           (("general", general), ("local", local))}
    assert "--queues" not in general["command"] and holds_local_weights(env["general"]["CFPD_LOCAL_WEIGHTS"])[0] is False
    assert local["command"][local["command"].index("--queues") + 1] == LOCAL_QUEUE
    assert holds_local_weights(env["local"]["CFPD_LOCAL_WEIGHTS"])[0] is True
    assert env["local"]["CFPD_MODELS_DIR"] == "/models"
    assert {m["mountPath"] for m in local["volumeMounts"]} >= {"/models"}
