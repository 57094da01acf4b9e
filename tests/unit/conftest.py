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
