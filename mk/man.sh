#!/bin/sh
# Assemble the installed man page: docs/colldb.1 (or a short header when it
# does not exist yet), followed by every docs/*.1.part fragment not merged
# into it, each under the .SH its second comment line names.
#   sh mk/man.sh VERSION [PART...] > colldb.1
set -eu
version=$1
shift
page=docs/colldb.1
if [ -f "$page" ]; then
	cat "$page"
else
	cat <<EOT
.TH COLLDB 1 "" "colldb $version" "User Commands"
.SH NAME
colldb \- an interactive shell and debugger for collective communication
.SH SYNOPSIS
.B colldb
.RB [ \-n
.IR N ]
.RB [ \-t
.BR shm ]
.RB [ \-x
.IR FILE ]...
.RB [ \-\-batch ]
.RB [ \-\-timeout
.IR SECS ]
.RI [ FILE ...]
.br
.B colldb run
.RB [ \-n
.IR N ]
.RB [ \-\-batch ]
.RB [ \-\- ]
.I PROGRAM
.RI [ ARGS ...]
.br
.B colldb \-\-help
|
.B \-\-version
.SH DESCRIPTION
.B colldb
starts a world of
.I N
rank processes sharing memory, and a prompt to drive them: windows,
notify/wait, put/get, collectives one micro-op at a time, breakpoints and
hang diagnosis.
.B help
at the prompt lists the commands.
EOT
fi
for part in "$@"; do
	first=$(grep -m1 '^\.SS' "$part" || true)
	if [ -f "$page" ] && [ -n "$first" ] && grep -qxF "$first" "$page"; then
		continue	# already merged
	fi
	sect=$(sed -n '2s/.*merge it under \.SH "\([^"]*\)".*/\1/p' "$part")
	[ -n "$sect" ] && printf '.SH "%s"\n' "$sect"
	cat "$part"
done
