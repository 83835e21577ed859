#!/bin/sh
# Two hosts on one machine, for the mpi tier: run a command on "node1"
# with "node2" reachable, each a network namespace of its own, joined by a
# veth pair (interface cdb0 on both, 10.213.7.1 and 10.213.7.2/24).
#
#   tests/mpi/hosts.sh COMMAND [ARGS...]
#
# node1 is a rootless `unshare -Urnmup` (its own user, network, mount,
# uts and pid namespaces: when the command ends, every process in it ends
# with its init; as root in a chroot, which refuses user namespaces, the
# same without -U); node2 is a child `unshare -nmu` inside it, kept alive
# by a sleep.  Each namespace mounts its own /sys (UCX finds network devices
# there).  COMMAND runs in node1 with:
#   NODE1 NODE2    the two addresses, NET the interface name (cdb0)
#   RSH            an exec script "RSH [-opts] HOST CMD..." that runs CMD
#                  on HOST (nsenter into node2, or here): what the MPI
#                  launchers use as their ssh (OMPI_MCA_plm_rsh_agent,
#                  HYDRA_LAUNCHER_EXEC are set to it)
# Only addresses inside these namespaces are used.  Afterwards every
# namespace, the veth pair and every process the command started are
# gone: that is checked here (by the namespaces' inode numbers), and a
# leftover fails the run.  The exit status is COMMAND's (or 1).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/need.sh"
need unshare nsenter ip mount

if [ "${CDB_HOSTS_INNER:-}" = "" ]; then
	ids=$(mktemp)
	# Rootless when the kernel lets us (a user namespace); root without
	# one where it does not (a chroot refuses user namespaces), keeping
	# the mounts' propagation when / is no mount point (hostile.sh too).
	prop=
	if unshare -Urnmup --fork --mount-proc true 2>/dev/null; then
		ns=-Urnmup
	elif [ "$(id -u)" = 0 ]; then
		ns=-nmup
		unshare -nmup --fork --mount-proc true 2>/dev/null ||
			prop="--propagation unchanged"
	else
		echo "FAIL: hosts.sh: no user namespace, and not root"
		exit 1
	fi
	# shellcheck disable=SC2086
	CDB_HOSTS_INNER=$ids CDB_HOSTS_PROP="$prop" unshare $ns $prop --fork \
		--mount-proc sh "$0" "$@"
	rc=$?
	made=$(wc -l <"$ids")
	left=""
	for id in $(cat "$ids"); do
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/ns/net" 2>/dev/null)" = "$id" ] &&
				left="$left ${p#/proc/}"
		done
	done
	rm -f "$ids"
	if [ -n "$left" ]; then
		echo "FAIL: hosts.sh: processes left in its namespaces:$left"
		exit 1
	fi
	if [ "$made" -ne 2 ]; then
		echo "FAIL: hosts.sh: the two namespaces were not made"
		exit 1
	fi
	exit $rc
fi

# ---- inside node1 ----------------------------------------------------------
ids=$CDB_HOSTS_INNER
prop=$CDB_HOSTS_PROP
unset CDB_HOSTS_INNER CDB_HOSTS_PROP
dir=$(mktemp -d)
hostname node1
mount -t sysfs sysfs /sys || { echo "FAIL: hosts.sh: cannot mount /sys"; exit 1; }
mount -t tmpfs tmpfs "$dir"	# the rsh script and pid file: gone with us
ip link set lo up
ip link add cdb0 type veth peer name cdb0p || { echo "FAIL: hosts.sh: no veth"; exit 1; }
ip addr add 10.213.7.1/24 dev cdb0
ip link set cdb0 up
# shellcheck disable=SC2086
unshare -nmu $prop sh -c 'hostname node2; mount -t sysfs sysfs /sys; echo $$ > '"$dir"'/node2.pid; exec sleep 100000' &
holder=$!
i=0
while [ ! -s "$dir/node2.pid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
p2=$(cat "$dir/node2.pid")
ip link set cdb0p netns "$p2"
nsenter -t "$p2" -n ip link set cdb0p name cdb0
nsenter -t "$p2" -n ip link set lo up
nsenter -t "$p2" -n ip addr add 10.213.7.2/24 dev cdb0
nsenter -t "$p2" -n ip link set cdb0 up
readlink /proc/self/ns/net >"$ids"
readlink "/proc/$p2/ns/net" >>"$ids"
cat >"$dir/rsh" <<EOF
#!/bin/sh
# the launchers' ssh: [-options] HOST COMMAND...  (-r: the root node2 sees,
# which entering its mount namespace would otherwise reset: a chroot's)
while case "\$1" in -*) true ;; *) false ;; esac; do shift; done
h=\$1; shift
case \$h in
10.213.7.2|node2) exec nsenter -t $p2 -n -u -m -r --wd="\$PWD" -- sh -c "\$*" ;;
*) exec sh -c "\$*" ;;
esac
EOF
chmod +x "$dir/rsh"
export NODE1=10.213.7.1 NODE2=10.213.7.2 NET=cdb0 RSH="$dir/rsh"
export OMPI_MCA_plm_rsh_agent="$RSH" HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC="$RSH"
"$@"
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
umount "$dir" 2>/dev/null
rmdir "$dir"
exit $rc
