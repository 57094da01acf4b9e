"""Make `ansible_collections.gpufleet.cluster` importable from the checkout.

`collections/ansible_collections/gpufleet/cluster` is a link to the repository root, so the
plugins are imported under their real FQCN, exactly as Ansible loads them.
"""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_COLLECTIONS = os.path.join(_ROOT, "collections")
if _COLLECTIONS not in sys.path:
    sys.path.insert(0, _COLLECTIONS)

# Shared test helpers (tests/unit/helpers: nasty_input, fake_nvml, reference fixtures, module_results, ...) are
# imported by plain name; the test files themselves are imported by pytest's importlib mode (pytest.ini), so two
# test files may share a name in different folders, as the modules they mirror do.
_UNIT = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.join(_UNIT, "helpers"), _UNIT):
    if _path not in sys.path:
        sys.path.insert(0, _path)

# No test here is timed (docs/testing.md): hypothesis judges an example by what the test asserts, never by how long
# it took. Its defaults are timings (a 200 ms deadline per example, the too_slow health check), which a loaded machine
# turns into failures: make test runs this suite beside the lab.
from hypothesis import HealthCheck, settings  # noqa: E402  (after the path set-up above)

# CI (CI=true, as .ci/run is called) runs hypothesis derandomized: the same examples every run, so a submission's
# result does not depend on the draw. A failing example found by a random run stays as an explicit @example.
settings.register_profile("gpufleet", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=os.environ.get("CI", "").lower() in ("true", "1"))
settings.load_profile("gpufleet")
