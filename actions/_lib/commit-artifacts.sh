#!/usr/bin/env bash
# Commits the files a scalegate step wrote to the branch the run is about (the PR's head branch,
# or the pushed/dispatched branch), then pushes. Never force-pushes: the commit is built on the
# branch's current tip (whatever the job checked out, e.g. the PR merge commit), so the push is a
# fast-forward; if the branch moved meanwhile (other committers), it is rebuilt on the new tip and
# pushed again, up to PUSH_ATTEMPTS times with jittered exponential backoff.
#
# Outside a pull request (workflow_dispatch, push, schedule), the default branch and protected
# branches are never pushed to: the commit goes to a new branch scalegate/artifacts/<model>-
# <command>-<run id> built on that branch's tip, and the step says so (open a pull request from it).
#
# A push that still fails is a warning, not a failed step: the measurement is not lost, the
# upload step that follows keeps the files as a workflow artifact.
#
# Skips with a notice: nothing written, a pull request from a fork (its token cannot push there,
# and we never push to someone else's repository), a run not on a branch (tags, releases), and
# files identical to what the branch already has.
#
# Refuses with a notice (committed=false; the measurement itself stands, and is uploaded):
# - a pull request whose head branch is the default branch or a protected branch (a PR from main
#   into another branch, say): artifacts are never pushed onto such a branch. Whether the head is
#   protected is HEAD_REF_PROTECTED (true|false) when the workflow passes it, else the `protected`
#   field of GET /repos/{owner}/{repo}/branches/{branch} (curl, with PUSH_TOKEN); a branch whose
#   protection cannot be read is treated as protected.
# - with MEASURED_SHA (the commit that was measured): a branch tip whose files differ from that
#   commit's anywhere outside ARTIFACTS_DIR. The head moved past what was measured (the push that
#   moved it starts a new calibration); a tip that differs only by artifact commits (another
#   model's, from the same run) is fine. The commit names the measured commit in a
#   `Measured-Sha: <sha>` trailer.
#
# The write token: PUSH_TOKEN, given to this step only (checkout with persist-credentials: false,
# so no other step finds a token in .git/config). It reaches git through GIT_CONFIG_* variables
# of the fetch and push commands alone; it is never written to disk.
#
# Environment: FILES (newline-separated, as the action's written-files output), COMMAND, MODEL,
# IS_FORK (true|false), HEAD_REF (the PR's head branch, empty otherwise), GITHUB_REF,
# GITHUB_EVENT_NAME, GITHUB_RUN_ID, GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_OUTPUT; optional
# PUSH_TOKEN, DEFAULT_BRANCH, REF_PROTECTED (true|false, github.ref_protected), HEAD_REF_PROTECTED
# (true|false), MEASURED_SHA, ARTIFACTS_DIR (artifacts), GITHUB_API_URL (https://api.github.com),
# REMOTE (origin), PUSH_ATTEMPTS (6), PUSH_BACKOFF_S (2: the first wait; doubled each time, with
# jitter, at most 60).
set -euo pipefail

remote="${REMOTE:-origin}"
out="${GITHUB_OUTPUT:-/dev/null}"
attempts="${PUSH_ATTEMPTS:-6}"
backoff="${PUSH_BACKOFF_S:-2}"
notice() { echo "::notice title=scalegate::$*"; }
result() {
  echo "committed=$1" >>"$out"
  echo "commit-sha=${2:-}" >>"$out"
  echo "branch=${3:-}" >>"$out"
}

# git with the push token for this one command (fetch, push), never persisted.
authed_git() {
  if [ -n "${PUSH_TOKEN:-}" ]; then
    local basic
    basic="$(printf 'x-access-token:%s' "$PUSH_TOKEN" | base64 | tr -d '\n')"
    echo "::add-mask::$basic"
    GIT_CONFIG_COUNT=1 \
      GIT_CONFIG_KEY_0="http.${GITHUB_SERVER_URL:-https://github.com}/.extraheader" \
      GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $basic" \
      git "$@"
  else
    git "$@"
  fi
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
# Whether the pull request's head branch is protected: true, false, or unknown.
head_protected() {
  case "${HEAD_REF_PROTECTED:-}" in
    true | false)
      echo "$HEAD_REF_PROTECTED"
      return 0
      ;;
  esac
  local LC_ALL=C api="${GITHUB_API_URL:-https://api.github.com}" name="" c i body found
  # Percent-encode the branch name (keeping /, which the route takes as it is).
  for ((i = 0; i < ${#HEAD_REF}; i++)); do
    c="${HEAD_REF:i:1}"
    case "$c" in
      [A-Za-z0-9._~/-]) name+="$c" ;;
      *) name+="$(printf '%%%02X' "'$c")" ;;
    esac
  done
  # The token reaches curl on stdin (-H @-), never on its command line.
  body="$(
    {
      if [ -n "${PUSH_TOKEN:-}" ]; then printf 'Authorization: Bearer %s\n' "$PUSH_TOKEN"; fi
      printf 'Accept: application/vnd.github+json\nX-GitHub-Api-Version: 2022-11-28\n'
    } | curl --silent --show-error --fail --retry 3 --max-time 30 -H @- \
      "$api/repos/${GITHUB_REPOSITORY:-}/branches/$name" 2>&1
  )" || {
    echo "unknown: ${body//$'\n'/ }"
    return 0
  }
  found="$(printf '%s' "$body" | grep -Eo '"protected"[[:space:]]*:[[:space:]]*(true|false)' | sed -E 's/.*(true|false)$/\1/' | sort -u)"
  case "$found" in
    true | false) echo "$found" ;;
    *) echo "unknown: no single protected field in the answer" ;;
  esac
}

if [ -n "${HEAD_REF:-}" ]; then
  branch="$HEAD_REF"
  if [ "$branch" = "${DEFAULT_BRANCH:-}" ]; then
    notice "the pull request's head branch $branch is the default branch: the ${COMMAND:-} artifacts are not pushed onto it (they are uploaded as a workflow artifact); open the pull request from another branch"
    result false
    exit 0
  fi
  protection="$(head_protected)"
  if [ "$protection" = true ]; then
    notice "the pull request's head branch $branch is protected: the ${COMMAND:-} artifacts are not pushed onto it (they are uploaded as a workflow artifact); open the pull request from an unprotected branch"
    result false
    exit 0
  elif [ "$protection" != false ]; then
    notice "could not tell whether the pull request's head branch $branch is protected (GET /repos/${GITHUB_REPOSITORY:-}/branches/$branch: ${protection#unknown: }): the ${COMMAND:-} artifacts are not pushed (they are uploaded as a workflow artifact)"
    result false
    exit 0
  fi
elif [[ "${GITHUB_REF:-}" == refs/heads/* ]]; then
  branch="${GITHUB_REF#refs/heads/}"
else
  notice "not on a branch (${GITHUB_REF:-no ref}): artifacts not committed"
  result false
  exit 0
fi
# The branch the commit is built on, and the branch it is pushed to (different when protected).
base_branch="$branch"
if [ -z "${HEAD_REF:-}" ] && { [ "$branch" = "${DEFAULT_BRANCH:-}" ] || [ "${REF_PROTECTED:-false}" = "true" ]; }; then
  branch="scalegate/artifacts/${MODEL:-model}-${COMMAND:-step}-${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"
  notice "$base_branch is the default or a protected branch: the ${COMMAND:-} artifacts go to a new branch $branch (built on $base_branch), never straight onto $base_branch; open a pull request from it"
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
measured="${MEASURED_SHA:-}"
if [ -n "$measured" ] && ! [[ "$measured" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
  notice "MEASURED_SHA \"$measured\" is not a commit id (40 or 64 hex digits): the ${COMMAND:-} artifacts are not committed (they are uploaded as a workflow artifact)"
  result false
  exit 0
fi
artifacts_dir="${ARTIFACTS_DIR:-artifacts}"
artifacts_dir="${artifacts_dir%/}"
message="$(
  printf 'scalegate %s: %s artifacts\n\n' "${MODEL:-}" "${COMMAND:-}"
  printf '%s\n' "${paths[@]/#/- }"
  printf '\nMeasured and written by %s\n' "$run_url"
  if [ -n "$measured" ]; then printf '\nMeasured-Sha: %s\n' "$measured"; fi
)"

index="$(mktemp)"
trap 'rm -f "$index"' EXIT

# A shallow checkout stays shallow (one commit is enough to build on); a full clone is never made
# shallow by this fetch (that would cut its history for every later step).
depth=()
if [ "$(git -C "$top" rev-parse --is-shallow-repository)" = "true" ]; then depth=(--depth=1); fi

# Whether the files of `tip` are those of the measured commit, outside the artifacts directory.
same_as_measured() {
  local tip="$1"
  [ "$tip" = "$measured" ] && return 0
  if ! git -C "$top" cat-file -e "$measured^{commit}" 2>/dev/null; then
    authed_git -C "$top" fetch --quiet --no-tags "${depth[@]}" "$remote" "$measured" >&2 || return 1
  fi
  git -C "$top" diff --quiet "$measured" "$tip" -- . ":(exclude)$artifacts_dir" 2>/dev/null
}

# Builds the commit on the base branch's current tip; prints "unchanged", "moved" (the tip is no
# longer the measured commit) or the new commit's sha.
build_commit() {
  authed_git -C "$top" fetch --quiet --no-tags "${depth[@]}" "$remote" "+refs/heads/$base_branch:refs/scalegate/tip" >&2
  local tip tree
  tip="$(git -C "$top" rev-parse refs/scalegate/tip)"
  if [ -n "$measured" ] && ! same_as_measured "$tip"; then
    echo "moved $tip"
    return 0
  fi
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

# Wait before attempt n+1: backoff * 2^(n-1), at most 60 s, plus up to as much again at random
# (jitter: concurrent committers that collided do not collide again in step).
wait_before_retry() {
  local n="$1" base
  base=$((backoff * (1 << (n - 1))))
  if [ "$base" -gt 60 ]; then base=60; fi
  local jitter=0
  if [ "$base" -gt 0 ]; then jitter=$((RANDOM % (base + 1))); fi
  echo "retrying in $((base + jitter)) s (attempt $((n + 1)) of $attempts)"
  sleep "$((base + jitter))"
}

for ((attempt = 1; attempt <= attempts; attempt++)); do
  commit="$(build_commit)" || commit=""
  if [[ "$commit" == moved\ * ]]; then
    notice "$base_branch moved past the measured commit ${measured:0:12} (its tip ${commit#moved } differs outside $artifacts_dir/): the ${COMMAND:-} artifacts measure an older head and are not committed (they are uploaded as a workflow artifact); the push that moved it starts a new calibration"
    result false
    exit 0
  fi
  if [ "$commit" = unchanged ]; then
    notice "the ${COMMAND:-} artifacts for ${MODEL:-} are already on $base_branch: nothing to commit"
    result false
    exit 0
  fi
  # A plain push: the server refuses it unless it fast-forwards the branch. Never --force.
  if [ -n "$commit" ] && authed_git -C "$top" push --quiet "$remote" "$commit:refs/heads/$branch"; then
    echo "committed ${paths[*]} to $branch as $commit"
    result true "$commit" "$branch"
    exit 0
  fi
  if [ "$attempt" -lt "$attempts" ]; then
    echo "::warning title=scalegate::push of the ${COMMAND:-} artifacts to $branch failed (attempt $attempt of $attempts; the branch moved, or the remote refused): rebuilding the commit on its new tip"
    wait_before_retry "$attempt"
  fi
done
echo "::warning title=scalegate::could not push the ${COMMAND:-} artifacts to $branch after $attempts attempts (many concurrent committers, or the token may not push: the job needs contents: write); they are still uploaded as a workflow artifact"
result false "" ""
exit 0
