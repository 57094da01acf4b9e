#!/usr/bin/env bash
# ansible-test sanity on a copy of this checkout in an ansible_collections/gpufleet/cluster tree
# (ansible-test wants the collection inside an ansible_collections/NS/NAME tree).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pip_version=$(python3 - <<'PY'
import re, pathlib, ansible_test
src = pathlib.Path(ansible_test.__file__).parent / "_internal" / "python_requirements.py"
print(re.search(r"pip='([0-9.]+)'", src.read_text()).group(1))
PY
)
cache=$HOME/.ansible/test/cache
mkdir -p "$cache"
if ! ls "$cache"/pip-"$pip_version"-py3-none-any.whl >/dev/null 2>&1; then
  pip download -q --no-deps --only-binary=:all: -d "$cache" "pip==$pip_version"
fi
cp "$root/tests/sanity/get_pip_standin.py" "$cache/get_pip_${pip_version//./_}.py"

# Outside the checkout: inside it, git would report the copy as ignored and ansible-test would test nothing.
dest=${TMPDIR:-/tmp}/gpufleet-sanity-$(id -u)/ansible_collections/gpufleet/cluster
rm -rf "$dest" && mkdir -p "$dest"
# Tracked and new files, without the link back to the checkout (it would make a loop in the copy), and without
# tracked files deleted in the work tree. The test is bash's own: a shell per file cost about 1 core-s.
(cd "$root" && git ls-files -z --cached --others --exclude-standard | grep -z -v '^collections/' \
  | while IFS= read -r -d '' file; do if [ -e "$file" ]; then printf '%s\0' "$file"; fi; done \
  | tar --null -T - -cf -) | tar -C "$dest" -xf -
cd "$dest"
ansible-test sanity --venv --python 3.11 --color no "$@"
