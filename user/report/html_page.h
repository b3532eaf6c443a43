/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The web pages heaptap writes (report --html, compare --html): one self-contained file,
 * every script and style inline (uPlot, vendored under tools/report/ and built into the
 * binary), nothing fetched, so that a page can be mailed or opened on a login node. The
 * page's own script reads the data blocks and draws.
 */
#ifndef HEAPTAP_HTML_PAGE_H
#define HEAPTAP_HTML_PAGE_H

#include <stdio.h>
#include <json-c/json.h>

/* The scripts that draw a kind of page (tools/report/NAME.js). */
enum html_script { HTML_SCRIPT_JOB, HTML_SCRIPT_COMPARE };

/* Doctype, head (title, styles, uPlot with its licence, the shared script), <body>. */
void html_page__begin(FILE *out, const char *title);
/* The page's drawing script, </body></html>. */
void html_page__end(FILE *out, enum html_script script);
/* s as HTML text or attribute value (names may hold C++'s < > &). */
void html_text(FILE *out, const char *s);
/*
 * o as JSON in <script type="application/json" id="ID">, which the page's script reads with
 * JSON.parse; every < escaped, so that no string in it can end or bend the element.
 */
void html_page__data(FILE *out, const char *id, json_object *o);

#endif
