// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The skeleton of heaptap's web pages: head, inline assets, data blocks. */
#include <string.h>
#include "html_page.h"

/* html_assets.S: the files of tools/report/, each followed by a NUL. */
extern const char html_asset_uplot_js[], html_asset_uplot_css[], html_asset_uplot_license[];
extern const char html_asset_page_css[], html_asset_page_js[];
extern const char html_asset_job_js[], html_asset_compare_js[];

void html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* A script's text: a "</" in it would end the element early. The assets have none. */
static void inline_script(FILE *out, const char *js)
{
	fputs("<script>\n", out);
	fputs(js, out);
	fputs("\n</script>\n", out);
}

void html_page__begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", out);
	html_text(out, title);
	fputs("</title>\n<style>\n", out);
	fputs(html_asset_uplot_css, out);
	fputs("\n", out);
	fputs(html_asset_page_css, out);
	fputs("</style>\n", out);
	/* uPlot's licence asks that its notice go with every copy. */
	fputs("<!-- The plots are drawn by uPlot, included below under this licence:\n", out);
	html_text(out, html_asset_uplot_license);
	fputs("-->\n", out);
	inline_script(out, html_asset_uplot_js);
	inline_script(out, html_asset_page_js);
	fputs("</head><body>\n", out);
}

void html_page__end(FILE *out, enum html_script script)
{
	inline_script(out, script == HTML_SCRIPT_JOB ? html_asset_job_js : html_asset_compare_js);
	fputs("</body></html>\n", out);
	fflush(out);
}

void html_page__data(FILE *out, const char *id, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);

	fputs("<script type=\"application/json\" id=\"", out);
	html_text(out, id);
	fputs("\">", out);
	/* '<' occurs in JSON only inside strings, where \u003c means the same. */
	for (const char *lt; (lt = strchr(s, '<')); s = lt + 1) {
		fwrite(s, 1, lt - s, out);
		fputs("\\u003c", out);
	}
	fputs(s, out);
	fputs("</script>\n", out);
}
