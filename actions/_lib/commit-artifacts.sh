#!/usr/bin/env bash
# Commits the files a scalegate step wrote to the branch the run is about (the PR's head branch,
# or the pushed/dispatched branch), then pushes. Never force-pushes: the commit is built on the
# branch's current tip (whatever the job checked out, e.g. the PR merge commit), so the push is a
# fast-forward; if the branch moved meanwhile, it is rebuilt on the new tip once and pushed again.
#
# Skips with a notice: nothing written, a pull request from a fork (its token cannot push there,
# and we never push to someone else's repository), a run not on a branch (tags, releases), and
# files identical to what the branch already has.
#
# Environment: FILES (newline-separated, as the action's written-files output), COMMAND, MODEL,
# IS_FORK (true|false), HEAD_REF (the PR's head branch, empty otherwise), GITHUB_REF,
# GITHUB_RUN_ID, GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_OUTPUT; optional REMOTE (origin).
set -euo pipefail

remote="${REMOTE:-origin}"
out="${GITHUB_OUTPUT:-/dev/null}"
notice() { echo "::notice title=scalegate::$*"; }
result() {
  echo "committed=$1" >>"$out"
  echo "commit-sha=${2:-}" >>"$out"
}

mapfile -t files < <(printf '%s\n' "${FILES:-}" | sed -e 's/\r$//' -e '/^[[:space:]]*$/d')
if [ "${#files[@]}" -eq 0 ]; then
  notice "the ${COMMAND:-scalegate} step wrote no artifact: nothing to commit"
  result false
  exit 0
fi
if [ "${IS_FORK:-false}" = "true" ]; then
  notice "pull request from a fork: the ${COMMAND:-} artifacts are not committed to it (they are uploaded as a workflow artifact); a maintainer can re-run the calibration from this repository"
  result false
  exit 0
fi
if [ -n "${HEAD_REF:-}" ]; then
  branch="$HEAD_REF"
elif [[ "${GITHUB_REF:-}" == refs/heads/* ]]; then
  branch="${GITHUB_REF#refs/heads/}"
else
  notice "not on a branch (${GITHUB_REF:-no ref}): artifacts not committed"
  result false
  exit 0
fi

top="$(git rev-parse --show-toplevel 2>/dev/null)" || {
  echo "::error title=scalegate::not in a git checkout: cannot commit the artifacts (add actions/checkout before this step)"
  exit 1
}

# Paths inside the repository, relative to its top.
declare -a paths=()
for f in "${files[@]}"; do
  abs="$(realpath -m -- "$f")"
  rel="$(realpath -m --relative-to="$top" -- "$abs")"
  if [[ "$rel" == ../* || "$rel" == /* ]]; then
    echo "::warning title=scalegate::$f is outside the repository: not committed"
    continue
  fi
  if [ ! -f "$abs" ]; then
    echo "::warning title=scalegate::$f does not exist: not committed"
    continue
  fi
  paths+=("$rel")
done
if [ "${#paths[@]}" -eq 0 ]; then
  notice "no committable artifact"
  result false
  exit 0
fi

export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-github-actions[bot]}"
export GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-41898282+github-actions[bot]@users.noreply.github.com}"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME"
export GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"

run_url="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
message="$(
  printf 'scalegate %s: %s artifacts\n\n' "${MODEL:-}" "${COMMAND:-}"
  printf '%s\n' "${paths[@]/#/- }"
  printf '\nMeasured and written by %s\n' "$run_url"
)"

index="$(mktemp)"
trap 'rm -f "$index"' EXIT

# Builds the commit on the branch's current tip; prints "unchanged" or the new commit's sha.
build_commit() {
  git -C "$top" fetch --quiet --no-tags --depth=1 "$remote" "+refs/heads/$branch:refs/scalegate/tip" >&2
  local tip tree
  tip="$(git -C "$top" rev-parse refs/scalegate/tip)"
  rm -f "$index"
  GIT_INDEX_FILE="$index" git -C "$top" read-tree "$tip"
  for rel in "${paths[@]}"; do
    local blob
    blob="$(git -C "$top" hash-object -w -- "$top/$rel")"
    GIT_INDEX_FILE="$index" git -C "$top" update-index --add --cacheinfo "100644,$blob,$rel"
  done
  tree="$(GIT_INDEX_FILE="$index" git -C "$top" write-tree)"
  if [ "$tree" = "$(git -C "$top" rev-parse "$tip^{tree}")" ]; then
    echo unchanged
    return 0
  fi
  git -C "$top" commit-tree "$tree" -p "$tip" -m "$message"
}

for attempt in 1 2; do
  commit="$(build_commit)"
  if [ "$commit" = unchanged ]; then
    notice "the ${COMMAND:-} artifacts for ${MODEL:-} are already on $branch: nothing to commit"
    result false
    exit 0
  fi
  # A plain push: the server refuses it unless it fast-forwards the branch. Never --force.
  if git -C "$top" push --quiet "$remote" "$commit:refs/heads/$branch"; then
    echo "committed ${paths[*]} to $branch as $commit"
    result true "$commit"
    exit 0
  fi
  if [ "$attempt" = 1 ]; then
    echo "::warning title=scalegate::$branch moved while the artifacts were committed: rebuilding the commit on its new tip once"
  fi
done
echo "::error title=scalegate::could not push the artifacts to $branch (it moved twice, or the token may not push: the job needs contents: write)"
exit 1
