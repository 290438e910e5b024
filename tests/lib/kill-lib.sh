# kill-lib.sh - killing a measured process mid-run, for the tests of what
# a killed process leaves (sourced by tests/t1050-hpcrun-endings.sh and
# tests/t3102-hpcprof-mpi-recover.sh after test-lib.sh).

# killed PID FILE: waits (up to 30 s) until FILE says "pid PID", then
# kills PID with SIGKILL whatever happened and reaps it.
killed() {
	_i=0
	while ! grep -q "^pid $1$" "$2" && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -9 "$1" && wait "$1"
	grep -q "^pid $1$" "$2"
}
