#!/usr/bin/env bash
# The collection as a user gets it: `ansible-galaxy collection build`, then an install into an empty collections
# path next to exactly the collections galaxy.yml declares (offline, from the ansible bundle's copies:
# install.py), with nothing else visible (ANSIBLE_COLLECTIONS_PATH is that path alone, the bundle is not scanned,
# tests/install/ansible.cfg names no collections path and no callback), and runs from that install, by FQCN, from
# a directory outside the checkout:
#   - the tarball holds the collection and none of the checkout's harness or state;
#   - every playbook of the installed copy loads (--syntax-check resolves every module its roles import);
#   - gpufleet.cluster.plan on the reference inventory writes the plan, and refuses to run without plan_dir;
#   - requirements.yml asks for what galaxy.yml declares, in versions the tested ones satisfy;
#   - self-check: the same install with one declared dependency left out of the tarball's MANIFEST.json (as if
#     galaxy.yml did not declare it) must fail to load site.yml, naming that collection, or (a module used only in a
#     task file included at run time) one of the roles' task files must name a module of it - for each dependency.
# tests/e2e/converge.sh converges gpufleet.cluster.site on its lab from such an install (`run.sh install DIR`).
#
#   tests/install/run.sh               the test above; logs in .build/install
#   tests/install/run.sh install DIR   build and install into DIR/collections only; then run ansible with
#                                      ANSIBLE_CONFIG=tests/install/ansible.cfg ANSIBLE_COLLECTIONS_PATH=DIR/collections
#                                      ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.venv/bin
[ -x "$bin/ansible-playbook" ] || bin=$(dirname "$(command -v ansible-playbook)")
export ANSIBLE_CONFIG=$root/tests/install/ansible.cfg ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
export ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true
unset ANSIBLE_COLLECTIONS_PATHS ANSIBLE_CALLBACKS_ENABLED ANSIBLE_ROLES_PATH ANSIBLE_PLAYBOOK_DIR

build() {  # build OUT_DIR: the tarball's path on stdout
  "$bin/ansible-galaxy" collection build --force --output-path "$1" "$root" >/dev/null
  ls "$1"/gpufleet-cluster-*.tar.gz
}

install_into() {  # install_into TARBALL COLLECTIONS_DIR [--without NS.NAME]
  local tarball=$1 dest=$2; shift 2
  ANSIBLE_COLLECTIONS_PATH=$dest "$bin/python" "$root/tests/install/install.py" "$tarball" "$dest" "$@"
}

if [ "${1:-}" = install ]; then
  dir=$(mkdir -p "${2:?install DIR}" && cd "$2" && pwd)
  rm -rf "$dir/build" "$dir/collections"
  install_into "$(build "$dir/build")" "$dir/collections"
  exit 0
fi

logs=$root/.build/install
rm -rf "$logs" && mkdir -p "$logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
inv=$root/inventories/h100-64
cd "$work"  # not the checkout: nothing may come from it but the inventory

echo "== build"
tarball=$(build "$work/build")
tar -tzf "$tarball" >"$logs/tarball.txt"
"$bin/python" - "$logs/tarball.txt" <<'PY'
import re, sys
names = [line.rstrip("/\n") for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
tops = {name.split("/")[0] for name in names}
# The checkout's harness and state (build_ignore in galaxy.yml), some of which exist while make test runs.
banned_tops = {".git", ".gitignore", ".ansible-lint", ".ci", ".venv", ".lab", ".build", ".cache", ".ansible",
               ".pytest_cache", ".hypothesis", "collections", "ansible.cfg", "Makefile", "pytest.ini",
               "requirements-dev.txt", "bench", "lab", "molecule", "tests"}
bad = sorted(tops & banned_tops)
bad += [n for n in names if re.search(r"(^|/)(__pycache__|\.molecule)(/|$)|\.pyc$|\.tar\.gz$|lab_secrets\.yml$", n)]
bad += [n for n in names if n == "inventories/lab/hosts.yml"]
assert not bad, "the tarball holds what galaxy.yml's build_ignore should leave out: %s" % bad
need = ["MANIFEST.json", "FILES.json", "README.md", "COPYING", "meta/runtime.yml", "requirements.yml",
        "requirements-optional.yml", "docs/install.md", "playbooks/site.yml", "playbooks/plan.yml",
        "plugins/filter/cluster_plan.py", "roles/slurm/tasks/main.yml", "inventories/h100-64/hosts.yml"]
missing = [n for n in need if n not in names]
assert not missing, "the tarball lacks %s" % missing
print("tarball: %d entries, top level %s" % (len(names), " ".join(sorted(tops))))
PY

echo "== install next to exactly the declared dependencies"
mapfile -t deps < <("$bin/python" -c '
import json, sys, tarfile
print("\n".join(sorted(json.load(tarfile.open(sys.argv[1]).extractfile("MANIFEST.json"))["collection_info"]["dependencies"])))' "$tarball")
[ "${#deps[@]}" -ge 1 ] || { echo "the tarball declares no dependency"; exit 1; }
collections=$work/collections
install_into "$tarball" "$collections" | tee "$logs/install.log" | tail -1
export ANSIBLE_COLLECTIONS_PATH=$collections
installed=$collections/ansible_collections/gpufleet/cluster

echo "== every playbook of the installed copy loads (by FQCN)"
# By the bare name: a directory beside a playbook (validate's task files, now roles/validate) would shadow it.
mapfile -t playbooks < <(cd "$installed/playbooks" && for f in *.yml; do echo "gpufleet.cluster.${f%.yml}"; done)
[ "${#playbooks[@]}" -ge 10 ] || { echo "only ${#playbooks[@]} playbooks in the install"; exit 1; }
"$bin/ansible-playbook" --syntax-check -i "$inv" "${playbooks[@]}" >"$logs/syntax.log" 2>&1 \
  || { tail -20 "$logs/syntax.log"; exit 1; }
echo "${#playbooks[@]} playbooks: ${playbooks[*]}"

echo "== gpufleet.cluster.plan on the reference inventory"
"$bin/ansible-playbook" gpufleet.cluster.plan -i "$inv" -e plan_dir="$work/plan" -vv >"$logs/plan.log" 2>&1 \
  || { tail -30 "$logs/plan.log"; exit 1; }
grep -qF "PLAYBOOK: plan.yml" "$logs/plan.log"
# -vv names the task files it runs: the installed copy's, never the checkout's.
grep -qF "$installed/playbooks/plan.yml" "$logs/plan.log" || { echo "plan.yml did not run from $installed"; exit 1; }
! grep -qF "$root/playbooks" "$logs/plan.log" || { echo "plan.yml ran something from the checkout"; exit 1; }
for f in power.json power.md lustre.json lustre.md hostlists.json nccl/hgx-h100.xml report.html README.md; do
  [ -s "$work/plan/$f" ] || { echo "the plan run from the install wrote no $f"; exit 1; }
done
tail -3 "$logs/plan.log" | grep -E "^localhost" || true
# Without plan_dir, the installed playbook must refuse (its checkout default would write into the collections path).
if "$bin/ansible-playbook" gpufleet.cluster.plan -i "$inv" >"$logs/plan-no-dir.log" 2>&1; then
  echo "gpufleet.cluster.plan from the install ran without plan_dir"; exit 1
fi
grep -qF "plan_dir is not set, and this gpufleet.cluster is an installed collection" "$logs/plan-no-dir.log" \
  || { tail -20 "$logs/plan-no-dir.log"; exit 1; }
[ ! -e "$installed/.build" ] || { echo "the refused plan run wrote $installed/.build"; exit 1; }
echo "without plan_dir: refused, nothing written into the install"

echo "== requirements.yml asks for the declared dependencies, in ranges the tested versions meet"
"$bin/ansible-galaxy" collection install --offline -r "$root/requirements.yml" >"$logs/requirements.log" 2>&1 \
  || { cat "$logs/requirements.log"; exit 1; }
# Offline, each requested range must be met by what is installed; nothing may need installing.
grep -qF "All requested collections are already installed" "$logs/requirements.log" \
  || { cat "$logs/requirements.log"; exit 1; }
"$bin/python" - "$root/galaxy.yml" "$root/requirements.yml" <<'PY'
import sys, yaml
declared = yaml.safe_load(open(sys.argv[1]))["dependencies"]
listed = {c["name"]: c["version"] for c in yaml.safe_load(open(sys.argv[2]))["collections"]}
assert listed == declared, "requirements.yml %s differs from galaxy.yml's dependencies %s" % (listed, declared)
PY

echo "== self-check: leaving out a declared dependency fails"
for dep in "${deps[@]}"; do
  dest=$work/without-$dep
  install_into "$tarball" "$dest" --without "$dep" >"$logs/without-$dep.log" 2>&1 \
    || { cat "$logs/without-$dep.log"; exit 1; }
  if ANSIBLE_COLLECTIONS_PATH=$dest "$bin/ansible-playbook" --syntax-check -i "$inv" gpufleet.cluster.site \
      >>"$logs/without-$dep.log" 2>&1; then
    # --syntax-check resolves the statically imported tasks only: a module used only in a task file included at run
    # time (include_tasks: the roles' rare branches) fails the run when that branch is taken, so it counts too.
    used=$(grep -rlE "^ *${dep}[.][a-z_]+:" "$dest"/ansible_collections/gpufleet/cluster/roles/*/tasks | sort | head -1)
    [ -n "$used" ] || { echo "gpufleet.cluster.site loads without $dep: it is declared but nothing needs it?"; exit 1; }
    echo "without $dep: site.yml loads, and ${used#"$dest"/ansible_collections/gpufleet/cluster/} runs its modules (included at run time)"
  else
    grep -qF "couldn't resolve module/action '$dep." "$logs/without-$dep.log" \
      || { tail -20 "$logs/without-$dep.log"; echo "without $dep, site.yml failed for another reason"; exit 1; }
    echo "without $dep: $(grep -m1 -o "couldn't resolve module/action '[^']*'" "$logs/without-$dep.log")"
  fi
  rm -rf "$dest"
done
echo "install test: passed"
