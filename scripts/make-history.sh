#!/bin/sh
# make-history.sh TREE N REF: a synthetic kernel history to bisect, in TREE,
# for the end-to-end tests (tests/e2e/run.sh) and the bisect figure of
# scripts/bench.sh, each under a ref of its own.
#
# TREE is the bench's cached tree (a git repository whose pristine commit
# is refs/fpubench/base).  REF becomes N commits on top of it (harmless
# comment changes in a file that is compiled in), the fsave regression as
# the commit in the middle (REF-culprit), and right after it a commit that
# breaks the build, fixed by the next.  Commits are made with plumbing on a
# temporary index of our own: the work tree, HEAD and other indexes are
# not touched.
set -eu

[ $# -eq 3 ] || { echo "usage: make-history.sh TREE N REF" >&2; exit 2; }
cd "$1"
n=$2
ref=$3
case $n in
'' | *[!0-9]*) echo "make-history.sh: commit count '$n' is not a number" >&2; exit 2 ;;
esac
case $ref in
refs/*) ;;
*) echo "make-history.sh: ref '$ref' does not start with refs/" >&2; exit 2 ;;
esac
middle=$((n / 2))
harmless=arch/x86/kernel/fpu/bugs.c
core=arch/x86/kernel/fpu/core.c

GIT_INDEX_FILE=$(mktemp "$(git rev-parse --absolute-git-dir)/fpubench-bench-index.XXXXXX")
export GIT_INDEX_FILE
export GIT_AUTHOR_NAME=fpubench GIT_AUTHOR_EMAIL=fpubench@localhost
export GIT_COMMITTER_NAME=fpubench GIT_COMMITTER_EMAIL=fpubench@localhost
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
head=$(git rev-parse refs/fpubench/base)
git read-tree "$head"

when=1710000000
commit() {	# commit MESSAGE: commits the index on top of $head
	when=$((when + 60))
	head=$(GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
		git commit-tree "$(git write-tree)" -p "$head" -m "$1")
}

put() {	# put PATH < CONTENT: stages new content for PATH
	git update-index --cacheinfo "100644,$(git hash-object -w --stdin),$1"
}

i=1
while [ "$i" -le "$n" ]; do
	if [ "$i" -eq "$middle" ]; then
		git cat-file blob "$head:$core" |
			sed 's/asm volatile("fnsave %\[fp\]; fwait"/asm volatile("fsave %[fp]; fwait"/' |
			put "$core"
		commit "x86/fpu: Save the legacy x87 state with the waiting fsave"
		git update-ref "$ref-culprit" "$head"
	elif [ "$i" -eq $((middle + 1)) ]; then
		{ git cat-file blob "$head:$harmless"; echo "#error fpubench: this commit does not build"; } |
			put "$harmless"
		commit "x86/fpu: Break the build"
	elif [ "$i" -eq $((middle + 2)) ]; then
		git cat-file blob "$head:$harmless" | grep -v '^#error fpubench' | put "$harmless"
		commit "x86/fpu: Fix the build"
	else
		{ git cat-file blob "$head:$harmless"; echo "/* fpubench history step $i */"; } |
			put "$harmless"
		commit "x86/fpu: Harmless change $i"
	fi
	i=$((i + 1))
done
git update-ref "$ref" "$head"
