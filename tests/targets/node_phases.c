// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * node_phases TRUTH_DIR: three ranks on one node whose peaks come at different moments, so
 * that the node's peak (what they hold at once) is less than the sum of their peaks. The
 * parent starts each rank (itself again, exec'd with OMPI_COMM_WORLD_RANK set), and passes a
 * token around the ranks twice through pipes: in the first round each allocates its base
 * block (base_site), in the second its phase block (phase_site), which it frees before it
 * passes the token on. They exit once the parent has seen both rounds through. Each rank
 * writes TRUTH_DIR/node-<rank>.json: the usable bytes of its two blocks (malloc_usable_size),
 * with write(2) only, so that nothing else allocates.
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RANKS 3
/* Phase blocks: the largest in the middle, so that neither order is what is checked. */
static const size_t phase_bytes[RANKS] = { 24u << 20, 40u << 20, 16u << 20 };
static const size_t base_bytes[RANKS] = { 1u << 20, 2u << 20, 3u << 20 };

__attribute__((noinline)) static char *base_site(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static char *phase_site(size_t n)
{
	return malloc(n);
}

static int rank_main(int rank, int in, int out, int release, const char *dir)
{
	char path[4096], text[256], c;
	size_t base_usable, phase_usable;
	char *base, *phase;
	int fd, len;

	/* Round 1: the base, held until the end. */
	if (read(in, &c, 1) != 1)
		return 3;
	base = base_site(base_bytes[rank]);
	if (!base)
		return 4;
	memset(base, 1, base_bytes[rank]);
	base_usable = malloc_usable_size(base);
	if (write(out, &c, 1) != 1)
		return 3;
	/* Round 2: the phase, freed before the next rank allocates its own. */
	if (read(in, &c, 1) != 1)
		return 3;
	phase = phase_site(phase_bytes[rank]);
	if (!phase)
		return 4;
	memset(phase, 2, phase_bytes[rank]);
	phase_usable = malloc_usable_size(phase);
	usleep(100000); /* long enough to be seen apart from the next phase */
	free(phase);
	len = snprintf(text, sizeof(text),
		       "{\"rank\": %d, \"pid\": %d, \"base_usable\": %zu, \"phase_usable\": %zu}\n",
		       rank, getpid(), base_usable, phase_usable);
	snprintf(path, sizeof(path), "%s/node-%d.json", dir, rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != len || close(fd))
		return 5;
	if (write(out, &c, 1) != 1)
		return 3;
	/* Exit once every rank is through: the bases stay held until then. */
	while (read(release, &c, 1) > 0)
		;
	free(base);
	return 0;
}

int main(int argc, char **argv)
{
	int ring[RANKS + 1][2], release[2], status = 0;
	char c = 't';

	if (argc == 6) /* a rank: node_phases --rank IN OUT RELEASE DIR */
		return rank_main(atoi(getenv("OMPI_COMM_WORLD_RANK")), atoi(argv[2]),
				 atoi(argv[3]), atoi(argv[4]), argv[5]);
	if (argc != 2) {
		fprintf(stderr, "usage: node_phases TRUTH_DIR\n");
		return 2;
	}
	for (int i = 0; i <= RANKS; i++) {
		if (pipe(ring[i]))
			return 3;
	}
	if (pipe(release))
		return 3;
	for (int r = 0; r < RANKS; r++) {
		pid_t pid = fork();

		if (pid < 0)
			return 3;
		if (pid == 0) {
			char in[16], out[16], rel[16], rank[48];
			/* Its own environment, made without malloc: it names the rank. */
			char *env[] = { rank, "OMPI_COMM_WORLD_SIZE=3", NULL };

			snprintf(in, sizeof(in), "%d", ring[r][0]);
			snprintf(out, sizeof(out), "%d", ring[r + 1][1]);
			snprintf(rel, sizeof(rel), "%d", release[0]);
			snprintf(rank, sizeof(rank), "OMPI_COMM_WORLD_RANK=%d", r);
			close(release[1]);
			execle("/proc/self/exe", argv[0], "--rank", in, out, rel, argv[1],
			       (char *)NULL, env);
			_exit(127);
		}
	}
	close(release[0]);
	for (int round = 0; round < 2; round++) {
		if (write(ring[0][1], &c, 1) != 1 || read(ring[RANKS][0], &c, 1) != 1)
			return 3;
	}
	close(release[1]);
	for (int r = 0; r < RANKS; r++) {
		int st;

		wait(&st);
		status |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	return status;
}
