/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Web pages opened in a real browser: Debian's chromium, headless, as root without its
 * sandbox. What it saw: a screenshot (decoded here), the DOM after the page's scripts ran,
 * and what the page said on the console.
 */
#ifndef HEAPTAP_TEST_BROWSER_H
#define HEAPTAP_TEST_BROWSER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Open page; with png, take a width x height screenshot into it, else write the DOM after
 * the scripts ran into dom. Chromium's log goes to log. Fails the test with one line when
 * chromium cannot be started or does not finish within timeout_s. The seconds it took.
 */
double browser_screenshot(const char *page, const char *png, int width, int height,
			  const char *log, int timeout_s);
double browser_dump_dom(const char *page, const char *dom, const char *log, int timeout_s);
/* The lines of chromium's log that are the page's console messages (errors, exceptions). */
size_t browser_console_lines(const char *log, char *first, size_t size);

struct png_image {
	uint32_t width, height;
	uint32_t *rgb; /* 0xRRGGBB, width * height, row by row */
};

/* Decode an 8-bit RGB or RGBA, non-interlaced PNG (what chromium writes); fails the test
 * if it cannot. */
void png_read(const char *path, struct png_image *out);
void png_free(struct png_image *img);
/* How many distinct colors it has (up to max), and how many pixels are near color. */
size_t png_colors(const struct png_image *img, size_t max);
size_t png_pixels_near(const struct png_image *img, uint32_t color, int tolerance);

#endif
