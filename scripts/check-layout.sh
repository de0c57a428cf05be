#!/bin/sh
# Checks the layers of the sources (docs/architecture.md): each folder may
# include only the folders listed for it, so lib/ stands alone, provenance/
# stands on lib/ only, and bench/'s stages form no cycle.  bench/ reaches
# provenance/ through provenance/provenance.h alone.  Every repository path
# named in a comment or a document exists (scripts/check-paths.py), and no
# source file is over 600 lines nor function over 80 (scripts/check-size.py).  Prints
# each offence as FILE:LINE: and exits 1 when there is one.
set -eu
cd "$(dirname "$0")/.."

# folder: the folders its files may include (itself always)
allowed() {
	case "$1" in
	lib) echo "" ;;
	provenance) echo "lib" ;;
	bench/build) echo "lib" ;;
	bench/judge) echo "lib" ;;
	bench/boot) echo "lib judge" ;;
	bench/lab) echo "lib judge boot" ;;
	bench/record) echo "lib judge boot" ;;
	bench/bisect) echo "lib" ;;
	bench/run) echo "lib build boot judge record lab provenance.h" ;;
	bench/cmd) echo "lib build boot judge record bisect run lab provenance.h" ;;
	*) echo "?" ;;
	esac
}

bad=0
for f in lib/*.[ch] provenance/*.[ch] bench/*/*.[ch]; do
	dir=${f%/*}
	ok=$(allowed "$dir")
	if [ "$ok" = "?" ]; then
		echo "$f: folder '$dir' has no layer in scripts/check-layout.sh"
		bad=1
		continue
	fi
	grep -n '^#include "[^"]*/' "$f" | while IFS= read -r line; do
		n=${line%%:*}
		inc=${line#*\"}
		inc=${inc%%\"*}
		top=${inc%%/*}
		case "$top" in
		lib) want=lib ;;
		provenance)
			case "$dir" in
			provenance) want=ok ;;
			*) [ "$inc" = provenance/provenance.h ] && want=provenance.h || want=provenance ;;
			esac ;;
		*) want=$top ;;
		esac
		[ "$want" = ok ] && continue
		[ "bench/$want" = "$dir" ] && continue
		case " $ok " in
		*" $want "*) ;;
		*) echo "$f:$n: '$inc' is not allowed in $dir/ (allowed: ${ok:-nothing})"; echo x >&3 ;;
		esac
	done 3>>"${TMPDIR:-/tmp}/check-layout.$$"
done
if [ -s "${TMPDIR:-/tmp}/check-layout.$$" ]; then bad=1; fi
rm -f "${TMPDIR:-/tmp}/check-layout.$$"
python3 scripts/check-paths.py || bad=1
python3 scripts/check-size.py || bad=1
exit $bad
