#!/usr/bin/env bash
# Stages the root scalegate action (action.yml + dist/) at $GITHUB_WORKSPACE/.scalegate/action so
# that a composite step can `uses: ./.scalegate/action`.
#
# Why: inside a composite action, `uses: ./path` resolves against the caller's workspace, not the
# action's own repository, and `uses:` accepts no expressions (`${{ github.action_path }}` cannot
# be used there). Copying the root action from this composite's own checkout
# ($GITHUB_ACTION_PATH/../..) runs exactly the ref the workflow pinned, with its post step
# (thaw after a cancelled measurement), without hard-coding `<owner>/<repo>@<ref>` in the file.
set -euo pipefail

src="$(cd "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}/../.." && pwd)"
dest="${GITHUB_WORKSPACE:?GITHUB_WORKSPACE is not set}/.scalegate/action"

for f in action.yml dist/main.mjs dist/post.mjs; do
  if [ ! -f "$src/$f" ]; then
    echo "::error title=scalegate::$src/$f is missing: this ref of scalegate has no built action (run npm run build and commit dist/)"
    exit 1
  fi
done

if [ "$(cd "$src" && pwd -P)" != "$(mkdir -p "$dest" && cd "$dest" && pwd -P)" ]; then
  rm -rf "$dest"
  mkdir -p "$dest/dist"
  cp "$src/action.yml" "$dest/action.yml"
  cp "$src/dist/main.mjs" "$src/dist/post.mjs" "$dest/dist/"
fi
# Never commit the staged copy (nor the thaw journals next to it).
if [ ! -f "$GITHUB_WORKSPACE/.scalegate/.gitignore" ]; then
  printf '*\n' >"$GITHUB_WORKSPACE/.scalegate/.gitignore"
fi
echo "staged scalegate from $src at .scalegate/action"
