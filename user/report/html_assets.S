/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The web pages' scripts and styles (tools/report/), built into the binary so that an
 * installed heaptap writes self-contained pages without data files. Each is followed by a
 * NUL: html_assets.h reads them as C strings. Paths are relative to the top directory, where
 * make runs the assembler.
 */
#define ASSET(name, file)			\
	.section .rodata.html_assets, "a";	\
	.global name;				\
	.type name, @object;			\
name:						\
	.incbin file;				\
	.byte 0;				\
	.size name, . - name

ASSET(html_asset_uplot_js, "tools/report/vendor/uplot/uPlot.iife.min.js")
ASSET(html_asset_uplot_css, "tools/report/vendor/uplot/uPlot.min.css")
ASSET(html_asset_uplot_license, "tools/report/vendor/uplot/LICENSE")
ASSET(html_asset_page_css, "tools/report/page.css")
ASSET(html_asset_page_js, "tools/report/page.js")
ASSET(html_asset_job_js, "tools/report/job.js")
ASSET(html_asset_compare_js, "tools/report/compare.js")

	.section .note.GNU-stack, "", @progbits
