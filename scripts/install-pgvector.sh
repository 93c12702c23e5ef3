#!/usr/bin/env bash
# Build and install pgvector 0.8.0 for PostgreSQL 15 on Debian 12 (bookworm),
# which packages PostgreSQL 15 but not pgvector: Debian's own pgvector source
# package from the next release (trixie) builds against PostgreSQL 15 as is.
# Takes about 25 s; does nothing when vector.so is already installed.
# Run as root. Usage: scripts/install-pgvector.sh
set -euo pipefail

PG=15
VERSION=0.8.0-1
libdir=$( (command -v pg_config >/dev/null 2>&1 && pg_config --pkglibdir) || echo "/usr/lib/postgresql/$PG/lib")
if [ -f "/usr/lib/postgresql/$PG/lib/vector.so" ] || [ -f "$libdir/vector.so" ]; then
  echo "install-pgvector: vector.so already installed; nothing to do"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
started=$(date +%s)
# Sources only (deb-src) from trixie: no binary package of the next release
# is installed.
list=/etc/apt/sources.list.d/trixie-src.sources
if [ ! -f "$list" ]; then
  cat >"$list" <<'LIST'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
LIST
fi
apt-get update -qq
apt-get install -y -qq "postgresql-$PG" "postgresql-server-dev-$PG" dpkg-dev build-essential >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source -qq "pgvector=$VERSION" >/dev/null
cd pgvector-*/
# OPTFLAGS="" builds for any x86-64 (no -march=native), as Debian does.
make -s PG_CONFIG="/usr/lib/postgresql/$PG/bin/pg_config" OPTFLAGS="" >/dev/null
make -s PG_CONFIG="/usr/lib/postgresql/$PG/bin/pg_config" install >/dev/null
echo "install-pgvector: pgvector $VERSION installed for PostgreSQL $PG in $(( $(date +%s) - started )) s"
