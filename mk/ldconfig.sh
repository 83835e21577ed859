#!/bin/sh
# mk/ldconfig.sh LIBDIR: after `make install` put libcolldb.so.0 in LIBDIR,
# make the dynamic loader find it (see docs/libcolldb.md, "Building"):
#   - LIBDIR is one of the loader's directories and we are root: run
#     ldconfig, so the loader's cache has the new library;
#   - one of them, not root: say that ldconfig must run as root;
#   - not one of them: say how to run programs (LD_LIBRARY_PATH) or how
#     to add LIBDIR to the loader's path.
# A staged install (DESTDIR set) says nothing: the target system runs
# ldconfig when the files land there.
set -u
libdir=$1
[ -n "${DESTDIR:-}" ] && exit 0
PATH=$PATH:/sbin:/usr/sbin
command -v ldconfig >/dev/null 2>&1 || {
	echo "colldb: no ldconfig here: run programs with LD_LIBRARY_PATH=$libdir"
	exit 0
}
# the directories the loader searches: ldconfig -v lists each as "DIR: ..."
dirs=$(ldconfig -v -N -X 2>/dev/null | sed -n 's/^\(\/[^:	]*\):.*/\1/p')
real=$(cd "$libdir" 2>/dev/null && pwd -P) || real=$libdir
on_path=0
for d in $dirs; do
	[ "$(cd "$d" 2>/dev/null && pwd -P)" = "$real" ] && on_path=1
done
if [ $on_path = 1 ]; then
	if [ "$(id -u)" = 0 ]; then
		ldconfig && echo "colldb: ran ldconfig: programs linked with -lcolldb find $libdir/libcolldb.so.0"
	else
		echo "colldb: run ldconfig as root, so programs linked with -lcolldb find $libdir/libcolldb.so.0"
	fi
else
	echo "colldb: $libdir is not on the loader's path: run programs linked with -lcolldb" \
	    "with LD_LIBRARY_PATH=$libdir, or add $libdir to /etc/ld.so.conf.d/colldb.conf and run ldconfig"
fi
