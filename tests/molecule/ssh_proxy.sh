#!/usr/bin/env bash
# ssh's ProxyCommand for molecule's containers (.config/molecule/config.yml): sshd in inetd mode inside the container,
# reached through one `podman exec` per connection, letting in the lab's key (.lab/ssh, made by lab.py or
# tests/molecule/run-all.sh). With ControlPersist one connection serves a host for a whole playbook, and pipelining
# runs each task as one command in it: podman's connection plugin has no pipelining and runs several `podman exec`
# per task (docs/performance.md has the figures).
#   ssh_proxy.sh CONTAINER
set -euo pipefail
key=$(cat "$(dirname "$0")/../../.lab/ssh/id_ed25519.pub")
# A container makes its own host keys on first boot (gpufleet-ssh-hostkeys.service): a connection made right after
# `molecule create` waits for them (up to 60 s; then sshd says what is missing).
exec podman exec -i "$1" /bin/sh -c '
  i=0; while [ ! -s /etc/ssh/ssh_host_ed25519_key.pub ] && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
  mkdir -p -m 0755 /run/sshd && exec /usr/sbin/sshd -i -o "$0" -o "AuthorizedKeysCommandUser nobody"' \
  "AuthorizedKeysCommand /bin/echo $key"
