/* tests/unit/faultserver.h: starting and stopping tests/server/faultserver.py from a cmocka test.
 * Test-only, header-only. The server dies with the test however the test dies (PDEATHSIG). */
#ifndef WP_TEST_FAULTSERVER_H
#define WP_TEST_FAULTSERVER_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv (python3 tests/server/faultserver.py ... --port-file port_file ...) and waits up to
 * 10 s for the port it writes. 0 with *pid and *port set, or -1 (the server is gone then). */
static inline int faultserver_start(char *const argv[], const char *port_file, pid_t *pid,
				    int *port)
{
	pid_t parent = getpid();
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(port_file, "r");
		if (f) {
			int p = 0;
			int got = fscanf(f, "%d", &p);
			fclose(f);
			if (got == 1 && p > 0) {
				*port = p;
				return 0;
			}
		}
		int status;
		if (waitpid(*pid, &status, WNOHANG) == *pid) {
			*pid = 0;
			return -1;
		}
		usleep(20000);
	}
	return -1;
}

/* SIGTERM, two seconds' grace, then SIGKILL. */
static inline void faultserver_stop(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = 0;
			return;
		}
		usleep(20000);
	}
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = 0;
}

#endif
