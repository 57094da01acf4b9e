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

# Shared test helpers (nasty_input, fake_nvml, reference fixtures) are imported by plain name.
_UNIT = os.path.dirname(os.path.abspath(__file__))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)

# No test here is timed (docs/testing.md): hypothesis judges an example by what the test asserts, never by how long
# it took. Its defaults are timings (a 200 ms deadline per example, the too_slow health check), which a loaded machine
# turns into failures: make test runs this suite beside the lab.
from hypothesis import HealthCheck, settings  # noqa: E402  (after the path set-up above)

settings.register_profile("gpufleet", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gpufleet")
