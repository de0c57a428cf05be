#!/bin/sh
# make-history.sh TREE N: a synthetic kernel history to bisect, in TREE.
#
# TREE is the bench's cached tree (a git repository whose pristine commit
# is refs/fpubench/base).  refs/fpubench/history becomes N commits on top
# of it: harmless comment changes in a file that is compiled in, the fsave
# regression as the commit in the middle (refs/fpubench/history-culprit),
# and right after it a commit that breaks the build, fixed by the next.
# Commits are made with plumbing on a temporary index: the work tree and
# HEAD are not touched.
set -eu

cd "$1"
n=$2
middle=$((n / 2))
harmless=arch/x86/kernel/fpu/bugs.c
core=arch/x86/kernel/fpu/core.c

export GIT_INDEX_FILE="$(git rev-parse --absolute-git-dir)/fpubench-history-index"
export GIT_AUTHOR_NAME=fpubench GIT_AUTHOR_EMAIL=fpubench@localhost
export GIT_COMMITTER_NAME=fpubench GIT_COMMITTER_EMAIL=fpubench@localhost
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
head=$(git rev-parse refs/fpubench/base)
git read-tree "$head"

when=1700000000
commit() {	# commit MESSAGE: commits the index on top of $head
	when=$((when + 60))
	head=$(GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
		git commit-tree "$(git write-tree)" -p "$head" -m "$1")
}

put() {	# put PATH < CONTENT: stages new content for PATH
	git update-index --cacheinfo "100644,$(git hash-object -w --stdin),$1"
}

for i in $(seq 1 "$n"); do
	if [ "$i" -eq "$middle" ]; then
		git cat-file blob "$head:$core" |
			sed 's/asm volatile("fnsave %\[fp\]; fwait"/asm volatile("fsave %[fp]; fwait"/' |
			put "$core"
		commit "x86/fpu: Save the legacy x87 state with the waiting fsave"
		git update-ref refs/fpubench/history-culprit "$head"
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
done
git update-ref refs/fpubench/history "$head"
