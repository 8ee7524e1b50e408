#!/usr/bin/env bash
# Rebuilds guest-sdk/js/src/vendor/: the npm polyfills the JS SDK's Node modules
# (guest-sdk/js/src/node/) build on, each bundled by esbuild into one CommonJS file. The
# packages are pinned in guest-sdk/js/package.json (devDependencies, installed by `npm ci`
# at the repository root); Node's built-in modules they import stay imports, which the task
# build resolves to guest-sdk/js/src/node/, so every polyfill shares one Buffer, one
# EventEmitter and one process. The files are committed: an installed bench carries them
# in its SDK and builds tasks offline.
#
# Usage: scripts/vendor-node-polyfills.sh [OUT_DIR]   (default guest-sdk/js/src/vendor)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/guest-sdk/js/src/vendor}")
cd "$root"   # esbuild names the bundled files relative to the folder it runs in
modules=$root/node_modules
esbuild=$modules/.bin/esbuild
mkdir -p "$out"

# name package entry (relative to the package's folder)
polyfills='
assert assert build/assert.js
buffer buffer index.js
events events events.js
path path-browserify index.js
punycode punycode punycode.js
querystring querystring-es3 index.js
stream readable-stream lib/stream.js
string_decoder string_decoder lib/string_decoder.js
url url url.js
util util util.js
xmldom @xmldom/xmldom lib/index.js
'

while read -r name package entry; do
  [ -n "$name" ] || continue
  manifest=$modules/$package/package.json
  version=$(node -p "require('$manifest').version")
  license=$(node -p "require('$manifest').license")
  "$esbuild" "$modules/$package/$entry" --bundle --format=cjs --platform=node --target=es2022 \
    --alias:inherits="$modules/inherits/inherits_browser.js" \
    --external:process/ --external:string_decoder/ --external:util/ --external:punycode/ \
    --legal-comments=inline --log-level=warning \
    --banner:js="// $package@$version ($license), bundled by scripts/vendor-node-polyfills.sh: do not edit." \
    --outfile="$out/$name.cjs"
  # Packages that reach past Node's own module with a trailing slash get Node's module.
  sed -i -E 's/require\("(process|string_decoder|util|punycode)\/"\)/require("\1")/g' "$out/$name.cjs"
done <<<"$polyfills"
