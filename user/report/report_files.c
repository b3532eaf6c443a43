// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Report files opened up front and written at the end. Opened without O_TRUNC: a run that
 * fails before its report leaves a previous report in place. Replaced in place rather
 * than by rename, so that /dev/stdout, a pipe or a symlink still work as report paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"
#include "report.h"

int report_file__open(struct report_file *rf, const char *path)
{
	int fd;

	*rf = (struct report_file){ .path = path };
	/* Not inherited by a command heaptap runs. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0)
		rf->created = true;
	else if (errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rf->f = fdopen(fd, "w");
	if (!rf->f) {
		int err = -errno;

		close(fd);
		if (rf->created)
			unlink(path);
		return err;
	}
	return 0;
}

bool report_file__same(const struct report_file *a, const struct report_file *b)
{
	struct stat sa, sb;

	if (!a->f || !b->f || fstat(fileno(a->f), &sa) || fstat(fileno(b->f), &sb))
		return false;
	return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int report_outputs__open(const struct report_output *outs, size_t nr)
{
	int err = 0;
	size_t i;

	for (i = 0; i < nr && !err; i++) {
		if (!outs[i].path)
			continue;
		err = report_file__open(outs[i].rf, outs[i].path);
		if (err) {
			log_error("cannot write %s %s: %s", outs[i].option, outs[i].path,
				  strerror(-err));
			break;
		}
		for (size_t j = 0; j < i && !err; j++) {
			if (!outs[j].path || !report_file__same(outs[j].rf, outs[i].rf))
				continue;
			log_error("%s and %s name the same file, %s: give each report its own",
				  outs[j].option, outs[i].option, outs[i].path);
			err = -EEXIST;
		}
	}
	if (err) {
		for (size_t j = 0; j < nr && j <= i; j++)
			report_file__close(outs[j].rf);
	}
	return err;
}

FILE *report_file__begin(struct report_file *rf)
{
	struct stat st;

	rf->written = true;
	if (fstat(fileno(rf->f), &st))
		return NULL;
	if (S_ISREG(st.st_mode) && (ftruncate(fileno(rf->f), 0) || fseek(rf->f, 0, SEEK_SET)))
		return NULL;
	return rf->f;
}

/* Remove the file heaptap created, if path still names it. */
static void remove_created(struct report_file *rf)
{
	struct stat ours, now;

	if (!fstat(fileno(rf->f), &ours) && !stat(rf->path, &now) && ours.st_dev == now.st_dev &&
	    ours.st_ino == now.st_ino)
		unlink(rf->path);
}

int report_file__close(struct report_file *rf)
{
	int err = 0;

	if (!rf->f)
		return 0;
	if (rf->created && !rf->written)
		remove_created(rf);
	if (ferror(rf->f))
		err = -EIO;
	if (fclose(rf->f) && !err)
		err = -errno;
	rf->f = NULL;
	return err;
}
