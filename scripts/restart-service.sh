#!/bin/sh
# restart-service.sh PIDFILE LOGFILE COMMAND [ARG...]
#
# A restart command for the http backend kind (backend.restart), for a
# service run without a supervisor: it stops the process whose pid is in
# PIDFILE (SIGTERM, then SIGKILL after 10 s), starts COMMAND in the
# background with its output appended to LOGFILE, and writes the new pid to
# PIDFILE. tune runs it by argv, so no parameter value ever reaches a shell;
# the service itself reads the config file tune rendered.
set -eu
pidfile=$1
log=$2
shift 2

alive() {
	kill -0 "$1" 2>/dev/null || return 1
	# A zombie is dead: it only waits for its parent to reap it.
	! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

if [ -s "$pidfile" ]; then
	pid=$(cat "$pidfile")
	if alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		i=0
		while alive "$pid"; do
			i=$((i + 1))
			if [ "$i" -eq 200 ]; then
				kill -KILL "$pid" 2>/dev/null || true
			fi
			if [ "$i" -gt 300 ]; then
				echo "restart-service: process $pid did not stop" >&2
				exit 1
			fi
			sleep 0.05
		done
	fi
fi
nohup "$@" >>"$log" 2>&1 </dev/null &
echo $! >"$pidfile"
