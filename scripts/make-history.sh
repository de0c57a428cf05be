#!/bin/sh
# make-history.sh TREE N REF [ARCHIVE]: a synthetic kernel history to bisect, in TREE,
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
#
# The culprit has an author of its own, review trailers and no Link:, as
# most kernel commits now.  With ARCHIVE, an mbox of its life on the list
# is written there by git format-patch: v1 (a different diff, with its
# own To and Cc), a review of v1, and v2, whose diff is the commit's.
set -eu

[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: make-history.sh TREE N REF [ARCHIVE]" >&2; exit 2; }
cd "$1"
n=$2
ref=$3
archive=${4:-}
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

culprit_message='x86/fpu: Save the legacy x87 state with the waiting fsave

fsave and fnsave store the same image; the waiting form orders the
store after the x87 instructions still in flight.

Signed-off-by: Zoë Ünal <zoe.unal@example.org>
Reviewed-by: Bob Reviewer <bob@example.org>
Acked-by: "Maintainer, Carol" <carol@example.org>
Signed-off-by: Dave Committer <dave@example.org>'

# write_archive PARENT CULPRIT: v1 (the change and a comment), a review, v2.
write_archive() {
	v1_tree=$(git cat-file blob "$2:$core" | sed '1i /* v1: the waiting save */' |
		{ git read-tree "$2"; put "$core"; git write-tree; })
	git read-tree "$2"
	v1=$(GIT_AUTHOR_NAME='Zoë Ünal' GIT_AUTHOR_EMAIL=zoe.unal@example.org \
		GIT_AUTHOR_DATE="@$((when - 86400)) +0000" git commit-tree "$v1_tree" -p "$1" \
		-m "x86/fpu: Use the waiting fsave for the legacy x87 state" -m "Signed-off-by: Zoë Ünal <zoe.unal@example.org>")
	v1_id="20231113000000.1-1-zoe.unal@example.org"
	v2_id="20231114000000.2-1-zoe.unal@example.org"
	{
		git format-patch --stdout -1 --subject-prefix=PATCH --thread \
			--to='x86@kernel.org' --cc='linux-kernel@vger.kernel.org' \
			--cc='Bob Reviewer <bob@example.org>' "$v1" |
			sed "s/^Message-I[dD]: <.*>/Message-ID: <$v1_id>/"
		cat <<-EOF
		From bob Mon Sep 17 00:00:00 2001
		From: Bob Reviewer <bob@example.org>
		To: =?UTF-8?q?Zo=C3=AB=20=C3=9Cnal?= <zoe.unal@example.org>
		Cc: x86@kernel.org, linux-kernel@vger.kernel.org
		Subject: Re: [PATCH] x86/fpu: Use the waiting fsave for the legacy x87 state
		Date: Tue, 14 Nov 2023 09:00:00 +0000
		Message-ID: <bob-v1-review@example.org>
		In-Reply-To: <$v1_id>
		References: <$v1_id>

		Drop the comment and say why in the message.  With that:

		Reviewed-by: Bob Reviewer <bob@example.org>

		EOF
		git format-patch --stdout -1 -v2 --thread --in-reply-to="$v1_id" \
			--to='x86@kernel.org' --cc='linux-kernel@vger.kernel.org' \
			--cc='"Maintainer, Carol" <carol@example.org>' --cc='Bob Reviewer <bob@example.org>' "$2" |
			sed "s/^Message-I[dD]: <.*>/Message-ID: <$v2_id>/"
	} >"$archive"
}

i=1
while [ "$i" -le "$n" ]; do
	if [ "$i" -eq "$middle" ]; then
		parent=$head
		git cat-file blob "$head:$core" |
			sed 's/asm volatile("fnsave %\[fp\]; fwait"/asm volatile("fsave %[fp]; fwait"/' |
			put "$core"
		GIT_AUTHOR_NAME='Zoë Ünal' GIT_AUTHOR_EMAIL=zoe.unal@example.org \
			commit "$culprit_message"
		git update-ref "$ref-culprit" "$head"
		[ -z "$archive" ] || write_archive "$parent" "$head"
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
