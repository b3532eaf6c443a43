// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the text reports say of a process beside its figures, in both layouts: how its
 * tracing ended, and the rare facts that qualify the figures.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>
#include "report.h"

bool report_ending_text(FILE *out, const struct target *t, const struct process_facts *pf,
			bool oom)
{
	if (pf->state)
		fprintf(out, ", %s", pf->state);
	else if (oom && t->oom.killed)
		fprintf(out, ", killed by the OOM killer at %.2f s", t->oom.seconds);
	else if (t->exec)
		fprintf(out, ", then exec'd another program");
	else if (t->exited && t->exit_known && WIFSIGNALED(t->exit_code))
		fprintf(out, ", killed by signal %d (%s)", WTERMSIG(t->exit_code),
			strsignal(WTERMSIG(t->exit_code)));
	else if (t->exited && t->exit_known)
		fprintf(out, ", exited with status %d", WEXITSTATUS(t->exit_code));
	else if (t->exited)
		fprintf(out, ", exited");
	else
		return false;
	return true;
}

void report_tracing_notes(FILE *out, const struct process_facts *pf)
{
	if (pf->holds_skipped)
		fprintf(out, "Not held at %" PRIu64 " exec or loader events (heaptap was slow): "
			     "stacks through what they loaded may be cut, calls made before its "
			     "probes were placed unseen\n",
			pf->holds_skipped);
	if (pf->dropped_messages)
		fprintf(out, "Updates its agent dropped (collector unreachable, buffer full): %"
			     PRIu64 "; the balances are whole, its time series has gaps\n",
			pf->dropped_messages);
}

void report_allocator_note(FILE *out, const struct target *t)
{
	if (!report_usable_known(t) && t->probed)
		fprintf(out, "Allocator: %s (block sizes unknown: usable = requested for %" PRIu64
			     " blocks)\n",
			t->alloc.path, t->usable_unknown);
}
